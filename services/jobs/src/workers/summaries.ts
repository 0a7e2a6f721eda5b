import type { JobsDeps } from '../deps.js';
import { deferSummary, leaseDueSummaries } from '../db/summary.repository.js';
import { computeSummary } from '../domain/summaries.js';

/** Longer than one computation can take (a pack of 10 with 30 findings: well under a second). */
const LEASE_MS = 60_000;
const RETRY_MS = 30_000;

export interface SummaryWorker {
  /** Computes every summary waiting; resolves with how many it computed or deferred. */
  computeDue(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Report summaries off the request path (issue #51): every SUMMARY_POLL_MS this jobs process leases
 * the summaries a change asked for (jobs.report_summaries, requested in the change's transaction)
 * and computes them one at a time. Every jobs process may run it: the lease gives each to one of
 * them, and one that dies mid-way leaves it to be leased again, so a restart loses nothing.
 */
export function startSummaryWorker(deps: JobsDeps): SummaryWorker {
  const log = deps.logger.child({ component: 'summaries' });
  let stopped = false;
  let running: Promise<number> | undefined;
  const computeDue = (): Promise<number> =>
    (running ??= (async () => {
      let n = 0;
      while (!stopped) {
        const [lease] = await leaseDueSummaries(deps.db, 1, LEASE_MS);
        if (!lease) break;
        const started = Date.now();
        await computeSummary(deps, lease)
          .then((outcome) =>
            log.info(
              { scopeId: lease.scopeId, scope: lease.scope, outcome, ms: Date.now() - started },
              'report summary computed',
            ),
          )
          .catch(async (err: Error) => {
            log.error(
              { err: err.message, scopeId: lease.scopeId },
              'report summary failed; tried again in 30 s',
            );
            await deferSummary(deps.db, lease.scopeId, new Date(Date.now() + RETRY_MS)).catch(
              () => undefined, // the lease runs out instead
            );
          });
        n++;
      }
      return n;
    })().finally(() => (running = undefined)));

  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      computeDue()
        .catch((err: Error) => log.warn({ err: err.message }, 'report summary round failed'))
        .finally(loop);
    }, deps.config.SUMMARY_POLL_MS);
    timer.unref();
  };
  loop();
  return {
    computeDue,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
