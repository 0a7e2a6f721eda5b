import type { Logger } from 'pino';
import type { Db } from '@htm/service-kit/db';
import { queueJobDigests } from '../domain/job-digest.js';

/**
 * Runs a job-digest round every DIGEST_POLL_MS (queueJobDigests: at most one digest an hour per
 * tester; one replica at a time). The mail sender sends what it queues.
 */
export class DigestScheduler {
  private timer?: NodeJS.Timeout;
  private round?: Promise<number>;

  constructor(
    private readonly opts: {
      db: Db;
      pollMs: number;
      priorityWindowMs: number;
      logger: Logger;
      kick: () => void;
    },
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runOnce().catch(() => 0), this.opts.pollMs);
    this.timer.unref();
    void this.runOnce().catch(() => 0);
  }

  /** One round now (a round already running is awaited instead): how many digests it queued. */
  async runOnce(): Promise<number> {
    if (this.round) return this.round;
    this.round = queueJobDigests(this.opts.db, {
      priorityWindowMs: this.opts.priorityWindowMs,
      kick: this.opts.kick,
    })
      .then((n) => {
        if (n) this.opts.logger.info({ digests: n }, 'job digests queued');
        return n;
      })
      .catch((err: Error) => {
        this.opts.logger.error({ err: err.message }, 'job digest round failed');
        throw err;
      })
      .finally(() => {
        this.round = undefined;
      });
    return this.round;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.round?.catch(() => 0);
  }
}
