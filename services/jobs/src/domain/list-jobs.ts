import type { Caller } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import type { JobRow, RatingRow } from '../db/schema.js';
import {
  listAvailableJobs,
  listPostedJobs as listPostedRows,
  listReservedFor,
  listTesterJobs as listTesterRows,
  ratingsByJob,
  recentMinutes,
} from '../db/job.repository.js';

/** At most this many jobs in the poster's, the admin's and the tester's lists. */
export const JOB_LIST_LIMIT = 1000;

/**
 * GET /api/jobs: the poster's own jobs, or every job for the admin (with the poster's e-mail and
 * name), newest first, deleted ones left out; with the ratings of the completed ones.
 */
export async function listPostedJobs(
  deps: Pick<JobsDeps, 'db'>,
  caller: Caller,
): Promise<{
  jobs: Array<JobRow & { posterInfo: { email: string; name: string } }>;
  ratings: Map<string, RatingRow>;
}> {
  const jobs = await listPostedRows(
    deps.db,
    caller.type === 'admin' ? undefined : caller.id,
    JOB_LIST_LIMIT,
  );
  const ratings = await ratingsByJob(
    deps.db,
    jobs.filter((j) => j.status === 'completed').map((j) => j.id),
  );
  return { jobs, ratings };
}

/** GET /api/tester/my-jobs: claimed, submitted, revision_requested and completed jobs of the tester. */
export function listTesterJobs(deps: Pick<JobsDeps, 'db'>, caller: Caller): Promise<JobRow[]> {
  return listTesterRows(deps.db, caller.id, JOB_LIST_LIMIT);
}

/** One page of the available jobs (already filtered for the tester's fit) and the minutes recent submissions took. */
export async function availableJobsPage(
  deps: Pick<JobsDeps, 'db'>,
  opts: Parameters<typeof listAvailableJobs>[1],
) {
  const [rows, minutes] = await Promise.all([
    listAvailableJobs(deps.db, opts),
    recentMinutes(deps.db),
  ]);
  return { rows, minutes };
}

/** Paid open re-tests held for this tester right now (the top of their first page, never cached). */
export function heldForTester(
  deps: Pick<JobsDeps, 'db'>,
  testerId: string,
  geoRules: string[],
): Promise<JobRow[]> {
  return listReservedFor(deps.db, testerId, geoRules);
}
