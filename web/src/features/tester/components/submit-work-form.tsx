import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { z } from 'zod';
import type { FieldValues, Path } from 'react-hook-form';
import {
  JOB_LIMITS,
  submitWorkDashboardSchema,
  submitWorkPosterFlowSchema,
  type JobView as Job,
  type SubmissionView,
} from '@htm/contracts/jobs';
import { findingDetailsSchema } from '@htm/contracts/findings';
import { useDiscardGuard } from '../../../components/discard-guard';
import { Field, FormMessage } from '../../../components/field';
import { Modal } from '../../../components/modal';
import {
  flatErrors,
  SchemaForm,
  SubmitButton,
  useSchemaForm,
} from '../../../components/schema-form';
import { DRAFT_KEYS, hasText } from '../../../lib/drafts';
import { formatDate } from '../../../lib/format';
import { useGetSubmissionQuery } from '../../../lib/submission-api';
import { postSubmission, postSubmitWork } from '../api/submit-work';
import { checkResultFiles, checkScreenshot } from '../file-rules';
import type { PendingRecording } from '../live-recording';
import type { AttachedRecording } from '../recording';
import {
  appendFindingDetails,
  EMPTY_DETAILS as EMPTY,
  findingDetailFields,
  KeyFindingFields,
  type FindingDetailsDraft,
} from './key-finding-fields';
import { MinutesField } from './minutes-field';
import { RevisionRequest } from './revision-request';
import { SameProblemStep, useSameProblem } from './same-problem';
import { ScreenRecorder, useRecorderInForm } from './screen-recorder';
import {
  appendTaskFields,
  SusFields,
  TaskFields,
  taskErrors,
  taskPayload,
  type TaskDraft,
} from './task-fields';
import { UploadProgress } from './upload-progress';
import { useWorkUpload } from './use-work-upload';
import notice from '../../../components/notice.module.css';
import styles from './submit-work-form.module.css';
import briefStyles from './job-brief.module.css';
import checksStyles from '../../../components/job-checks.module.css';
import { buttonClass } from '../../../components/button';

/** The drawing tools (Konva) load when the tester first draws on a screenshot. */
const ScreenshotAnnotator = lazy(() =>
  import('./screenshot-annotator').then((m) => ({ default: m.ScreenshotAnnotator })),
);

export const QUICK_REPORT = 'Quick report';
export const QUICK_REPORT_LINE =
  'Your feedback in your own words, up to 3 key findings and a screenshot.';
export const QUICK_CHECKLIST_HINT =
  'Answer any of the things to check. The poster sees only what you answer.';
export const DETAILED_REPORT = 'Detailed report';
export const DETAILED_REPORT_LINE =
  'An answer for each thing to check, your device and browser, 3 key findings and files.';

/** What both reports keep (as the tab's draft, per job): the recording, details, tasks, SUS. */
interface Shared extends FieldValues {
  /** Each finding's optional details (severity, steps, expected/actual, moment). */
  details?: FindingDetailsDraft[];
  /** The uploaded screen recording, sent as `recording_id`. */
  recording?: AttachedRecording;
  /** A recording whose upload has not finished: its upload URL and where its chunks are kept. */
  pending_recording?: PendingRecording;
  /** How each thing to check went (optional). */
  tasks?: TaskDraft[];
  /** The optional SUS answers, one per statement (null = not answered). */
  sus?: Array<number | null>;
  /** Minutes spent ('' = not said); not kept in the draft. */
  minutes?: string;
}

/** 'Quick report' (tester dashboard, POST /submit-work). */
interface QuickValues extends Shared {
  feedback: string;
  findings: string[];
  /** Optional answers to the job's checklist, one per item ('' = not answered). */
  answers?: string[];
}

/** 'Detailed report' (poster flow, POST /submissions). */
interface DetailedValues extends Shared {
  responses: string[];
  general: string;
  device: string;
  browserUsed: string;
  bullets: string[];
}

type Values = QuickValues | DetailedValues;
type Kind = 'dashboard' | 'poster_flow';

/** What a valid form hands over: the body's fields, ready for the FormData. */
interface Checked {
  fields: Array<[string, string]>;
  tasks: ReturnType<typeof taskPayload>;
}

/** The two reports: one form, differing in their fields, body schema, files and endpoint. */
interface Variant {
  kind: Kind;
  /** The field-name prefix of the key findings in the body. */
  finding: 'key_finding' | 'key_findings_bullet';
  draftKey: (jobId: string) => string;
  initial: (reqs: string[]) => Values;
  fromPrevious: (previous: SubmissionView, reqs: string[]) => Values;
  findings: (v: Values) => string[];
  setFindings: (next: string[]) => Partial<Values>;
  /** The text fields checked by the body's contract schema; [issues, fields to send]. */
  check: (v: Values, reqs: string[]) => { issues: readonly Issue[]; fields: Checked['fields'] };
  /** The file field's name in the errors and body, and its check. */
  fileField: 'screenshot' | 'files';
  checkFiles: (files: File[]) => string | null;
}

interface Issue {
  path: PropertyKey[];
  message: string;
}

const responsesOf = (texts: string[]) =>
  texts.map((t, i) => ({ requirement_index: i, response_text: t }));

const QUICK: Variant = {
  kind: 'dashboard',
  finding: 'key_finding',
  draftKey: DRAFT_KEYS.submitWork,
  initial: () => ({ feedback: '', findings: ['', '', ''] }),
  fromPrevious: (previous, reqs) => {
    const bullets = previous.human_preview?.key_findings_bullets ?? [];
    return {
      feedback: previous.general_feedback ?? '',
      findings: [0, 1, 2].map((i) => bullets[i] ?? ''),
      answers: reqs.map(
        (_, i) =>
          previous.requirement_responses?.find((r) => r.requirement_index === i)?.response_text ??
          '',
      ),
    };
  },
  findings: (v) => (v as QuickValues).findings,
  setFindings: (findings) => ({ findings }),
  check: (raw, reqs) => {
    const v = raw as QuickValues;
    const answers = reqs.map((_, i) => v.answers?.[i] ?? '');
    const parsed = submitWorkDashboardSchema.safeParse({
      feedback_text: v.feedback,
      key_finding_1: v.findings[0],
      key_finding_2: v.findings[1],
      key_finding_3: v.findings[2],
      minutes_spent: v.minutes ?? '',
      requirement_responses: responsesOf(answers),
    });
    if (!parsed.success) return { issues: parsed.error.issues, fields: [] };
    const fields: Checked['fields'] = [['feedback_text', v.feedback.trim()]];
    v.findings.forEach((f, i) => fields.push([`key_finding_${i + 1}`, f.trim()]));
    if (parsed.data.minutes_spent !== null)
      fields.push(['minutes_spent', String(parsed.data.minutes_spent)]);
    const answered = parsed.data.requirement_responses.filter((r) => r.response_text);
    if (answered.length) fields.push(['requirement_responses', JSON.stringify(answered)]);
    return { issues: [], fields };
  },
  fileField: 'screenshot',
  checkFiles: (files) => checkScreenshot(files[0] ?? null),
};

const DETAILED: Variant = {
  kind: 'poster_flow',
  finding: 'key_findings_bullet',
  draftKey: DRAFT_KEYS.submitReport,
  initial: (reqs) => ({
    responses: reqs.map(() => ''),
    general: '',
    device: '',
    browserUsed: '',
    bullets: ['', '', ''],
  }),
  fromPrevious: (previous, reqs) => {
    const p = previous.human_preview;
    return {
      responses: reqs.map(
        (_, i) =>
          previous.requirement_responses?.find((r) => r.requirement_index === i)?.response_text ??
          '',
      ),
      general: previous.general_feedback ?? '',
      device: p?.device_used ?? '',
      browserUsed: p?.browser_used ?? '',
      bullets: [0, 1, 2].map((i) => p?.key_findings_bullets?.[i] ?? ''),
    };
  },
  findings: (v) => (v as DetailedValues).bullets,
  setFindings: (bullets) => ({ bullets }),
  check: (raw, reqs) => {
    const v = raw as DetailedValues;
    const responses = reqs.map((_, i) => v.responses[i] ?? '');
    const parsed = submitWorkPosterFlowSchema.safeParse({
      requirement_responses: responsesOf(responses),
      general_feedback: v.general,
      device_used: v.device,
      browser_used: v.browserUsed,
      key_findings_bullet_1: v.bullets[0],
      key_findings_bullet_2: v.bullets[1],
      key_findings_bullet_3: v.bullets[2],
      minutes_spent: v.minutes ?? '',
    });
    if (!parsed.success) return { issues: parsed.error.issues, fields: [] };
    const fields: Checked['fields'] = [
      ['requirement_responses', JSON.stringify(parsed.data.requirement_responses)],
      ['general_feedback', v.general.trim()],
      ['device_used', v.device.trim()],
      ['browser_used', v.browserUsed.trim()],
    ];
    v.bullets.forEach((b, i) => fields.push([`key_findings_bullet_${i + 1}`, b.trim()]));
    if (parsed.data.minutes_spent !== null)
      fields.push(['minutes_spent', String(parsed.data.minutes_spent)]);
    return { issues: [], fields };
  },
  fileField: 'files',
  checkFiles: checkResultFiles,
};

/**
 * The form's schema: the body's contract schema (the variant's), the findings' details schema,
 * the task answers' schema and the file rules, all checked at once; the paths are the body's
 * field names ('feedback_text', 'requirement_responses.0', 'key_finding_1_severity', 'files').
 */
function reportSchema(variant: Variant, reqs: string[], files: File[]) {
  return z.custom<Values>().transform((v, ctx): Checked => {
    const text = variant.check(v, reqs);
    const details = findingDetailsSchema(variant.kind).safeParse(
      findingDetailFields(variant.finding, v.details),
    );
    const tasks = taskPayload(v.tasks, v.sus);
    const issues: Issue[] = [...text.issues, ...(details.success ? [] : details.error.issues)];
    const tasksErrs = Object.entries(taskErrors(tasks));
    for (const [key, message] of tasksErrs)
      // Only the most precise key of each issue ('task_answers.0', not also 'task_answers').
      if (!tasksErrs.some(([k]) => k.startsWith(`${key}.`)))
        issues.push({ path: key.split('.'), message });
    const fileProblem = variant.checkFiles(files);
    if (fileProblem) issues.push({ path: [variant.fileField], message: fileProblem });
    for (const i of issues)
      ctx.addIssue({ code: 'custom', message: i.message, path: i.path.map(String) });
    return issues.length ? z.NEVER : { fields: text.fields, tasks };
  }) as unknown as z.ZodType<Checked, Values>;
}

/** The draft keeps what was typed and attached, not the minutes. */
const stored = ({ minutes: _, ...rest }: Values) => rest;

/**
 * Submit Work, both reports: 'Quick report' (tester dashboard, POST /submit-work: feedback,
 * 1-3 key findings, optional screenshot and checklist answers) and 'Detailed report' (poster
 * flow, POST /submissions: an answer per thing to check, device, browser, 3 key findings,
 * files). The text is kept as a draft per job; a resubmission after a revision request starts
 * from the previous answers.
 */
export function SubmitWorkForm({
  job,
  onClose,
  kind,
}: {
  job: Job;
  onClose: () => void;
  kind: Kind;
}) {
  const variant = kind === 'dashboard' ? QUICK : DETAILED;
  const quick = kind === 'dashboard';
  const resubmit = job.status === 'revision_requested';
  const jobReqs = job.requirements ?? [];
  // The detailed report answers the job's text when it lists nothing to check.
  const reqs = quick ? jobReqs : jobReqs.length ? jobReqs : [job.what_to_test];
  const [files, setFiles] = useState<File[]>([]);
  /** The index of the file being drawn on (the quick report has one). */
  const [annotating, setAnnotating] = useState<number | null>(null);
  const [annotated, setAnnotated] = useState(false);
  const form = useSchemaForm<Values, Checked>(
    reportSchema(variant, reqs, files),
    { ...variant.initial(reqs), minutes: '' },
    {
      draft: {
        key: variant.draftKey(job.id),
        hasContent: (v) => hasText(stored(v)),
        store: stored,
      },
    },
  );
  const draft = form.watch();
  const errors = flatErrors(form.formState.errors);
  const setDraft = (next: Values) => {
    for (const [k, val] of Object.entries(next))
      form.setValue(k as Path<Values>, val as never, { shouldDirty: true });
  };
  const patch = (p: Partial<Values>, ...clear: string[]) => {
    setDraft({ ...draft, ...p } as Values);
    if (clear.length) form.clearErrors(clear as Array<Path<Values>>);
  };

  const previous = useGetSubmissionQuery(job.id, { skip: !resubmit }).data;
  useEffect(() => {
    if (!previous || hasText(stored(form.getValues()))) return;
    setDraft(variant.fromPrevious(previous, reqs));
    // Only when the previous submission arrives.
  }, [previous]);

  const recorder = useRecorderInForm(job.id, draft, setDraft);
  const same = useSameProblem(job);
  const findings = variant.findings(draft);
  const written = findings.map((f) => f.trim());
  const sameStep = same.shown(written);
  const { progress, formError, setFormError, fileError, upload, clearFileRefusal } = useWorkUpload(
    () => {
      form.discardDraft();
      onClose();
    },
  );
  const { requestClose, prompt } = useDiscardGuard(
    hasText(stored(draft)) || files.length > 0,
    onClose,
    form.discardDraft,
  );

  // Refused files stay selected with their error, so Submit stays blocked until the tester
  // picks others or clears them: evidence is never dropped silently.
  const onFiles = (next: File[], drawnOn = false) => {
    setFiles(next);
    setAnnotated(drawnOn);
    setAnnotating(null);
    const problem = variant.checkFiles(next);
    if (problem) form.setError(variant.fileField, { type: 'files', message: problem });
    else form.clearErrors(variant.fileField);
    clearFileRefusal();
  };
  const onFindings = (next: string[]) => {
    const changed = next.flatMap((v, i) =>
      v !== findings[i] ? [`${variant.finding}_${i + 1}`] : [],
    );
    patch(variant.setFindings(next), ...changed);
  };

  const submit = async ({ fields, tasks }: Checked) => {
    // A pack's slot: the other testers' closest findings, once the tester's own are written.
    if (await same.askFirst(written)) return;
    const body = new FormData();
    for (const [k, val] of fields) body.append(k, val);
    // Details only beside a finding that has text (an emptied finding drops its details).
    appendFindingDetails(
      body,
      variant.finding,
      quick
        ? findings.map((f, i) => (f.trim() ? draft.details?.[i] : undefined)).map((d) => d ?? EMPTY)
        : draft.details,
    );
    appendTaskFields(body, tasks);
    for (const f of files) body.append(variant.fileField, f);
    if (recorder.recordingId) body.append('recording_id', recorder.recordingId);
    same.append(body, variant.finding, written);
    if (quick)
      await upload(
        (onProgress) => postSubmitWork(job.id, body, onProgress),
        resubmit ? 'Work resubmitted.' : 'Work submitted. The poster has been notified.',
      );
    else
      await upload(
        (onProgress) => postSubmission(job.id, body, onProgress),
        'Report submitted. The poster has been notified.',
      );
  };
  /** Before the check: a recording still uploading, or a drawing not finished, stops it. */
  const blocked = () => {
    setFormError(null);
    clearFileRefusal();
    if (recorder.problem || annotating !== null) {
      setFormError(recorder.problem ?? 'Finish or cancel drawing on the screenshot first.');
      return true;
    }
    return false;
  };

  const title = quick ? QUICK_REPORT : DETAILED_REPORT;
  const fileError_ = errors[variant.fileField] || fileError || undefined;
  const drawButtons: ReactNode =
    errors[variant.fileField] || annotating !== null
      ? null
      : files.map((f, i) =>
          f.type.startsWith('image/') ? (
            <button
              key={i}
              type="button"
              className={buttonClass('link', 'sm')}
              onClick={() => setAnnotating(i)}
            >
              {quick
                ? 'Draw on the screenshot (boxes, arrows, notes, blur)'
                : `Draw on ${f.name} (boxes, arrows, notes, blur)`}
            </button>
          ) : null,
        );

  return (
    <Modal
      title={resubmit ? `Resubmit: ${title}` : title}
      onClose={requestClose}
      size="lg"
      banner={prompt}
    >
      <SchemaForm
        form={form}
        onValid={submit}
        skip={blocked}
        className="form"
        aria-label={quick ? (resubmit ? 'Resubmit Work' : 'Submit Work') : 'Submit detailed report'}
      >
        {quick ? (
          <QuickHead job={job} resubmit={resubmit} />
        ) : (
          <>
            <p className="muted">{DETAILED_REPORT_LINE}</p>
            <p className="muted">
              <strong>{job.title}</strong> · answer each thing the poster asked you to check.
            </p>
          </>
        )}
        <ScreenRecorder {...recorder.recorderProps} />
        {quick ? (
          <Field
            label="Feedback"
            error={errors.feedback_text}
            hint={`${(draft as QuickValues).feedback.trim().length}/${JOB_LIMITS.feedbackMax} characters (at least ${JOB_LIMITS.feedbackMin})`}
          >
            <textarea
              data-autofocus
              rows={5}
              dir="auto"
              value={(draft as QuickValues).feedback}
              onChange={(e) => patch({ feedback: e.target.value }, 'feedback_text')}
            />
          </Field>
        ) : (
          <DetailedTexts
            values={draft as DetailedValues}
            reqs={reqs}
            errors={errors}
            patch={patch}
          />
        )}
        <KeyFindingFields
          values={findings}
          onChange={onFindings}
          name={variant.finding}
          errors={errors}
          max={quick ? JOB_LIMITS.keyFindingMax : JOB_LIMITS.bulletMax}
          optionalAfterFirst={quick}
          details={draft.details}
          onDetailsChange={(details) => patch({ details })}
          requirements={jobReqs}
        />
        {jobReqs.length ? (
          <TaskFields
            requirements={jobReqs}
            value={draft.tasks}
            onChange={(tasks) => patch({ tasks })}
            errors={errors}
          />
        ) : null}
        <SusFields value={draft.sus} onChange={(sus) => patch({ sus }, 'sus')} error={errors.sus} />
        {quick && reqs.length ? (
          <fieldset className={styles['checklist-answers']}>
            <legend>Answers to the checklist (optional)</legend>
            <p className="muted">{QUICK_CHECKLIST_HINT}</p>
            {reqs.map((r, i) => {
              const answers = reqs.map((_, j) => (draft as QuickValues).answers?.[j] ?? '');
              return (
                <Field
                  key={i}
                  label={`${i + 1}. ${r}`}
                  error={errors[`requirement_responses.${i}`]}
                  hint={answers[i] ? `${answers[i].length}/${JOB_LIMITS.responseMax}` : undefined}
                >
                  <textarea
                    rows={2}
                    dir="auto"
                    value={answers[i]}
                    onChange={(e) =>
                      patch(
                        { answers: answers.map((a, j) => (j === i ? e.target.value : a)) },
                        `requirement_responses.${i}`,
                      )
                    }
                  />
                </Field>
              );
            })}
          </fieldset>
        ) : null}
        {quick ? (
          <Field label="Screenshot" optional error={fileError_} hint="PNG, JPG or GIF, up to 10MB.">
            <input
              type="file"
              accept="image/png,image/jpeg,image/gif,image/webp"
              onChange={(e) => onFiles(e.target.files?.[0] ? [e.target.files[0]] : [])}
            />
          </Field>
        ) : (
          <Field
            label="Screenshots or screen recordings"
            optional
            error={fileError_}
            hint="Images up to 10MB, videos up to 100MB. One main file recommended; share extra links in your feedback."
          >
            <input
              type="file"
              multiple
              accept="image/*,video/*"
              onChange={(e) => onFiles(e.target.files ? Array.from(e.target.files) : [])}
            />
          </Field>
        )}
        {quick && files[0] && annotated && annotating === null ? (
          <p className="muted">Annotated screenshot attached: {files[0].name}</p>
        ) : null}
        {!quick && files.some((f) => f.name.endsWith('-annotated.png')) ? (
          <p className="muted">Files attached: {files.map((f) => f.name).join(', ')}</p>
        ) : null}
        {drawButtons}
        {annotating !== null && files[annotating] ? (
          <Suspense fallback={<p className="muted">Loading the drawing tools…</p>}>
            <ScreenshotAnnotator
              file={files[annotating]}
              onDone={(f) =>
                onFiles(
                  files.map((x, k) => (k === annotating ? f : x)),
                  true,
                )
              }
              onCancel={() => setAnnotating(null)}
            />
          </Suspense>
        ) : null}
        <MinutesField
          value={draft.minutes ?? ''}
          error={errors.minutes_spent}
          onChange={(minutes) => patch({ minutes }, 'minutes_spent')}
        />
        {sameStep ? <SameProblemStep step={sameStep} onChoose={same.choose} /> : null}
        <UploadProgress percent={progress} />
        <FormMessage error={formError} />
        <div className="form__actions">
          <button type="button" className={buttonClass('ghost')} onClick={requestClose}>
            Cancel
          </button>
          <SubmitButton busy={progress !== null || same.comparing}>
            {resubmit ? 'Resubmit Work' : 'Submit Work'}
          </SubmitButton>
        </div>
      </SchemaForm>
    </Modal>
  );
}

/** The quick report's head: the job, what to test, its things to check, the revision asked. */
function QuickHead({ job, resubmit }: { job: Job; resubmit: boolean }) {
  return (
    <>
      <p className="muted">{QUICK_REPORT_LINE}</p>
      <p className="muted">
        <strong>{job.title}</strong> ·{' '}
        <a href={job.url} target="_blank" rel="noreferrer">
          {job.url}
        </a>
      </p>
      <section className={briefStyles['job-brief']} aria-label="What to test">
        <h3 className={styles['job-brief__title']}>What to test</h3>
        <p className="prewrap">{job.what_to_test}</p>
        {job.requirements?.length ? (
          <>
            <h3 className={styles['job-brief__title']}>Things to check</h3>
            <ul className={checksStyles['reqs-list']}>
              {job.requirements.map((r, i) => (
                <li key={i}>{r}</li>
              ))}
            </ul>
          </>
        ) : null}
      </section>
      {resubmit ? (
        <div className={notice.notice} role="note">
          <RevisionRequest review={job.last_review} />
          {job.revision_deadline_at ? (
            <div>Resubmit by {formatDate(job.revision_deadline_at)}.</div>
          ) : null}
        </div>
      ) : null}
    </>
  );
}

/** The detailed report's own texts: an answer per thing to check, general feedback, device. */
function DetailedTexts({
  values,
  reqs,
  errors,
  patch,
}: {
  values: DetailedValues;
  reqs: string[];
  errors: Record<string, string>;
  patch: (p: Partial<DetailedValues>, ...clear: string[]) => void;
}) {
  const responses = reqs.map((_, i) => values.responses[i] ?? '');
  return (
    <>
      {errors.requirement_responses ? (
        <p className="form-msg form-msg--error" role="alert">
          {errors.requirement_responses}
        </p>
      ) : null}
      {reqs.map((r, i) => (
        <Field
          key={i}
          label={`${i + 1}. ${r}`}
          error={errors[`requirement_responses.${i}`]}
          hint={`${responses[i].length}/${JOB_LIMITS.responseMax}`}
        >
          <textarea
            rows={2}
            dir="auto"
            value={responses[i]}
            onChange={(e) =>
              patch(
                { responses: responses.map((x, j) => (j === i ? e.target.value : x)) },
                `requirement_responses.${i}`,
              )
            }
          />
        </Field>
      ))}
      <Field label="General feedback" optional error={errors.general_feedback}>
        <textarea
          rows={3}
          dir="auto"
          value={values.general}
          onChange={(e) => patch({ general: e.target.value }, 'general_feedback')}
        />
      </Field>
      <div className="grid-2">
        <Field label="Device used" error={errors.device_used}>
          <input
            value={values.device}
            placeholder="e.g. iPhone 13"
            onChange={(e) => patch({ device: e.target.value }, 'device_used')}
          />
        </Field>
        <Field label="Browser used" error={errors.browser_used}>
          <input
            value={values.browserUsed}
            placeholder="e.g. Safari 17"
            onChange={(e) => patch({ browserUsed: e.target.value }, 'browser_used')}
          />
        </Field>
      </div>
    </>
  );
}
