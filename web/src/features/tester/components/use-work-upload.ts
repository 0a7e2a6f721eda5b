import { useState } from 'react';
import { useDispatch } from 'react-redux';
import { CANT_REACH, errorMessage } from '../../../lib/error-message';
import type { AppThunkDispatch } from '../../../lib/job-cache';
import { useNotify } from '../../../lib/hooks';
import type { UploadResult } from '../../../lib/transfer';
import { afterSubmit, invalidateAfterRefusedSubmit, jobMovedOn } from '../api/submit-work';

/**
 * The upload step of both Submit Work modals: progress while it runs; on success put the
 * answer's job into the cached lists, show `done` in the status bar and close; on failure say why and allow a retry.
 */
export function useWorkUpload(onClose: () => void) {
  const [progress, setProgress] = useState<number | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  // The server refused the attached file (413/415): that message is shown on the file input.
  const [fileError, setFileError] = useState<string | null>(null);
  const dispatch = useDispatch<AppThunkDispatch>();
  const { status } = useNotify();

  const upload = async (
    post: (onProgress: (percent: number) => void) => Promise<UploadResult>,
    done: string,
  ) => {
    setProgress(0);
    const res = await post(setProgress);
    if (res.status >= 200 && res.status < 300) {
      dispatch(afterSubmit(res.data));
      status(done);
      onClose();
      return;
    }
    setProgress(null);
    // The job is no longer ours (claim expired, already submitted...): drop the stale card.
    if (jobMovedOn(res.status)) dispatch(invalidateAfterRefusedSubmit());
    const message =
      res.status === 0
        ? CANT_REACH
        : errorMessage({ status: res.status, data: res.data }, 'Failed to submit work');
    if (res.status === 413 || res.status === 415) setFileError(message);
    else setFormError(message);
  };

  /** The tester picked other files: a server refusal of the previous ones no longer applies. */
  const clearFileRefusal = () => setFileError(null);

  return { progress, formError, setFormError, fileError, upload, clearFileRefusal };
}
