import { rateLimit, type ClientRateLimitInfo, type Options, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Request, RequestHandler, Response } from 'express';
import { toErrorBody, AppError, isBrowserNavigation, sendRateLimitedPage } from '@htm/service-kit';
import type { GatewayConfig } from '../config.js';
import type { RateClass } from './route-table.js';

/**
 * rate-limit-redis loads its Lua script once at start; if Redis is down or slow then, every later
 * increment fails and the limiter lets everything through for good. This store answers at once
 * while Redis is not connected (the limiter passes the request rather than holding it), and
 * loads the script again after any failure, so limiting resumes as soon as Redis is back.
 */
class ResilientRedisStore extends RedisStore {
  private lastWarning = 0;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly logger: Logger,
  ) {
    super({
      prefix,
      sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as never,
    });
  }

  /** Counts each request as the first while Redis is away (it passes), with one log line per 30 s. */
  private unlimited(reason: string) {
    if (Date.now() - this.lastWarning > 30_000) {
      this.lastWarning = Date.now();
      this.logger.warn({ reason }, 'rate limits not enforced: Redis unavailable');
    }
    return { totalHits: 1, resetTime: new Date(Date.now() + this.windowMs) };
  }

  override async init(options: Parameters<RedisStore['init']>[0]) {
    try {
      await super.init(options);
    } catch (err) {
      this.unlimited(`script load failed: ${(err as Error).message}`); // retried by increment
    }
  }

  override async increment(key: string) {
    if (this.redis.status !== 'ready') return this.unlimited('not connected');
    try {
      return await super.increment(key);
    } catch (err) {
      const reload = this.loadIncrementScript();
      reload.catch(() => undefined); // awaited by the next increment
      this.incrementScriptSha = reload;
      return this.unlimited((err as Error).message);
    }
  }
}

/**
 * For the high-volume per-user API limit, where a Redis round trip per request would cost more
 * than the rest of the gateway's work: hits are counted here and added to Redis together, in
 * one pipeline every `flushMs`, which answers with the shared totals (every replica's hits).
 * Fixed windows of `windowMs`, like rate-limit-redis. On one replica the count is exact; across
 * replicas a client may get at most one flush interval of extra requests through. With Redis
 * down, each replica goes on limiting with its own counts and adds them once Redis is back.
 */
export class BatchedRedisStore implements Store {
  windowMs = 60_000;
  private readonly entries = new Map<string, { window: number; remote: number; pending: number }>();
  private timer: NodeJS.Timeout | undefined;
  private lastWarning = 0;

  constructor(
    private readonly redis: Redis,
    readonly prefix: string,
    private readonly logger: Logger,
    private readonly flushMs = 100,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  private entry(key: string) {
    const window = Math.floor(Date.now() / this.windowMs);
    let e = this.entries.get(key);
    if (!e || e.window !== window) this.entries.set(key, (e = { window, remote: 0, pending: 0 }));
    return e;
  }

  private info(e: { window: number; remote: number; pending: number }): ClientRateLimitInfo {
    return { totalHits: e.remote + e.pending, resetTime: new Date((e.window + 1) * this.windowMs) };
  }

  get(key: string): ClientRateLimitInfo {
    return this.info(this.entry(key));
  }

  increment(key: string): ClientRateLimitInfo {
    return this.info(this.hit(key));
  }

  /** increment() without building its answer: the hits so far in this window are `remote + pending`. */
  hit(key: string): { readonly window: number; readonly remote: number; readonly pending: number } {
    const e = this.entry(key);
    e.pending++;
    this.schedule(this.flushMs);
    return e;
  }

  decrement(key: string): void {
    this.entry(key).pending--;
    this.schedule(this.flushMs);
  }

  resetKey(key: string): void {
    const e = this.entries.get(key);
    this.entries.delete(key);
    if (e) this.redis.del(`${this.prefix}${key}:${e.window}`).catch(() => undefined);
  }

  /** Adds the pending counts to Redis and learns the shared totals. */
  async flush(): Promise<void> {
    this.timer = undefined;
    const now = Math.floor(Date.now() / this.windowMs);
    const batch: Array<[string, { window: number; remote: number; pending: number }, number]> = [];
    for (const [key, e] of this.entries) {
      if (e.window < now)
        this.entries.delete(key); // a past window no longer limits anyone
      else if (e.pending !== 0) batch.push([`${this.prefix}${key}:${e.window}`, e, e.pending]);
    }
    if (!batch.length) return;
    if (this.redis.status !== 'ready') {
      this.warn('not connected');
      this.schedule(Math.max(this.flushMs, 1000));
      return;
    }
    const pipeline = this.redis.pipeline();
    for (const [redisKey, , n] of batch)
      pipeline.incrby(redisKey, n).pexpire(redisKey, this.windowMs * 2);
    try {
      const results = (await pipeline.exec()) ?? [];
      batch.forEach(([, e, n], i) => {
        const [err, total] = results[i * 2] ?? [new Error('no answer')];
        if (err) return;
        e.pending -= n;
        e.remote = Number(total);
      });
    } catch (err) {
      this.warn((err as Error).message);
    }
    if (batch.some(([, e]) => e.pending !== 0)) this.schedule(Math.max(this.flushMs, 1000));
  }

  /** One flush at a time, never keeping the process alive on its own. */
  private schedule(ms: number) {
    this.timer ??= setTimeout(() => void this.flush(), ms).unref();
  }

  private warn(reason: string) {
    if (Date.now() - this.lastWarning > 30_000) {
      this.lastWarning = Date.now();
      this.logger.warn(
        { reason },
        'API rate limits counted on this replica only: Redis unavailable',
      );
    }
  }
}

/**
 * What express-rate-limit answers past a limit: 429 in the JSON error shape, Retry-After of one
 * window; a browser navigation (sign-in, checkout pages) gets the HTML page with a retry link.
 */
const tooMany = (req: Request, res: Response, windowMs: number) => {
  if (isBrowserNavigation(req)) return sendRateLimitedPage(req, res, Math.ceil(windowMs / 1000));
  res.setHeader('Retry-After', String(Math.ceil(windowMs / 1000)));
  res.status(429).json(
    toErrorBody(
      new AppError('rate_limited', 'Too many requests. Please wait a minute and try again.', {
        code: 'rate_limited',
      }),
    ),
  );
};

/**
 * The per-user API limit, hit by every proxied call: the same counting and answers as
 * express-rate-limit with `standardHeaders: 'draft-7'` over the batched store, done in one
 * synchronous step (express-rate-limit awaits five times per request, even for a store that
 * answers at once).
 */
export function batchedLimiter(
  store: BatchedRedisStore,
  windowMs: number,
  limit: number,
  key: (req: Request) => string,
): RequestHandler {
  store.init({ windowMs } as Options);
  const policy = `${limit};w=${Math.ceil(windowMs / 1000)}`;
  return (req, res, next) => {
    const e = store.hit(key(req));
    const used = e.remote + e.pending;
    if (!res.headersSent) {
      const reset = Math.max(0, Math.ceil(((e.window + 1) * windowMs - Date.now()) / 1000));
      res.setHeader('RateLimit-Policy', policy);
      res.setHeader(
        'RateLimit',
        `limit=${limit}, remaining=${Math.max(limit - used, 0)}, reset=${reset}`,
      );
    }
    if (used > limit) return tooMany(req, res, windowMs);
    next();
  };
}

/**
 * Redis-backed per-client limits (shared by every gateway replica). If Redis is down the
 * sign-in and form limiters let requests through rather than taking the site down with it;
 * the API limiter goes on counting on each replica.
 */
export function createRateLimiters(
  cfg: GatewayConfig,
  redis: Redis,
  logger: Logger,
): Record<Exclude<RateClass, 'none'>, RequestHandler> {
  const make = (
    name: string,
    limit: number,
    key: (req: Request) => string,
    store: Store = new ResilientRedisStore(redis, `${cfg.REDIS_PREFIX}rl:${name}:`, logger),
  ) =>
    rateLimit({
      windowMs: cfg.RATE_LIMIT_WINDOW_MS,
      limit,
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      passOnStoreError: true,
      keyGenerator: key,
      validate: { xForwardedForHeader: false, keyGeneratorIpFallback: false },
      store,
      handler: (req, res, _next, options) => tooMany(req, res, options.windowMs),
    });
  const ip = (req: Request) => req.ip ?? 'unknown';
  return {
    auth: make('auth', cfg.AUTH_RATE_LIMIT_PER_MINUTE, ip),
    form: make('form', cfg.FORM_RATE_LIMIT_PER_MINUTE, ip),
    // Sign-in and form limits are small and must be exact: one Redis increment per request.
    // The API limit is large and hit on every call: counted in batches.
    api: batchedLimiter(
      new BatchedRedisStore(
        redis,
        `${cfg.REDIS_PREFIX}rl:api:`,
        logger,
        cfg.API_RATE_LIMIT_FLUSH_MS,
      ),
      cfg.RATE_LIMIT_WINDOW_MS,
      cfg.API_RATE_LIMIT_PER_MINUTE,
      (req) => (req.caller ? `u:${req.caller.id}` : `ip:${ip(req)}`),
    ),
    // Routes that may reach the payment provider: a small exact limit per user.
    provider: make('provider', cfg.PROVIDER_RATE_LIMIT_PER_MINUTE, (req) =>
      req.caller ? `u:${req.caller.id}` : `ip:${ip(req)}`,
    ),
  };
}
