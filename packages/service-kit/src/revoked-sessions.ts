import type { Logger } from 'pino';
import { createRedis, type Redis } from './redis.js';

/**
 * Revoked sign-in sessions (refresh-token families): access tokens whose `sid` claim names one
 * are refused until they would have expired anyway. And users whose claims (role, approval,
 * country...) changed: their access tokens issued before the change are refused as stale
 * (401 `token_stale`); a refresh in the same session gives a token with the current claims.
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

/** Users whose claims changed: the same pub/sub channel, and a sorted set of its own. */
export const CLAIMS_CHANGES = {
  /** Sorted set: member `<userId>:<changedAt ms>`, score = when it stops mattering (changedAt + token TTL). */
  key: (prefix: string) => `${prefix}auth:claims-changed`,
} as const;

/** What auth asks on every request. */
export interface RevocationList {
  isRevoked(sid: string): boolean;
  /**
   * True when the user's claims changed after `claimsAt` (ms since the epoch): a token describing
   * the user as of then is stale.
   */
  claimsChangedSince?(userId: string, claimsAt: number): boolean;
}

/**
 * Identity's side: records and announces that session `sid` is revoked for `ttlSeconds` (the
 * access-token lifetime). Rejects when Redis cannot be reached; the caller decides.
 */
export async function publishSessionRevocation(
  redis: Redis,
  prefix: string,
  sid: string,
  ttlSeconds: number,
): Promise<void> {
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

/**
 * Identity's side: records and announces that the claims of `userId` changed at `changedAt`
 * (ms): access tokens whose claims are older are refused as stale for `ttlSeconds` (the
 * access-token lifetime; older tokens have expired by then). Rejects when Redis cannot be reached.
 */
export async function publishClaimsChange(
  redis: Redis,
  prefix: string,
  userId: string,
  changedAt: number,
  ttlSeconds: number,
): Promise<void> {
  const exp = changedAt + ttlSeconds * 1000;
  const key = CLAIMS_CHANGES.key(prefix);
  await redis
    .multi()
    .zadd(key, exp, `${userId}:${changedAt}`)
    .zremrangebyscore(key, '-inf', Date.now())
    .pexpire(key, ttlSeconds * 1000 + 60_000)
    .publish(REVOKED_SESSIONS.channel(prefix), JSON.stringify({ user: userId, at: changedAt, exp }))
    .exec();
}

export interface RevokedSessionsOptions {
  redisUrl: string;
  prefix: string;
  logger: Logger;
  /** How long `start()` waits for the first load before serving without it. Default 3000 ms. */
  startTimeoutMs?: number;
}

/** The in-memory set of revoked sessions (and recent claims changes) of one process, kept current from Redis. */
export class RevokedSessions implements RevocationList {
  private readonly revoked = new Map<string, number>();
  /** user id -> the latest claims change still within a token lifetime. */
  private readonly changed = new Map<string, { at: number; exp: number }>();
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

  claimsChangedSince(userId: string, claimsAt: number): boolean {
    const c = this.changed.get(userId);
    if (c === undefined) return false;
    if (c.exp <= Date.now()) {
      this.changed.delete(userId);
      return false;
    }
    return claimsAt < c.at;
  }

  /** Records a claims change locally (also what a channel message does); the latest one wins. */
  addClaimsChange(userId: string, at: number, exp: number): void {
    const known = this.changed.get(userId);
    if (exp > Date.now() && (!known || at > known.at)) this.changed.set(userId, { at, exp });
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
    for (const c of [this.reader, this.sub])
      c.on('error', (err: Error) =>
        logger.warn({ err: err.message }, 'redis (revoked sessions) error'),
      );
    this.sub.on('message', (ch: string, message: string) => {
      if (ch !== channel) return;
      try {
        const { sid, exp, user, at } = JSON.parse(message) as {
          sid?: unknown;
          exp?: unknown;
          user?: unknown;
          at?: unknown;
        };
        if (typeof sid === 'string' && typeof exp === 'number') this.add(sid, exp);
        else if (typeof user === 'string' && typeof at === 'number' && typeof exp === 'number')
          this.addClaimsChange(user, at, exp);
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
      for (const [user, c] of this.changed) if (c.exp <= now) this.changed.delete(user);
    }, 60_000);
    this.sweep.unref();

    const initial = (async () => {
      await this.sub!.subscribe(channel);
      await this.load(true);
    })().catch((err: Error) =>
      logger.warn(
        { err: err.message },
        'revoked sessions not loaded: serving without them until Redis answers',
      ),
    );
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

  /** Reads every revoked session and claims change not yet expired from the sorted sets. */
  private async load(rethrow = false): Promise<void> {
    try {
      const now = Date.now();
      const [rows, changes] = await Promise.all([
        this.reader!.zrangebyscore(
          REVOKED_SESSIONS.key(this.opts.prefix),
          now,
          '+inf',
          'WITHSCORES',
        ),
        this.reader!.zrangebyscore(CLAIMS_CHANGES.key(this.opts.prefix), now, '+inf', 'WITHSCORES'),
      ]);
      for (let i = 0; i + 1 < rows.length; i += 2) this.add(rows[i], Number(rows[i + 1]));
      for (let i = 0; i + 1 < changes.length; i += 2) {
        const cut = changes[i].lastIndexOf(':');
        this.addClaimsChange(
          changes[i].slice(0, cut),
          Number(changes[i].slice(cut + 1)),
          Number(changes[i + 1]),
        );
      }
    } catch (err) {
      if (rethrow) throw err;
      this.opts.logger.warn(
        { err: (err as Error).message },
        'revoked sessions not reloaded after reconnect',
      );
    }
  }

  stop(): void {
    if (this.sweep) clearInterval(this.sweep);
    this.sub?.disconnect();
    this.reader?.disconnect();
  }
}
