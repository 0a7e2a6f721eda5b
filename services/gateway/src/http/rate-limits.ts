import { rateLimit, type RateLimitRequestHandler } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Request } from 'express';
import { toErrorBody, AppError } from '@htm/service-kit';
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
    super({ prefix, sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as never });
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
 * Redis-backed per-client limits (shared by every gateway replica). If Redis is down the
 * limiter lets requests through rather than taking the site down with it.
 */
export function createRateLimiters(cfg: GatewayConfig, redis: Redis, logger: Logger): Record<Exclude<RateClass, 'none'>, RateLimitRequestHandler> {
  const make = (name: string, limit: number, key: (req: Request) => string) =>
    rateLimit({
      windowMs: cfg.RATE_LIMIT_WINDOW_MS,
      limit,
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      passOnStoreError: true,
      keyGenerator: key,
      validate: { xForwardedForHeader: false, keyGeneratorIpFallback: false },
      store: new ResilientRedisStore(redis, `${cfg.REDIS_PREFIX}rl:${name}:`, logger),
      handler: (_req, res, _next, options) => {
        const retryAfter = Math.ceil(options.windowMs / 1000);
        res.setHeader('Retry-After', String(retryAfter));
        res
          .status(429)
          .json(toErrorBody(new AppError('rate_limited', 'Too many requests. Please wait a minute and try again.', { code: 'rate_limited' })));
      },
    });
  const ip = (req: Request) => req.ip ?? 'unknown';
  return {
    auth: make('auth', cfg.AUTH_RATE_LIMIT_PER_MINUTE, ip),
    form: make('form', cfg.FORM_RATE_LIMIT_PER_MINUTE, ip),
    api: make('api', cfg.API_RATE_LIMIT_PER_MINUTE, (req) => (req.caller ? `u:${req.caller.id}` : `ip:${ip(req)}`)),
  };
}
