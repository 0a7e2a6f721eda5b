import type { JobsDeps } from '../deps.js';
import { deferSessionCheck, leaseDueChecks } from '../db/session-check.repository.js';
import { runSessionCheck } from '../domain/check-session.js';

/** Longer than one check can take (the media provider's ffmpeg runs are cut at 10 minutes). */
const LEASE_MS = 15 * 60_000;

export interface SessionCheckWorker {
  /** Checks every due submission, one at a time; resolves with how many it finished or deferred. */
  checkDue(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Session checks off the request path: every SESSION_CHECK_POLL_MS this jobs process leases the
 * submissions waiting for their check (jobs.session_checks, written with the submission) and runs
 * them one at a time (ffmpeg runs as a child process: the API's event loop is not held). Every
 * jobs process may run it: the lease (FOR UPDATE SKIP LOCKED) gives each check to one of them,
 * and a process that dies mid-check leaves it to be leased again.
 */
export function startSessionCheckWorker(deps: JobsDeps): SessionCheckWorker {
  const log = deps.logger.child({ component: 'session-checks' });
  let stopped = false;
  let running: Promise<number> | undefined;
  const checkDue = (): Promise<number> =>
    (running ??= (async () => {
      let n = 0;
      while (!stopped) {
        const [row] = await leaseDueChecks(deps.db, 1, LEASE_MS);
        if (!row) break;
        await runSessionCheck(deps, row).catch(async (err: Error) => {
          log.error(
            { err: err.message, submissionId: row.submissionId },
            'session check failed; tried again in a minute',
          );
          await deferSessionCheck(
            deps.db,
            row.submissionId,
            new Date(Date.now() + 60_000),
            err.message.slice(0, 500),
          ).catch(() => undefined); // the lease runs out instead
        });
        n++;
      }
      return n;
    })().finally(() => (running = undefined)));

  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      checkDue()
        .catch((err: Error) => log.warn({ err: err.message }, 'session check round failed'))
        .finally(loop);
    }, deps.config.SESSION_CHECK_POLL_MS);
    timer.unref();
  };
  loop();
  return {
    checkDue,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
