import type { JobView } from '@htm/contracts/jobs';
import { api } from '../../../lib/api';
import { jobChanged, type AppThunkDispatch } from '../../../lib/job-cache';
import { uploadForm, type UploadResult } from '../../../lib/transfer';

/** Multipart uploads go through XMLHttpRequest (progress events), then patch the lists. */
export async function postSubmitWork(
  jobId: string,
  form: FormData,
  onProgress: (p: number) => void,
): Promise<UploadResult> {
  return uploadForm(`/jobs/${encodeURIComponent(jobId)}/submit-work`, form, onProgress);
}

export async function postSubmission(
  jobId: string,
  form: FormData,
  onProgress: (p: number) => void,
): Promise<UploadResult> {
  return uploadForm(`/jobs/${encodeURIComponent(jobId)}/submissions`, form, onProgress);
}

/**
 * After a successful upload: the answer's job (submitted) goes into the cached lists and the
 * report is read again where it is shown; no list is read again. (An answer without the job,
 * never expected, reads My Jobs again.)
 */
export const afterSubmit = (answer: unknown) => (dispatch: AppThunkDispatch) => {
  const job = (answer as { job?: JobView } | null)?.job;
  if (!job) return dispatch(api.util.invalidateTags(['MyJob']));
  dispatch(jobChanged(job));
  dispatch(api.util.invalidateTags([{ type: 'Submission', id: job.id }]));
};

/**
 * A 403 or 409 answer to a submit means the job is no longer this tester's to submit (the claim
 * expired, or it moved on): the job lists are stale too.
 */
export const jobMovedOn = (status: number): boolean => status === 403 || status === 409;
export const invalidateAfterRefusedSubmit = () =>
  api.util.invalidateTags(['MyJob', 'AvailableJob']);
