import { createEvent } from '@htm/events';
import type { Tx } from '@htm/service-kit/db';
import type { SiteCheckFailureReason, SiteCheckStatus } from '@htm/contracts';
import type { SiteCheckDeps } from '../deps.js';
import type { CheckRow } from '../db/schema.js';
import { takeJobsToAnnounce } from '../db/site-check.repository.js';

/**
 * Tells every job of a finished check's checkout that is not told yet: SiteChecked (done) or
 * SiteCheckFailed (failed), once per job, in the caller's transaction.
 */
export async function announceCheck(
  deps: Pick<SiteCheckDeps, 'events'>,
  tx: Tx,
  check: CheckRow,
  correlationId?: string,
): Promise<number> {
  if (check.state !== 'done' && check.state !== 'failed') return 0;
  const jobIds = await takeJobsToAnnounce(tx, check.sessionId);
  const at = (check.finishedAt ?? new Date()).toISOString();
  for (const jobId of jobIds) {
    const event =
      check.state === 'done' && check.summary
        ? createEvent(
            'SiteChecked',
            jobId,
            {
              jobId,
              checkedAt: at,
              status: (check.status ?? 'complete') as SiteCheckStatus,
              summary: check.summary,
            },
            { correlationId },
          )
        : createEvent(
            'SiteCheckFailed',
            jobId,
            {
              jobId,
              failedAt: at,
              reason: (check.failureReason ?? 'browser_error') as SiteCheckFailureReason,
              detail: check.failureDetail ?? '',
            },
            { correlationId },
          );
    await deps.events.record(tx, event);
  }
  return jobIds.length;
}
