import { useEffect, useId, useRef, useState } from 'react';
import type { JobView as Job } from '@htm/contracts/jobs';
import { FINDING_SEVERITY_LABELS } from '@htm/contracts/findings';
import type { ClosestFinding } from '@htm/contracts/summary';
import { useClosestFindingsMutation } from '../api/closest-findings';
import styles from './same-problem.module.css';

export const SAME_PROBLEM_TITLE = 'Same problem?';
export const SAME_PROBLEM_LINE =
  'Other testers of this site wrote these. If one describes the same problem as yours, choose it, then press Submit again.';
export const NOT_THE_SAME = 'No, a different problem';

interface Step {
  /** The finding texts the closest findings were asked for. */
  texts: string[];
  closest: ClosestFinding[][];
  /** Per finding: the `same_as` of the other tester's finding chosen, '' = not the same. */
  chosen: string[];
}

const sameTexts = (a: string[], b: string[]) =>
  a.length === b.length && a.every((t, i) => t === b[i]);

/**
 * The "same problem?" step of Submit Work (a pack's slot): after the tester has written their own
 * findings and pressed Submit (never before, so fresh eyes stay fresh), the pack's closest findings
 * of the other testers are shown for each; a yes is sent as `<name>_N_same_as`, which joins that
 * problem for certain. The step never blocks a submission: nothing close, or no answer from the
 * server, and the work is sent at once.
 */
export function useSameProblem(job: Pick<Job, 'id' | 'pack_id'>) {
  const [compare, { isLoading }] = useClosestFindingsMutation();
  const [step, setStep] = useState<Step | null>(null);

  /** True when the step is to be shown first (the submit stops there); the texts are trimmed. */
  const askFirst = async (texts: string[]): Promise<boolean> => {
    if (!job.pack_id) return false;
    if (step && sameTexts(step.texts, texts)) return false;
    const res = await compare({ jobId: job.id, texts });
    const closest = 'data' in res && res.data ? res.data.closest : [];
    setStep({ texts, closest, chosen: texts.map(() => '') });
    return closest.some((list) => list.length > 0);
  };

  /** Adds the tester's "same problem" answers to the form (`${name}_N_same_as`). */
  const append = (form: FormData, name: string, texts: string[]) => {
    if (!step || !sameTexts(step.texts, texts)) return;
    step.chosen.forEach((c, i) => {
      if (c) form.append(`${name}_${i + 1}_same_as`, c);
    });
  };

  /** The step to show for these texts (null while there is none or the findings changed since). */
  const shown = (texts: string[]) =>
    step && sameTexts(step.texts, texts) && step.closest.some((l) => l.length) ? step : null;

  const choose = (i: number, sameAs: string) =>
    setStep((s) => (s ? { ...s, chosen: s.chosen.map((c, j) => (j === i ? sameAs : c)) } : s));

  return { askFirst, append, shown, choose, comparing: isLoading };
}

/** The closest findings of the other testers beside each of the tester's own, with a yes / no choice. */
export function SameProblemStep({
  step,
  onChoose,
}: {
  step: Step;
  onChoose: (findingIndex: number, sameAs: string) => void;
}) {
  const ref = useRef<HTMLFieldSetElement>(null);
  const lineId = useId();
  // It appears after Submit was pressed: take the focus there so a screen reader reads it.
  useEffect(() => ref.current?.focus(), []);
  return (
    <fieldset className={styles.step} ref={ref} tabIndex={-1} aria-describedby={lineId}>
      <legend className={styles.legend}>{SAME_PROBLEM_TITLE}</legend>
      <p className="muted" id={lineId}>
        {SAME_PROBLEM_LINE}
      </p>
      {step.closest.map((list, i) =>
        list.length ? (
          <fieldset key={i} className={styles.finding}>
            <legend className={styles.mine} dir="auto">
              Your finding {i + 1}: “{step.texts[i]}”
            </legend>
            {list.map((c) => (
              <label key={c.same_as} className={styles.choice}>
                <input
                  type="radio"
                  name={`same-problem-${i}`}
                  value={c.same_as}
                  checked={step.chosen[i] === c.same_as}
                  onChange={() => onChoose(i, c.same_as)}
                />
                <span dir="auto">
                  Same problem as “{c.text}”
                  {c.severity ? (
                    <span className="muted"> · {FINDING_SEVERITY_LABELS[c.severity]}</span>
                  ) : null}
                </span>
              </label>
            ))}
            <label className={styles.choice}>
              <input
                type="radio"
                name={`same-problem-${i}`}
                value=""
                checked={!step.chosen[i]}
                onChange={() => onChoose(i, '')}
              />
              <span>{NOT_THE_SAME}</span>
            </label>
          </fieldset>
        ) : null,
      )}
    </fieldset>
  );
}
