import { useState, type FormEvent } from 'react';
import { JOB_LIMITS, submitWorkPosterFlowSchema } from '@htm/contracts/jobs';
import { Field, FormMessage } from '../../../components/field';
import { Modal } from '../../../components/modal';
import type { Job } from '../../../lib/types';
import { issuesByField } from '../../../lib/zod-errors';
import { postSubmission } from '../api/submit-work';
import { checkResultFiles } from '../file-rules';
import { KeyFindingFields } from './key-finding-fields';
import { UploadProgress } from './upload-progress';
import { useWorkUpload } from './use-work-upload';

/** Submit Work (poster-flow variant): a response per requirement, device, browser, 3 key findings, files. */
export function SubmitReportModal({ job, onClose }: { job: Job; onClose: () => void }) {
  const reqs = job.requirements?.length ? job.requirements : [job.what_to_test];
  const [responses, setResponses] = useState<string[]>(() => reqs.map(() => ''));
  const [general, setGeneral] = useState('');
  const [device, setDevice] = useState('');
  const [browserUsed, setBrowserUsed] = useState('');
  const [bullets, setBullets] = useState(['', '', '']);
  const [files, setFiles] = useState<File[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const { progress, formError, setFormError, upload, clearFileRefusal } = useWorkUpload(onClose);

  // Refused files stay selected with their error, so Submit stays blocked until the tester
  // picks others or clears them: evidence is never dropped silently.
  const onFiles = (list: FileList | null) => {
    const arr = list ? Array.from(list) : [];
    setFiles(arr);
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
    });
    const errs = parsed.success ? {} : issuesByField(parsed.error.issues);
    const fileProblem = checkResultFiles(files);
    if (fileProblem) errs.files = fileProblem;
    setErrors(errs);
    if (!parsed.success || fileProblem) return;
    const form = new FormData();
    form.append('requirement_responses', JSON.stringify(parsed.data.requirement_responses));
    form.append('general_feedback', general.trim());
    form.append('device_used', device.trim());
    form.append('browser_used', browserUsed.trim());
    bullets.forEach((b, i) => form.append(`key_findings_bullet_${i + 1}`, b.trim()));
    for (const f of files) form.append('files', f);
    await upload(
      (onProgress) => postSubmission(job.id, form, onProgress),
      'Report submitted. The poster has been notified.',
    );
  };

  return (
    <Modal title="Submit Work" onClose={onClose} size="lg">
      <form className="form" onSubmit={submit} noValidate aria-label="Submit detailed report">
        <p className="muted">
          <strong>{job.title}</strong> · answer each thing the poster asked you to check.
        </p>
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
        />
        <Field
          label="Screenshots or screen recordings"
          optional
          error={errors.files || undefined}
          hint="Images up to 10MB, videos up to 100MB. One main file recommended; share extra links in your feedback."
        >
          <input
            type="file"
            multiple
            accept="image/*,video/*"
            onChange={(e) => onFiles(e.target.files)}
          />
        </Field>
        <UploadProgress percent={progress} />
        <FormMessage error={formError} />
        <div className="form__actions">
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn--primary" disabled={progress !== null}>
            Submit Work
          </button>
        </div>
      </form>
    </Modal>
  );
}
