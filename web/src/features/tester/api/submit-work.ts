import { api } from '../../../lib/api';
import { uploadForm, type UploadResult } from '../../../lib/transfer';

/** Multipart uploads go through XMLHttpRequest (progress events), then refresh the lists. */
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

/** After a successful upload the cached job lists are stale. */
export const invalidateAfterSubmit = () =>
  api.util.invalidateTags(['MyJob', 'AvailableJob', 'Earnings']);

/**
 * A 403 or 409 answer to a submit means the job is no longer this tester's to submit (the claim
 * expired, or it moved on): the job lists are stale too.
 */
export const jobMovedOn = (status: number): boolean => status === 403 || status === 409;
export const invalidateAfterRefusedSubmit = () =>
  api.util.invalidateTags(['MyJob', 'AvailableJob']);
