import { rateLimit, type RateLimitRequestHandler } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { AppError, withRedisTimeout, type Redis } from '@htm/service-kit';
import type { IdentityConfig } from '../config.js';

/**
 * Counts in Redis; when Redis fails or hangs the request is counted as a first hit (it passes).
 * The gateway in front logs "rate limits not enforced: Redis unavailable" for the same Redis.
 */
class FailOpenRedisStore extends RedisStore {
  override async increment(key: string) {
    try {
      return await super.increment(key);
    } catch {
      return { totalHits: 1, resetTime: new Date(Date.now() + this.windowMs) };
    }
  }
}

/**
 * A per-client-IP limit kept in Redis (shared by every replica), one counter per group:
 * 'signin', 'session', 'refresh'. Answers 429 in the JSON error shape with Retry-After.
 * If Redis is unreachable, or does not answer within 200 ms (a hung server), the request passes
 * (sign-in stays available).
 */
export function authRateLimit(
  redis: Redis,
  cfg: IdentityConfig,
  group: string,
): RateLimitRequestHandler {
  const windowMs = cfg.AUTH_RATE_LIMIT_WINDOW_MS;
  return rateLimit({
    windowMs,
    limit: cfg.AUTH_RATE_LIMIT_PER_MINUTE,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    passOnStoreError: true,
    store: new FailOpenRedisStore({
      prefix: `${cfg.REDIS_PREFIX}ratelimit:identity:${group}:`,
      // Counting is bounded (200 ms); loading the script at start is not (a failed load would leave the limiter off for good).
      sendCommand: (command: string, ...args: string[]) => {
        const reply = redis.call(command, ...args) as Promise<RedisReply>;
        return command.toUpperCase() === 'SCRIPT' ? reply : withRedisTimeout(reply);
      },
    }),
    handler: (req, res, next) => {
      const info = (req as { rateLimit?: { resetTime?: Date } }).rateLimit;
      const retryAfter = Math.max(
        1,
        Math.ceil(((info?.resetTime?.getTime() ?? Date.now() + windowMs) - Date.now()) / 1000),
      );
      next(
        new AppError(
          'rate_limited',
          'Too many attempts from your network. Please wait a minute and try again.',
          {
            code: 'rate_limited',
            headers: { 'Retry-After': String(retryAfter) },
          },
        ),
      );
    },
  });
}
