import { createEvent } from '@htm/events';
import { getCorrelationId } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import { files, jobs, submissions } from '../db/schema.js';

/** POST /internal/jobs/clear (admin service): deletes every job, submission and file. */
export async function clearJobs(deps: JobsDeps): Promise<{ jobs_deleted: number; submissions_deleted: number }> {
  const { result, keys } = await deps.db.transaction(async (tx) => {
    const removed = await tx.delete(files).returning({ key: files.storageKey });
    const subs = await tx.delete(submissions).returning({ id: submissions.id });
    const js = await tx.delete(jobs).returning({ id: jobs.id });
    const r = { jobs_deleted: js.length, submissions_deleted: subs.length };
    await deps.events.record(
      tx,
      createEvent('JobsCleared', 'all-jobs', { jobsDeleted: r.jobs_deleted, submissionsDeleted: r.submissions_deleted }, { correlationId: getCorrelationId() }),
    );
    return { result: r, keys: removed.map((f) => f.key) };
  });
  deps.events.kick();
  for (const k of keys) await deps.storage.delete(k).catch((err) => deps.logger.warn({ err: (err as Error).message, key: k }, 'could not delete file'));
  return result;
}
