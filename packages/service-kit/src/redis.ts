import { Redis, type RedisOptions } from 'ioredis';

export { Redis };

/** An ioredis client that fails fast instead of queueing commands forever when Redis is down. */
export function createRedis(url: string, opts: RedisOptions = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    connectTimeout: 3000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    ...opts,
  });
}

/**
 * How long a command on the request path may wait for Redis. A Redis that hangs (process
 * frozen, port open, TCP still up) would otherwise hold every request that touches it (rate
 * limits of sign-in and payments) for as long as it hangs; after this the command fails, and
 * callers fail open (rate limits pass the request).
 */
export const REQUEST_REDIS_TIMEOUT_MS = 200;

/** A client for calls made while a user waits: every command is bounded (see REQUEST_REDIS_TIMEOUT_MS). */
export function createRequestRedis(url: string, opts: RedisOptions = {}): Redis {
  return createRedis(url, {
    commandTimeout: REQUEST_REDIS_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    ...opts,
  });
}

/** Rejects when `p` has not settled within `ms` (the command itself may still complete later). */
export function withRedisTimeout<T>(p: Promise<T>, ms = REQUEST_REDIS_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** BullMQ workers need `maxRetriesPerRequest: null`. */
export function createBlockingRedis(url: string, opts: RedisOptions = {}): Redis {
  return createRedis(url, { maxRetriesPerRequest: null, ...opts });
}
