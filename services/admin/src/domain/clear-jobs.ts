import type { ClearJobsResult } from '@htm/contracts';
import type { AdminDeps } from '../deps.js';
import type { JobsClient } from '../clients/jobs.client.js';
import { deleteWaitlistEntriesOfKind } from '../db/waitlist.repository.js';

/**
 * The admin's "clear all jobs": jobs deletes its jobs and submissions first (a 503 from there
 * leaves admin's rows untouched), then admin deletes its job requests (kind job_request).
 * Tester signups and the waitlist are people, not jobs, so they stay.
 */
export async function clearJobs(deps: AdminDeps, jobs: JobsClient): Promise<ClearJobsResult> {
  const cleared = await jobs.clearAll();
  const waitlistDeleted = await deleteWaitlistEntriesOfKind(deps.db, 'job_request');
  deps.logger.info({ ...cleared, waitlist_deleted: waitlistDeleted }, 'admin cleared all jobs');
  return { jobs_deleted: cleared.jobs_deleted, submissions_deleted: cleared.submissions_deleted, waitlist_deleted: waitlistDeleted };
}
