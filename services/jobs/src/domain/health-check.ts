import {
  SITE_CHECK_FAILURE_TEXT,
  type HealthCheckView,
  type SiteCheckFailureReason,
  type SiteCheckStatus,
} from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import { findSiteCheck } from '../db/share.repository.js';

/** The job's health check as the reports show it, from the SiteChecked / SiteCheckFailed projection. */
export async function readHealthCheck(
  deps: Pick<JobsDeps, 'db'>,
  jobId: string,
): Promise<HealthCheckView | null> {
  const row = await findSiteCheck(deps.db, jobId);
  if (!row) return null;
  const reason = row.failureReason as SiteCheckFailureReason | null;
  return {
    state: row.state === 'done' ? 'done' : 'failed',
    checked_at: row.checkedAt.toISOString(),
    status: (row.status as SiteCheckStatus | null) ?? null,
    summary: row.summary ?? null,
    failure: reason ? { reason, text: SITE_CHECK_FAILURE_TEXT[reason] } : null,
  };
}
