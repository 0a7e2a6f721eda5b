import { rateLimit, type RateLimitRequestHandler } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { AppError, type Redis } from '@htm/service-kit';
import type { IdentityConfig } from '../config.js';

/**
 * A per-client-IP limit kept in Redis (shared by every replica), one counter per group:
 * 'signin', 'session', 'refresh'. Answers 429 in the JSON error shape with Retry-After.
 * If Redis is unreachable the request passes (sign-in stays available) and the error is logged.
 */
export function authRateLimit(redis: Redis, cfg: IdentityConfig, group: string): RateLimitRequestHandler {
  const windowMs = cfg.AUTH_RATE_LIMIT_WINDOW_MS;
  return rateLimit({
    windowMs,
    limit: cfg.AUTH_RATE_LIMIT_PER_MINUTE,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    passOnStoreError: true,
    store: new RedisStore({
      prefix: `${cfg.REDIS_PREFIX}ratelimit:identity:${group}:`,
      sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as Promise<RedisReply>,
    }),
    handler: (req, res, next) => {
      const info = (req as { rateLimit?: { resetTime?: Date } }).rateLimit;
      const retryAfter = Math.max(1, Math.ceil(((info?.resetTime?.getTime() ?? Date.now() + windowMs) - Date.now()) / 1000));
      next(
        new AppError('rate_limited', 'Too many attempts from your network. Please wait a minute and try again.', {
          code: 'rate_limited',
          headers: { 'Retry-After': String(retryAfter) },
        }),
      );
    },
  });
}
