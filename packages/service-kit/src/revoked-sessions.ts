import type { Logger } from 'pino';
import { createRedis, type Redis } from './redis.js';

/**
 * Revoked sign-in sessions (refresh-token families): access tokens whose `sid` claim names one
 * are refused until they would have expired anyway.
 *
 * Identity records each revoked sid in a Redis sorted set (score: when the last access token
 * of that session expires) and publishes it on a pub/sub channel. Every service and the gateway
 * keep the set in memory: loaded when they start and after every reconnect, then fed by the
 * channel. A request only looks at memory (O(1), no Redis round trip). Pub/sub rather than the
 * event bus: every instance of every service must see every revocation (a consumer group would
 * hand each one to a single instance), within moments rather than after an outbox relay.
 */
export const REVOKED_SESSIONS = {
  /** Sorted set: member sid, score = expiry in ms since the epoch. */
  key: (prefix: string) => `${prefix}auth:revoked-sessions`,
  /** Pub/sub channel: JSON `{sid, exp}` (exp in ms since the epoch). */
  channel: (prefix: string) => `${prefix}auth:revoked-sessions`,
} as const;

/** What auth asks on every request. */
export interface RevocationList {
  isRevoked(sid: string): boolean;
}

/**
 * Identity's side: records and announces that session `sid` is revoked for `ttlSeconds` (the
 * access-token lifetime). Rejects when Redis cannot be reached; the caller decides.
 */
export async function publishSessionRevocation(redis: Redis, prefix: string, sid: string, ttlSeconds: number): Promise<void> {
  const now = Date.now();
  const exp = now + ttlSeconds * 1000;
  const key = REVOKED_SESSIONS.key(prefix);
  await redis
    .multi()
    .zadd(key, exp, sid)
    .zremrangebyscore(key, '-inf', now)
    // The set outlives its newest member only by a moment; with no revocations it disappears.
    .pexpire(key, ttlSeconds * 1000 + 60_000)
    .publish(REVOKED_SESSIONS.channel(prefix), JSON.stringify({ sid, exp }))
    .exec();
}

export interface RevokedSessionsOptions {
  redisUrl: string;
  prefix: string;
  logger: Logger;
  /** How long `start()` waits for the first load before serving without it. Default 3000 ms. */
  startTimeoutMs?: number;
}

/** The in-memory set of revoked sessions of one process, kept current from Redis. */
export class RevokedSessions implements RevocationList {
  private readonly revoked = new Map<string, number>();
  private readonly opts: RevokedSessionsOptions;
  private sub?: Redis;
  private reader?: Redis;
  private sweep?: NodeJS.Timeout;

  constructor(opts: RevokedSessionsOptions) {
    this.opts = opts;
  }

  isRevoked(sid: string): boolean {
    const exp = this.revoked.get(sid);
    if (exp === undefined) return false;
    if (exp > Date.now()) return true;
    this.revoked.delete(sid);
    return false;
  }

  /** Number of sessions currently remembered as revoked. */
  get size(): number {
    return this.revoked.size;
  }

  /** Records a revocation locally (also what a channel message does). */
  add(sid: string, exp: number): void {
    if (exp > Date.now() && exp > (this.revoked.get(sid) ?? 0)) this.revoked.set(sid, exp);
  }

  /**
   * Subscribes, then loads what is already revoked. Never rejects: with Redis down the service
   * serves anyway (logged) and catches up when Redis comes back.
   */
  async start(): Promise<void> {
    const { redisUrl, prefix, logger } = this.opts;
    const channel = REVOKED_SESSIONS.channel(prefix);
    this.reader = createRedis(redisUrl, { maxRetriesPerRequest: 1 });
    this.sub = createRedis(redisUrl, { maxRetriesPerRequest: 1 });
    for (const c of [this.reader, this.sub]) c.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis (revoked sessions) error'));
    this.sub.on('message', (ch: string, message: string) => {
      if (ch !== channel) return;
      try {
        const { sid, exp } = JSON.parse(message) as { sid?: unknown; exp?: unknown };
        if (typeof sid === 'string' && typeof exp === 'number') this.add(sid, exp);
      } catch {
        logger.warn({ message }, 'unreadable session revocation message ignored');
      }
    });
    // ioredis re-subscribes after a reconnect; anything published meanwhile is in the sorted set.
    let first = true;
    this.sub.on('ready', () => {
      if (first) return void (first = false);
      void this.load();
    });
    this.sweep = setInterval(() => {
      const now = Date.now();
      for (const [sid, exp] of this.revoked) if (exp <= now) this.revoked.delete(sid);
    }, 60_000);
    this.sweep.unref();

    const initial = (async () => {
      await this.sub!.subscribe(channel);
      await this.load(true);
    })().catch((err: Error) => logger.warn({ err: err.message }, 'revoked sessions not loaded: serving without them until Redis answers'));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        logger.warn('revoked sessions: Redis did not answer in time; serving while it catches up');
        resolve();
      }, this.opts.startTimeoutMs ?? 3000);
      timer.unref();
    });
    await Promise.race([initial, timeout]);
    clearTimeout(timer);
  }

  /** Reads every revoked session not yet expired from the sorted set. */
  private async load(rethrow = false): Promise<void> {
    try {
      const rows = await this.reader!.zrangebyscore(REVOKED_SESSIONS.key(this.opts.prefix), Date.now(), '+inf', 'WITHSCORES');
      for (let i = 0; i + 1 < rows.length; i += 2) this.add(rows[i], Number(rows[i + 1]));
    } catch (err) {
      if (rethrow) throw err;
      this.opts.logger.warn({ err: (err as Error).message }, 'revoked sessions not reloaded after reconnect');
    }
  }

  stop(): void {
    if (this.sweep) clearInterval(this.sweep);
    this.sub?.disconnect();
    this.reader?.disconnect();
  }
}
