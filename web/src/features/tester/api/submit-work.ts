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
