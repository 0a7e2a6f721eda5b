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

/** BullMQ workers need `maxRetriesPerRequest: null`. */
export function createBlockingRedis(url: string, opts: RedisOptions = {}): Redis {
  return createRedis(url, { maxRetriesPerRequest: null, ...opts });
}
