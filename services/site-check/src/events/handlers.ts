import type { EventHandlers } from '@htm/events';
import type { SiteCheckDeps } from '../deps.js';
import {
  clearHolder,
  clearJobs,
  forgetJobs,
  forgetUser,
  noteHolder,
  noteJobCreated,
  noteJobPaid,
} from '../db/site-check.repository.js';
import { linkJobToCheck } from '../domain/link-job.js';

/**
 * What site-check consumes (each once per event id, in a transaction with the handled-id record):
 * a job's poster and site (JobCreated), its payment (JobPaid: the check is queued), and who holds
 * it (JobClaimed, JobReleased), for the route's access rule; jobs that leave (JobsWithdrawn, the
 * admin's JobsCleared: their checks go) and a deleted account (UserDeleted). The checks themselves run in the
 * worker (workers/check-worker.ts), never inside a handler's transaction.
 */
export function siteCheckEventHandlers(deps: () => SiteCheckDeps): EventHandlers {
  return {
    JobCreated: async (e, tx) => {
      const d = e.data;
      await noteJobCreated(tx, { jobId: d.jobId, posterId: d.posterId, url: d.url });
      await linkJobToCheck(deps(), tx, d.jobId, e.correlationId ?? undefined);
    },
    JobPaid: async (e, tx) => {
      const d = e.data;
      await noteJobPaid(tx, {
        jobId: d.jobId,
        posterId: d.posterId,
        sessionId: d.sessionId,
        paidAt: new Date(d.paidAt),
      });
      await linkJobToCheck(deps(), tx, d.jobId, e.correlationId ?? undefined);
    },
    JobClaimed: async (e, tx) => {
      await noteHolder(tx, e.data.jobId, e.data.testerId);
    },
    JobReleased: async (e, tx) => {
      await clearHolder(tx, e.data.jobId, e.data.testerId);
    },
    // jobs: a deleted poster's paid jobs nobody started left every list; their checks go.
    JobsWithdrawn: async (e, tx) => {
      await forgetJobs(tx, e.data.refundJobIds);
    },
    // jobs: the admin cleared every job; every check goes with them.
    JobsCleared: async (_e, tx) => {
      await clearJobs(tx);
    },
    // identity: a deleted account's unpaid jobs go, its id leaves the rest.
    UserDeleted: async (e, tx) => {
      await forgetUser(tx, e.data.userId);
    },
  };
}
