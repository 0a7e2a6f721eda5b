import { lazy, Suspense, useEffect, useState, type FormEvent } from 'react';
import { JOB_LIMITS, submitWorkDashboardSchema } from '@htm/contracts/jobs';
import { useDiscardGuard } from '../../../components/discard-guard';
import { Field, FormMessage } from '../../../components/field';
import { Modal } from '../../../components/modal';
import { DRAFT_KEYS, hasText, useDraft } from '../../../lib/drafts';
import { formatDate } from '../../../lib/format';
import { useGetSubmissionQuery } from '../../../lib/submission-api';
import type { JobView as Job } from '@htm/contracts/jobs';
import { issuesByField } from '../../../lib/zod-errors';
import { postSubmitWork } from '../api/submit-work';
import { checkScreenshot } from '../file-rules';
import { findingDetailsSchema } from '@htm/contracts/findings';
import {
  appendFindingDetails,
  findingDetailFields,
  KeyFindingFields,
  EMPTY_DETAILS as EMPTY,
  type FindingDetailsDraft,
} from './key-finding-fields';
import { MinutesField } from './minutes-field';
import { ScreenRecorder, useRecorderInForm } from './screen-recorder';
import type { AttachedRecording } from '../recording';
import type { PendingRecording } from '../live-recording';
import { RevisionRequest } from './revision-request';
import { UploadProgress } from './upload-progress';
import { useWorkUpload } from './use-work-upload';
import { Form } from '../../../components/form';

/** The drawing tools (Konva) load when the tester first draws on a screenshot. */
const ScreenshotAnnotator = lazy(() =>
  import('./screenshot-annotator').then((m) => ({ default: m.ScreenshotAnnotator })),
);

export const QUICK_REPORT = 'Quick report';
export const QUICK_REPORT_LINE =
  'Your feedback in your own words, up to 3 key findings and a screenshot.';
export const QUICK_CHECKLIST_HINT =
  'Answer any of the things to check. The poster sees only what you answer.';

interface QuickDraft {
  feedback: string;
  findings: string[];
  /** Optional answers to the job's checklist, one per item ('' = not answered). */
  answers?: string[];
  /** Each finding's optional details (severity, steps, expected/actual, moment). */
  details?: FindingDetailsDraft[];
  /** The uploaded screen recording, sent as `recording_id`. */
  recording?: AttachedRecording;
  /** A recording whose upload has not finished: its upload URL and where its chunks are kept. */
  pending_recording?: PendingRecording;
}

/**
 * 'Quick report' (tester dashboard variant, POST /submit-work): feedback, 1-3 key findings,
 * optional screenshot. The text is kept as a draft per job; a resubmission after a revision
 * request starts from the previous answers.
 */
export function SubmitWorkModal({ job, onClose }: { job: Job; onClose: () => void }) {
  const resubmit = job.status === 'revision_requested';
  const [draft, setDraft, clearDraft] = useDraft<QuickDraft>(DRAFT_KEYS.submitWork(job.id), {
    feedback: '',
    findings: ['', '', ''],
  });
  const { feedback, findings } = draft;
  const reqs = job.requirements ?? [];
  const answers = reqs.map((_, i) => draft.answers?.[i] ?? '');
  const setFeedback = (text: string) => setDraft({ ...draft, feedback: text });
  const setFindings = (next: string[]) => setDraft({ ...draft, findings: next });
  const setDetails = (details: FindingDetailsDraft[]) => setDraft({ ...draft, details });
  const setAnswer = (i: number, text: string) =>
    setDraft({ ...draft, answers: answers.map((a, j) => (j === i ? text : a)) });
  const previous = useGetSubmissionQuery(job.id, { skip: !resubmit }).data;
  useEffect(() => {
    if (!previous || hasText(draft)) return;
    const bullets = previous.human_preview?.key_findings_bullets ?? [];
    setDraft({
      feedback: previous.general_feedback ?? '',
      findings: [0, 1, 2].map((i) => bullets[i] ?? ''),
      answers: reqs.map(
        (_, i) =>
          previous.requirement_responses?.find((r) => r.requirement_index === i)?.response_text ??
          '',
      ),
    });
    // Only when the previous submission arrives.
  }, [previous]);
  const [file, setFile] = useState<File | null>(null);
  const [annotating, setAnnotating] = useState(false);
  const [annotated, setAnnotated] = useState(false);
  const [minutes, setMinutes] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const recorder = useRecorderInForm(job.id, draft, setDraft);
  const { progress, formError, setFormError, fileError, upload, clearFileRefusal } = useWorkUpload(
    () => {
      clearDraft();
      onClose();
    },
  );
  const { requestClose, prompt } = useDiscardGuard(
    hasText(draft) || file !== null,
    onClose,
    clearDraft,
  );

  // A refused file stays selected with its error, so Submit stays blocked until the tester
  // picks another one or clears it: evidence is never dropped silently.
  const onFile = (f: File | null, drawnOn = false) => {
    setFile(f);
    setAnnotated(drawnOn);
    setAnnotating(false);
    setErrors((e) => ({ ...e, screenshot: checkScreenshot(f) ?? '' }));
    clearFileRefusal();
  };
  const clearError = (field: string) => setErrors((e) => ({ ...e, [field]: '' }));
  const onFindings = (next: string[]) => {
    next.forEach((v, i) => v !== findings[i] && clearError(`key_finding_${i + 1}`));
    setFindings(next);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setFormError(null);
    clearFileRefusal();
    if (recorder.problem || annotating) {
      setFormError(recorder.problem ?? 'Finish or cancel drawing on the screenshot first.');
      return;
    }
    const parsed = submitWorkDashboardSchema.safeParse({
      feedback_text: feedback,
      key_finding_1: findings[0],
      key_finding_2: findings[1],
      key_finding_3: findings[2],
      minutes_spent: minutes,
      requirement_responses: answers.map((t, i) => ({ requirement_index: i, response_text: t })),
    });
    const detailsParsed = findingDetailsSchema('dashboard').safeParse(
      findingDetailFields('key_finding', draft.details),
    );
    const errs = {
      ...(detailsParsed.success ? {} : issuesByField(detailsParsed.error.issues)),
      ...(parsed.success ? {} : issuesByField(parsed.error.issues)),
    };
    const fileProblem = checkScreenshot(file);
    if (fileProblem) errs.screenshot = fileProblem;
    setErrors(errs);
    if (!parsed.success || !detailsParsed.success || fileProblem) return;
    const form = new FormData();
    form.append('feedback_text', feedback.trim());
    findings.forEach((f, i) => form.append(`key_finding_${i + 1}`, f.trim()));
    // Details only beside a finding that has text (an emptied finding drops its details).
    appendFindingDetails(
      form,
      'key_finding',
      findings.map((f, i) => (f.trim() ? draft.details?.[i] : undefined)).map((d) => d ?? EMPTY),
    );
    if (parsed.data.minutes_spent !== null)
      form.append('minutes_spent', String(parsed.data.minutes_spent));
    const answered = parsed.data.requirement_responses.filter((r) => r.response_text);
    if (answered.length) form.append('requirement_responses', JSON.stringify(answered));
    if (file) form.append('screenshot', file);
    if (recorder.recordingId) form.append('recording_id', recorder.recordingId);
    await upload(
      (onProgress) => postSubmitWork(job.id, form, onProgress),
      resubmit ? 'Work resubmitted.' : 'Work submitted. The poster has been notified.',
    );
  };

  return (
    <Modal
      title={resubmit ? `Resubmit: ${QUICK_REPORT}` : QUICK_REPORT}
      onClose={requestClose}
      size="lg"
      banner={prompt}
    >
      <Form
        className="form"
        onSubmit={submit}
        noValidate
        aria-label={resubmit ? 'Resubmit Work' : 'Submit Work'}
      >
        <p className="muted">{QUICK_REPORT_LINE}</p>
        <p className="muted">
          <strong>{job.title}</strong> ·{' '}
          <a href={job.url} target="_blank" rel="noreferrer">
            {job.url}
          </a>
        </p>
        <section className="job-brief" aria-label="What to test">
          <h3 className="job-brief__title">What to test</h3>
          <p className="prewrap">{job.what_to_test}</p>
          {job.requirements?.length ? (
            <>
              <h3 className="job-brief__title">Things to check</h3>
              <ul className="reqs-list">
                {job.requirements.map((r, i) => (
                  <li key={i}>{r}</li>
                ))}
              </ul>
            </>
          ) : null}
        </section>
        {resubmit ? (
          <div className="notice" role="note">
            <RevisionRequest review={job.last_review} />
            {job.revision_deadline_at ? (
              <div>Resubmit by {formatDate(job.revision_deadline_at)}.</div>
            ) : null}
          </div>
        ) : null}
        <ScreenRecorder {...recorder.recorderProps} />
        <Field
          label="Feedback"
          error={errors.feedback_text}
          hint={`${feedback.trim().length}/${JOB_LIMITS.feedbackMax} characters (at least ${JOB_LIMITS.feedbackMin})`}
        >
          <textarea
            data-autofocus
            rows={5}
            dir="auto"
            value={feedback}
            onChange={(e) => {
              setFeedback(e.target.value);
              clearError('feedback_text');
            }}
          />
        </Field>
        <KeyFindingFields
          values={findings}
          onChange={onFindings}
          name="key_finding"
          errors={errors}
          max={JOB_LIMITS.keyFindingMax}
          optionalAfterFirst
          details={draft.details}
          onDetailsChange={setDetails}
        />
        {reqs.length ? (
          <fieldset className="checklist-answers">
            <legend>Answers to the checklist (optional)</legend>
            <p className="muted">{QUICK_CHECKLIST_HINT}</p>
            {reqs.map((r, i) => (
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
                  onChange={(e) => {
                    setAnswer(i, e.target.value);
                    clearError(`requirement_responses.${i}`);
                  }}
                />
              </Field>
            ))}
          </fieldset>
        ) : null}
        <Field
          label="Screenshot"
          optional
          error={errors.screenshot || fileError || undefined}
          hint="PNG, JPG or GIF, up to 10MB."
        >
          <input
            type="file"
            accept="image/png,image/jpeg,image/gif,image/webp"
            onChange={(e) => onFile(e.target.files?.[0] ?? null)}
          />
        </Field>
        {file && annotated && !annotating ? (
          <p className="muted">Annotated screenshot attached: {file.name}</p>
        ) : null}
        {file && !annotating && !errors.screenshot && file.type.startsWith('image/') ? (
          <button
            type="button"
            className="btn btn--link btn--sm"
            onClick={() => setAnnotating(true)}
          >
            Draw on the screenshot (boxes, arrows, notes, blur)
          </button>
        ) : null}
        {file && annotating ? (
          <Suspense fallback={<p className="muted">Loading the drawing tools…</p>}>
            <ScreenshotAnnotator
              file={file}
              onDone={(f) => onFile(f, true)}
              onCancel={() => setAnnotating(false)}
            />
          </Suspense>
        ) : null}
        <MinutesField
          value={minutes}
          error={errors.minutes_spent}
          onChange={(v) => {
            setMinutes(v);
            clearError('minutes_spent');
          }}
        />
        <UploadProgress percent={progress} />
        <FormMessage error={formError} />
        <div className="form__actions">
          <button type="button" className="btn btn--ghost" onClick={requestClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn--primary" disabled={progress !== null}>
            {resubmit ? 'Resubmit Work' : 'Submit Work'}
          </button>
        </div>
      </Form>
    </Modal>
  );
}
