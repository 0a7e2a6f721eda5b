import { lazy, Suspense, useEffect, useState, type FormEvent } from 'react';
import { JOB_LIMITS, submitWorkPosterFlowSchema } from '@htm/contracts/jobs';
import { useDiscardGuard } from '../../../components/discard-guard';
import { Field, FormMessage } from '../../../components/field';
import { Modal } from '../../../components/modal';
import { DRAFT_KEYS, hasText, useDraft } from '../../../lib/drafts';
import { useGetSubmissionQuery } from '../../../lib/submission-api';
import type { JobView as Job } from '@htm/contracts/jobs';
import { issuesByField } from '../../../lib/zod-errors';
import { postSubmission } from '../api/submit-work';
import { checkResultFiles } from '../file-rules';
import { findingDetailsSchema } from '@htm/contracts/findings';
import {
  appendFindingDetails,
  findingDetailFields,
  KeyFindingFields,
  type FindingDetailsDraft,
} from './key-finding-fields';
import { MinutesField } from './minutes-field';
import { ScreenRecorder, useRecorderInForm } from './screen-recorder';
import type { AttachedRecording } from '../recording';
import type { PendingRecording } from '../live-recording';
import { UploadProgress } from './upload-progress';
import { useWorkUpload } from './use-work-upload';
import { Form } from '../../../components/form';

/** The drawing tools (Konva) load when the tester first draws on a screenshot. */
const ScreenshotAnnotator = lazy(() =>
  import('./screenshot-annotator').then((m) => ({ default: m.ScreenshotAnnotator })),
);

export const DETAILED_REPORT = 'Detailed report';
export const DETAILED_REPORT_LINE =
  'An answer for each thing to check, your device and browser, 3 key findings and files.';

interface DetailedDraft {
  responses: string[];
  general: string;
  device: string;
  browserUsed: string;
  bullets: string[];
  /** Each finding's optional details (severity, steps, expected/actual, moment). */
  details?: FindingDetailsDraft[];
  /** The uploaded screen recording, sent as `recording_id`. */
  recording?: AttachedRecording;
  /** A recording whose upload has not finished: its upload URL and where its chunks are kept. */
  pending_recording?: PendingRecording;
}

/**
 * 'Detailed report' (poster-flow variant, POST /submissions): a response per requirement,
 * device, browser, 3 key findings, files. Kept as a draft per job; a resubmission after a
 * revision request starts from the previous answers.
 */
export function SubmitReportModal({ job, onClose }: { job: Job; onClose: () => void }) {
  const reqs = job.requirements?.length ? job.requirements : [job.what_to_test];
  const resubmit = job.status === 'revision_requested';
  const [draft, setDraft, clearDraft] = useDraft<DetailedDraft>(DRAFT_KEYS.submitReport(job.id), {
    responses: reqs.map(() => ''),
    general: '',
    device: '',
    browserUsed: '',
    bullets: ['', '', ''],
  });
  const responses = reqs.map((_, i) => draft.responses[i] ?? '');
  const { general, device, browserUsed, bullets } = draft;
  const set = (patch: Partial<DetailedDraft>) => setDraft({ ...draft, ...patch });
  const setResponses = (next: string[]) => set({ responses: next });
  const setGeneral = (general: string) => set({ general });
  const setDevice = (device: string) => set({ device });
  const setBrowserUsed = (browserUsed: string) => set({ browserUsed });
  const setBullets = (bullets: string[]) => set({ bullets });
  const setDetails = (details: FindingDetailsDraft[]) => set({ details });
  const previous = useGetSubmissionQuery(job.id, { skip: !resubmit }).data;
  useEffect(() => {
    if (!previous || hasText(draft)) return;
    const p = previous.human_preview;
    setDraft({
      responses: reqs.map(
        (_, i) =>
          previous.requirement_responses?.find((r) => r.requirement_index === i)?.response_text ??
          '',
      ),
      general: previous.general_feedback ?? '',
      device: p?.device_used ?? '',
      browserUsed: p?.browser_used ?? '',
      bullets: [0, 1, 2].map((i) => p?.key_findings_bullets?.[i] ?? ''),
    });
    // Only when the previous submission arrives.
  }, [previous]);
  const [files, setFiles] = useState<File[]>([]);
  /** The index of the image being drawn on, and which ones were. */
  const [annotating, setAnnotating] = useState<number | null>(null);
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
    hasText(draft) || files.length > 0,
    onClose,
    clearDraft,
  );

  // Refused files stay selected with their error, so Submit stays blocked until the tester
  // picks others or clears them: evidence is never dropped silently.
  const onFiles = (list: FileList | null) => {
    const arr = list ? Array.from(list) : [];
    setFiles(arr);
    setAnnotating(null);
    setErrors((e) => ({ ...e, files: checkResultFiles(arr) ?? '' }));
    clearFileRefusal();
  };
  const clearError = (...fields: string[]) =>
    setErrors((e) => ({ ...e, ...Object.fromEntries(fields.map((f) => [f, ''])) }));
  const onBullets = (next: string[]) => {
    next.forEach((v, i) => v !== bullets[i] && clearError(`key_findings_bullet_${i + 1}`));
    setBullets(next);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setFormError(null);
    clearFileRefusal();
    if (recorder.problem || annotating !== null) {
      setFormError(recorder.problem ?? 'Finish or cancel drawing on the screenshot first.');
      return;
    }
    const requirement_responses = responses.map((t, i) => ({
      requirement_index: i,
      response_text: t,
    }));
    const parsed = submitWorkPosterFlowSchema.safeParse({
      requirement_responses,
      general_feedback: general,
      device_used: device,
      browser_used: browserUsed,
      key_findings_bullet_1: bullets[0],
      key_findings_bullet_2: bullets[1],
      key_findings_bullet_3: bullets[2],
      minutes_spent: minutes,
    });
    const detailsParsed = findingDetailsSchema('poster_flow').safeParse(
      findingDetailFields('key_findings_bullet', draft.details),
    );
    const errs = {
      ...(detailsParsed.success ? {} : issuesByField(detailsParsed.error.issues)),
      ...(parsed.success ? {} : issuesByField(parsed.error.issues)),
    };
    const fileProblem = checkResultFiles(files);
    if (fileProblem) errs.files = fileProblem;
    setErrors(errs);
    if (!parsed.success || !detailsParsed.success || fileProblem) return;
    const form = new FormData();
    form.append('requirement_responses', JSON.stringify(parsed.data.requirement_responses));
    form.append('general_feedback', general.trim());
    form.append('device_used', device.trim());
    form.append('browser_used', browserUsed.trim());
    bullets.forEach((b, i) => form.append(`key_findings_bullet_${i + 1}`, b.trim()));
    appendFindingDetails(form, 'key_findings_bullet', draft.details);
    if (parsed.data.minutes_spent !== null)
      form.append('minutes_spent', String(parsed.data.minutes_spent));
    for (const f of files) form.append('files', f);
    if (recorder.recordingId) form.append('recording_id', recorder.recordingId);
    await upload(
      (onProgress) => postSubmission(job.id, form, onProgress),
      'Report submitted. The poster has been notified.',
    );
  };

  return (
    <Modal
      title={resubmit ? `Resubmit: ${DETAILED_REPORT}` : DETAILED_REPORT}
      onClose={requestClose}
      size="lg"
      banner={prompt}
    >
      <Form className="form" onSubmit={submit} noValidate aria-label="Submit detailed report">
        <p className="muted">{DETAILED_REPORT_LINE}</p>
        <p className="muted">
          <strong>{job.title}</strong> · answer each thing the poster asked you to check.
        </p>
        <ScreenRecorder {...recorder.recorderProps} />
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
              onChange={(e) => {
                setResponses(responses.map((x, j) => (j === i ? e.target.value : x)));
                clearError('requirement_responses', `requirement_responses.${i}`);
              }}
            />
          </Field>
        ))}
        <Field label="General feedback" optional error={errors.general_feedback}>
          <textarea
            rows={3}
            dir="auto"
            value={general}
            onChange={(e) => {
              setGeneral(e.target.value);
              clearError('general_feedback');
            }}
          />
        </Field>
        <div className="grid-2">
          <Field label="Device used" error={errors.device_used}>
            <input
              value={device}
              placeholder="e.g. iPhone 13"
              onChange={(e) => {
                setDevice(e.target.value);
                clearError('device_used');
              }}
            />
          </Field>
          <Field label="Browser used" error={errors.browser_used}>
            <input
              value={browserUsed}
              placeholder="e.g. Safari 17"
              onChange={(e) => {
                setBrowserUsed(e.target.value);
                clearError('browser_used');
              }}
            />
          </Field>
        </div>
        <KeyFindingFields
          values={bullets}
          onChange={onBullets}
          name="key_findings_bullet"
          errors={errors}
          max={JOB_LIMITS.bulletMax}
          details={draft.details}
          onDetailsChange={setDetails}
        />
        <Field
          label="Screenshots or screen recordings"
          optional
          error={errors.files || fileError || undefined}
          hint="Images up to 10MB, videos up to 100MB. One main file recommended; share extra links in your feedback."
        >
          <input
            type="file"
            multiple
            accept="image/*,video/*"
            onChange={(e) => onFiles(e.target.files)}
          />
        </Field>
        {files.some((f) => f.name.endsWith('-annotated.png')) ? (
          <p className="muted">Files attached: {files.map((f) => f.name).join(', ')}</p>
        ) : null}
        {!errors.files && annotating === null
          ? files.map((f, i) =>
              f.type.startsWith('image/') ? (
                <button
                  key={i}
                  type="button"
                  className="btn btn--link btn--sm"
                  onClick={() => setAnnotating(i)}
                >
                  Draw on {f.name} (boxes, arrows, notes, blur)
                </button>
              ) : null,
            )
          : null}
        {annotating !== null && files[annotating] ? (
          <Suspense fallback={<p className="muted">Loading the drawing tools…</p>}>
            <ScreenshotAnnotator
              file={files[annotating]}
              onDone={(f) => {
                const next = files.map((x, k) => (k === annotating ? f : x));
                setFiles(next);
                setErrors((e) => ({ ...e, files: checkResultFiles(next) ?? '' }));
                setAnnotating(null);
              }}
              onCancel={() => setAnnotating(null)}
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
