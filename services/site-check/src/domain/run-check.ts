import { inSpan } from '@htm/service-kit';
import type { SiteCheckDeps } from '../deps.js';
import type { CheckRow } from '../db/schema.js';
import { saveCheckDone, saveCheckFailed } from '../db/site-check.repository.js';
import { announceCheck } from './announce.js';
import { summarize } from './summarize.js';

export interface CheckMetrics {
  finished(outcome: 'done' | 'failed', reason: string | null, seconds: number): void;
}

/**
 * Runs one leased check in the browser (outside any transaction: it takes seconds to a minute),
 * then stores the result and tells the check's jobs in one transaction. A site that fails is not
 * tried again (SiteCheckFailed says why): no retry storm against the customer's site.
 */
export async function runCheck(
  deps: Pick<SiteCheckDeps, 'runner' | 'events' | 'logger' | 'name'>,
  check: CheckRow,
  metrics?: CheckMetrics,
): Promise<'done' | 'failed' | 'lost'> {
  const started = Date.now();
  const log = deps.logger.child({ checkId: check.id, url: check.url, attempt: check.attempts });
  log.info('site check started');
  const outcome = await inSpan(
    deps.name,
    'site-check run',
    { attributes: { 'site_check.id': check.id, 'site_check.attempt': check.attempts } },
    async (span) => {
      const o = await deps.runner.run(check.url);
      span?.setAttribute('site_check.outcome', o.ok ? 'done' : o.failure.reason);
      return o;
    },
  );
  const at = new Date();
  const seconds = (Date.now() - started) / 1000;
  const saved = await deps.events.inTransaction(async (tx) => {
    const row = outcome.ok
      ? await (async () => {
          const { summary, status, details } = summarize(outcome.check);
          return saveCheckDone(tx, check.id, {
            status,
            summary,
            details,
            links: outcome.check.links,
            blocked: outcome.check.blocked,
            screenshots: outcome.check.sizes
              .filter((s) => s.screenshot)
              .map((s) => ({
                size: s.size,
                dataUrl: `data:image/jpeg;base64,${s.screenshot!.toString('base64')}`,
              })),
            at,
          });
        })()
      : await saveCheckFailed(tx, check.id, outcome.failure.reason, outcome.failure.detail, at);
    if (row) await announceCheck(deps, tx, row);
    return row;
  });
  if (!saved) {
    // Another worker took it after this one's lease ran out and finished first, or its jobs left
    // (JobsCleared, JobsWithdrawn) while it ran.
    log.warn('site check finished after it was taken over or its jobs left; result dropped');
    return 'lost';
  }
  const result = outcome.ok ? 'done' : 'failed';
  metrics?.finished(result, outcome.ok ? null : outcome.failure.reason, seconds);
  log.info(
    {
      seconds: Math.round(seconds * 10) / 10,
      ...(outcome.ok
        ? { findings: saved.summary?.findings.length ?? 0, status: saved.status }
        : { reason: outcome.failure.reason, detail: outcome.failure.detail }),
    },
    outcome.ok ? 'site check done' : 'site check failed',
  );
  return result;
}
