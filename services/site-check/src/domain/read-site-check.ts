import { AppError, type Caller } from '@htm/service-kit';
import {
  SITE_CHECK_FAILURE_TEXT,
  type SiteCheckFailureReason,
  type SiteCheckResponse,
  type SiteCheckSize,
  type SiteCheckStatus,
} from '@htm/contracts';
import type { SiteCheckDeps } from '../deps.js';
import type { JobRow } from '../db/schema.js';
import { findCheckOfSession, findJob, screenshotsOf } from '../db/site-check.repository.js';

/** Who may read a job's health check: its poster, the admin, and the tester holding the job. */
export function mayReadSiteCheck(caller: Pick<Caller, 'id' | 'type'>, job: JobRow): boolean {
  if (caller.type === 'admin') return true;
  if (caller.type === 'poster') return !!job.posterId && job.posterId === caller.id;
  if (caller.type === 'tester') return !!job.testerId && job.testerId === caller.id;
  return false;
}

const notYet = () =>
  AppError.notFound(
    'This job has no health check yet: it starts once the job is paid.',
    'site_check_not_found',
  );

/**
 * GET /api/jobs/:id/site-check. Access is decided here, from what the events told this service
 * (JobCreated's poster, JobClaimed's tester): no call to jobs. A job this service does not know
 * (unknown, unpaid, or its events not arrived yet) answers 404.
 */
export async function readSiteCheck(
  deps: Pick<SiteCheckDeps, 'db' | 'runner'>,
  caller: Caller,
  jobId: string,
): Promise<SiteCheckResponse> {
  const job = await findJob(deps.db, jobId);
  // Known from JobCreated or JobPaid (a deleted poster's kept job has no poster any more, but its checkout).
  if (!job || (!job.posterId && !job.sessionId)) throw notYet();
  if (!mayReadSiteCheck(caller, job))
    throw AppError.forbidden(
      "Only the job's poster, the tester holding it and the admin can see its health check.",
      'not_allowed',
    );
  const check = job.sessionId ? await findCheckOfSession(deps.db, job.sessionId) : undefined;
  if (!check) throw notYet();
  const shots = check.state === 'done' ? await screenshotsOf(deps.db, check.id) : [];
  const shotOf = (size: SiteCheckSize) => shots.find((s) => s.size === size)?.dataUrl ?? null;
  const reason = check.failureReason as SiteCheckFailureReason | null;
  return {
    job_id: job.jobId,
    state:
      reason === 'unavailable'
        ? 'unavailable'
        : (check.state as 'pending' | 'running' | 'done' | 'failed'),
    status: (check.status as SiteCheckStatus | null) ?? null,
    url: check.url,
    checked_at: check.finishedAt?.toISOString() ?? null,
    failure: reason
      ? {
          reason,
          text: SITE_CHECK_FAILURE_TEXT[reason],
          // The operator's line names addresses and errors: the admin sees it, others do not.
          detail: caller.type === 'admin' ? check.failureDetail : null,
        }
      : null,
    summary: check.summary ?? null,
    sizes: (check.details ?? []).map((d) => ({ ...d, screenshot: shotOf(d.size) })),
    links: check.links ?? { checked: 0, broken: [] },
    blocked: check.blocked ?? [],
  };
}
