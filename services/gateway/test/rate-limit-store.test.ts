import { afterAll, describe, expect, it } from '@jest/globals';
import { createLogger, createRedis } from '@htm/service-kit';
import { testRedisPrefix, TEST_REDIS_URL } from '@htm/service-kit/testing';
import type { Options } from 'express-rate-limit';
import { BatchedRedisStore } from '../src/http/rate-limits.js';

const redis = createRedis(TEST_REDIS_URL);
const logger = createLogger('test', 'silent');
afterAll(() => redis.disconnect());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function store(prefix: string, windowMs = 60_000) {
  const s = new BatchedRedisStore(redis, prefix, logger, 50);
  s.init({ windowMs } as Options);
  return s;
}

describe('the batched API rate-limit store', () => {
  it('counts every hit at once on one replica and shares the totals through Redis', async () => {
    const prefix = testRedisPrefix('rl');
    const a = store(prefix);
    const b = store(prefix);
    for (let i = 1; i <= 3; i++) expect(a.increment('u:1').totalHits).toBe(i);
    await sleep(200);
    expect(Number(await redis.get(`${prefix}u:1:${Math.floor(Date.now() / 60_000)}`))).toBe(3);
    // Replica b learns a's hits with its first flush, and counts them from then on.
    expect(b.increment('u:1').totalHits).toBe(1);
    await sleep(200);
    expect(b.increment('u:1').totalHits).toBe(5);
    expect(b.increment('u:2').totalHits).toBe(1);
    await sleep(200);
    expect(a.increment('u:1').totalHits).toBe(4); // a has not flushed since b's hits...
    await sleep(200);
    expect(a.get('u:1').totalHits).toBe(6); // ...and knows all six after its own flush.
  });

  it('starts a new count in a new window, with the window end as reset time', async () => {
    const s = store(testRedisPrefix('rl'), 300);
    s.increment('k');
    const second = s.increment('k');
    expect(second.totalHits).toBe(2);
    expect(second.resetTime!.getTime() % 300).toBe(0);
    await sleep(second.resetTime!.getTime() - Date.now() + 20);
    expect(s.increment('k').totalHits).toBe(1);
  });

  it('goes on counting on its own while Redis is down', async () => {
    const prefix = testRedisPrefix('rl');
    const down = createRedis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
    const s = new BatchedRedisStore(down, prefix, logger, 50);
    s.init({ windowMs: 60_000 } as Options);
    for (let i = 1; i <= 4; i++) expect(s.increment('u:9').totalHits).toBe(i);
    await sleep(150);
    expect(s.increment('u:9').totalHits).toBe(5);
    down.disconnect();
  });
});
