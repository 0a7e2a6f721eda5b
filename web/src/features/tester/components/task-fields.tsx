import {
  SEQ_ENDS,
  SEQ_QUESTION,
  SEQ_SCALE,
  SUS_ENDS,
  SUS_QUESTIONS,
  SUS_SCALE,
  TASK_OUTCOMES,
  TASK_OUTCOME_LABELS,
  taskFieldsSchema,
  type TaskOutcome,
} from '@htm/contracts/summary';
import { Field } from '../../../components/field';
import { issuesByField } from '../../../lib/zod-errors';
import styles from './task-fields.module.css';

/** How one thing to check went, as typed ('' = not answered). */
export interface TaskDraft {
  outcome: '' | TaskOutcome;
  seq: string;
  minutes: string;
}
export const EMPTY_TASK: TaskDraft = { outcome: '', seq: '', minutes: '' };
const range = (min: number, max: number) =>
  Array.from({ length: max - min + 1 }, (_, i) => min + i);

/** The answered tasks and the SUS answers (null unless all 10 are given) as the service reads them. */
export function taskPayload(tasks: TaskDraft[] | undefined, sus: Array<number | null> | undefined) {
  const task_answers = (tasks ?? [])
    .map((t, i) => ({
      requirement_index: i,
      outcome: t?.outcome || null,
      seq: t?.seq ? Number(t.seq) : null,
      minutes: t?.minutes.trim() ? t.minutes.trim() : null,
    }))
    .filter((t) => t.outcome !== null || t.seq !== null || t.minutes !== null);
  const given = (sus ?? []).filter((v): v is number => v !== null && v !== undefined);
  return { task_answers, sus: given.length ? (sus ?? []) : null };
}

/** The client-side check of the task fields (the service's rules): field errors by name. */
export function taskErrors(payload: ReturnType<typeof taskPayload>): Record<string, string> {
  const parsed = taskFieldsSchema.safeParse({
    task_answers: payload.task_answers,
    sus: payload.sus ?? undefined,
  });
  return parsed.success ? {} : issuesByField(parsed.error.issues);
}

/** Adds `task_answers` and `sus` to a Submit Work form when the tester answered any. */
export function appendTaskFields(form: FormData, payload: ReturnType<typeof taskPayload>) {
  if (payload.task_answers.length)
    form.append('task_answers', JSON.stringify(payload.task_answers));
  if (payload.sus) form.append('sus', JSON.stringify(payload.sus));
}

/**
 * "How each thing to check went" (optional, both Submit Work variants): done / partly / not done,
 * how easy it was on the 7-point Single Ease Question, and minutes on it.
 */
export function TaskFields({
  requirements,
  value,
  onChange,
  errors,
}: {
  requirements: string[];
  value: TaskDraft[] | undefined;
  onChange: (next: TaskDraft[]) => void;
  errors: Record<string, string>;
}) {
  const tasks = requirements.map((_, i) => value?.[i] ?? EMPTY_TASK);
  const set = (i: number, patch: Partial<TaskDraft>) =>
    onChange(tasks.map((t, j) => (j === i ? { ...t, ...patch } : t)));
  return (
    <fieldset className={styles.tasks}>
      <legend>How each thing to check went (optional)</legend>
      {requirements.map((r, i) => {
        const err = (k: string) => errors[`task_answers.${i}.${k}`] || undefined;
        return (
          <fieldset key={i} className={styles.task}>
            <legend className={styles.taskTitle} dir="auto">
              {i + 1}. {r}
            </legend>
            <div role="radiogroup" aria-label={`Did you get it done? (${i + 1})`}>
              <span>Did you get it done?</span>
              <div className={styles.choices}>
                {TASK_OUTCOMES.map((o) => (
                  <label key={o} className={styles.choice}>
                    <input
                      type="radio"
                      name={`task-${i}-outcome`}
                      value={o}
                      checked={tasks[i].outcome === o}
                      onChange={() => set(i, { outcome: o })}
                    />
                    {TASK_OUTCOME_LABELS[o]}
                  </label>
                ))}
              </div>
              {err('outcome') ? <div className="field__error">{err('outcome')}</div> : null}
            </div>
            <div className={styles.row}>
              <Field label={SEQ_QUESTION} optional error={err('seq')}>
                <select value={tasks[i].seq} onChange={(e) => set(i, { seq: e.target.value })}>
                  <option value="">Not rated</option>
                  {range(SEQ_SCALE.min, SEQ_SCALE.max).map((n) => (
                    <option key={n} value={String(n)}>
                      {n}
                      {n === SEQ_SCALE.min ? ` (${SEQ_ENDS.min})` : ''}
                      {n === SEQ_SCALE.max ? ` (${SEQ_ENDS.max})` : ''}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label="Minutes on it" optional error={err('minutes')}>
                <input
                  inputMode="numeric"
                  value={tasks[i].minutes}
                  onChange={(e) => set(i, { minutes: e.target.value })}
                />
              </Field>
            </div>
          </fieldset>
        );
      })}
    </fieldset>
  );
}

/** The optional 10-statement System Usability Scale (all or none). */
export function SusFields({
  value,
  onChange,
  error,
}: {
  value: Array<number | null> | undefined;
  onChange: (next: Array<number | null>) => void;
  error?: string;
}) {
  const answers = SUS_QUESTIONS.map((_, i) => value?.[i] ?? null);
  const started = answers.some((a) => a !== null);
  return (
    <details className={styles.sus} open={started || !!error}>
      <summary>Rate the site overall: 10 short statements (optional)</summary>
      <p className="muted">
        Answer all ten or none, from {SUS_SCALE.min} ({SUS_ENDS.min}) to {SUS_SCALE.max} (
        {SUS_ENDS.max}).
      </p>
      {SUS_QUESTIONS.map((q, i) => (
        <fieldset key={i} className={styles.statement}>
          <legend dir="auto">
            {i + 1}. {q}
          </legend>
          <div className={styles.scale}>
            <span className={styles.end} aria-hidden="true">
              {SUS_ENDS.min}
            </span>
            {range(SUS_SCALE.min, SUS_SCALE.max).map((n) => (
              <label key={n} className={styles.choice}>
                <input
                  type="radio"
                  name={`sus-${i}`}
                  value={n}
                  checked={answers[i] === n}
                  onChange={() => onChange(answers.map((a, j) => (j === i ? n : a)))}
                />
                {n}
              </label>
            ))}
            <span className={styles.end} aria-hidden="true">
              {SUS_ENDS.max}
            </span>
          </div>
        </fieldset>
      ))}
      {error ? <div className="field__error">{error}</div> : null}
    </details>
  );
}
