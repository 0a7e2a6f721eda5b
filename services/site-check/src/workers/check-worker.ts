import type { SiteCheckDeps } from '../deps.js';
import {
  abandonedChecks,
  leaseChecks,
  queuedChecks,
  saveCheckFailed,
} from '../db/site-check.repository.js';
import { announceCheck } from '../domain/announce.js';
import { runCheck, type CheckMetrics } from '../domain/run-check.js';

/** A check is taken again after its worker died, at most this many times in all. */
export const MAX_ATTEMPTS = 2;

export interface CheckWorker {
  /** Leases what it has room for and starts those checks; resolves with how many it started. */
  poll(): Promise<number>;
  /** Checks running now in this process. */
  running(): number;
  /** Resolves when every check started so far has finished (tests, the benchmark). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The worker: every SITE_CHECK_POLL_MS it leases pending checks up to SITE_CHECK_CONCURRENCY
 * running at once in this process and runs them. Postgres is the queue (a check row per
 * checkout); replicas share it (SKIP LOCKED). A check whose worker died is taken again once its
 * lease (the whole check's time limit and a margin) runs out; after MAX_ATTEMPTS it fails.
 */
export function startCheckWorker(deps: SiteCheckDeps): CheckWorker {
  const { config, logger, metrics } = deps;
  const log = logger.child({ component: 'site-check-worker' });
  const checksTotal = metrics.counter('site_checks_total', 'Site checks finished, by outcome', [
    'outcome',
  ]);
  const failures = metrics.counter(
    'site_check_failures_total',
    'Site checks that ended in SiteCheckFailed, by reason',
    ['reason'],
  );
  const duration = metrics.histogram(
    'site_check_duration_seconds',
    'Time of one site check (browser, links, Lighthouse), by outcome',
    ['outcome'],
    [5, 10, 20, 30, 45, 60, 90, 120, 180, 240],
  );
  metrics.gauge('site_check_queue', 'Site checks pending or running (all replicas)', () =>
    queuedChecks(deps.db),
  );
  metrics.gauge('site_check_running', 'Site checks running in this replica', () => inFlight.size);
  const m: CheckMetrics = {
    finished(outcome, reason, seconds) {
      checksTotal.labels({ outcome }).inc();
      if (reason) failures.labels({ reason }).inc();
      duration.labels({ outcome }).observe(seconds);
    },
  };
  const leaseMs = config.SITE_CHECK_TIMEOUT_MS + 30_000;
  const inFlight = new Set<Promise<unknown>>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<number> | undefined;

  const failAbandoned = async () => {
    for (const c of await abandonedChecks(deps.db, MAX_ATTEMPTS)) {
      await deps.events.inTransaction(async (tx) => {
        const row = await saveCheckFailed(
          tx,
          c.id,
          'browser_error',
          `the check was interrupted ${c.attempts} times (its worker stopped)`,
          new Date(),
        );
        if (row) await announceCheck(deps, tx, row);
      });
      m.finished('failed', 'browser_error', 0);
    }
  };

  const poll = (): Promise<number> =>
    (polling ??= (async () => {
      try {
        if (stopped || !deps.runner.available) return 0;
        await failAbandoned();
        const room = config.SITE_CHECK_CONCURRENCY - inFlight.size;
        const leased = await leaseChecks(deps.db, room, leaseMs, MAX_ATTEMPTS);
        for (const check of leased) {
          const p: Promise<unknown> = runCheck(deps, check, m)
            .catch((err: Error) =>
              log.error({ err: err.message, checkId: check.id }, 'site check could not be stored'),
            )
            .finally(() => {
              inFlight.delete(p);
              schedule(0);
            });
          inFlight.add(p);
        }
        return leased.length;
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'site check poll failed; trying again');
        return 0;
      } finally {
        polling = undefined;
      }
    })());

  const schedule = (delay: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      void poll().then(() => schedule(config.SITE_CHECK_POLL_MS));
    }, delay);
    timer.unref?.();
  };
  schedule(0);

  return {
    poll,
    running: () => inFlight.size,
    async idle() {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await polling;
      // Running checks get a little time; one still running is taken again once its lease runs out.
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise((r) => setTimeout(r, 10_000).unref?.()),
      ]);
    },
  };
}
