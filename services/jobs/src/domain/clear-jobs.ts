import { createEvent } from '@htm/events';
import { getCorrelationId } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import { deleteAllJobs } from '../db/job.repository.js';
import { deleteAllSubmissions } from '../db/submission.repository.js';
import { deleteAllRecordings } from '../db/recording.repository.js';

/** POST /internal/jobs/clear (admin service): deletes every job, submission, file and recording. */
export async function clearJobs(deps: JobsDeps): Promise<{ jobs_deleted: number; submissions_deleted: number }> {
  const { result, keys, recordingIds } = await deps.events.inTransaction(async (tx) => {
    const { storageKeys, submissionsDeleted } = await deleteAllSubmissions(tx);
    const recordingIds = await deleteAllRecordings(tx);
    const jobsDeleted = await deleteAllJobs(tx);
    const r = { jobs_deleted: jobsDeleted, submissions_deleted: submissionsDeleted };
    await deps.events.record(
      tx,
      createEvent('JobsCleared', 'all-jobs', { jobsDeleted: r.jobs_deleted, submissionsDeleted: r.submissions_deleted }, { correlationId: getCorrelationId() }),
    );
    return { result: r, keys: storageKeys, recordingIds };
  });
  for (const k of keys) await deps.storage.delete(k).catch((err) => deps.logger.warn({ err: (err as Error).message, key: k }, 'could not delete file'));
  const recordings = await deps.recordingStore;
  for (const id of recordingIds) await recordings.remove(id).catch((err) => deps.logger.warn({ err: (err as Error).message, recordingId: id }, 'could not delete recording'));
  return result;
}
