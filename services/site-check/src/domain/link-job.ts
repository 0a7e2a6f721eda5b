import type { Tx } from '@htm/service-kit/db';
import type { SiteCheckDeps } from '../deps.js';
import { ensureCheck, findJob } from '../db/site-check.repository.js';
import { announceCheck } from './announce.js';

/**
 * Once a job is known paid (JobPaid) and its site known (JobCreated), in either order: its
 * checkout's check exists (one per checkout, so a pack's site is checked once), and a job joining
 * a check that already finished is told its result at once. With no browser on this server the
 * check is made failed (`unavailable`) and told at once.
 */
export async function linkJobToCheck(
  deps: Pick<SiteCheckDeps, 'events' | 'runner'>,
  tx: Tx,
  jobId: string,
  correlationId?: string,
): Promise<void> {
  const job = await findJob(tx, jobId);
  if (!job?.url || !job.sessionId) return;
  const check = await ensureCheck(
    tx,
    job.sessionId,
    job.url,
    deps.runner.available
      ? undefined
      : { reason: 'unavailable', detail: deps.runner.unavailableReason ?? 'no browser' },
  );
  await announceCheck(deps, tx, check, correlationId);
}
