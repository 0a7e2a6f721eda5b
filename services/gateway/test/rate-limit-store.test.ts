import { afterAll, describe, expect, it } from '@jest/globals';
import { createLogger, createRedis } from '@htm/service-kit';
import { testRedisPrefix, TEST_REDIS_URL } from '@htm/service-kit/testing';
import type { Options } from 'express-rate-limit';
import { BatchedRedisStore } from '../src/http/rate-limits.js';

const redis = createRedis(TEST_REDIS_URL);
const logger = createLogger('test', 'silent');
afterAll(() => redis.disconnect());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `check` holds (the flushes run on timers), failing after 5 s. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true after 5 s: ${check.toString()}`);
    await sleep(10);
  }
}

function store(prefix: string, windowMs = 60_000) {
  const s = new BatchedRedisStore(redis, prefix, logger, 50);
  s.init({ windowMs } as Options);
  return s;
}

describe('the batched API rate-limit store', () => {
  it('counts every hit at once on one replica and shares the totals through Redis', async () => {
    const prefix = testRedisPrefix('rl');
    // A long window, and the Redis key named from the window the store reports: no minute boundary
    // can fall between the hits and the checks.
    const windowMs = 3_600_000;
    const a = store(prefix, windowMs);
    const b = store(prefix, windowMs);
    const first = a.increment('u:1');
    expect(first.totalHits).toBe(1);
    for (let i = 2; i <= 3; i++) expect(a.increment('u:1').totalHits).toBe(i);
    const key = `${prefix}u:1:${first.resetTime!.getTime() / windowMs - 1}`;
    // The flush timer (50 ms here) adds the three hits to Redis without anyone asking.
    await until(async () => Number(await redis.get(key)) === 3);
    // Replica b learns a's hits with its first flush, and counts them from then on.
    expect(b.increment('u:1').totalHits).toBe(1);
    await until(() => b.get('u:1').totalHits === 4);
    expect(Number(await redis.get(key))).toBe(4);
    expect(b.increment('u:1').totalHits).toBe(5);
    expect(b.increment('u:2').totalHits).toBe(1);
    await until(async () => Number(await redis.get(key)) === 5);
    expect(a.increment('u:1').totalHits).toBe(4); // a has not flushed since b's hits...
    await until(() => a.get('u:1').totalHits === 6); // ...and knows all six after its own flush.
    expect(Number(await redis.get(key))).toBe(6);
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
    const down = createRedis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      lazyConnect: true,
    });
    const s = new BatchedRedisStore(down, prefix, logger, 50);
    s.init({ windowMs: 60_000 } as Options);
    for (let i = 1; i <= 4; i++) expect(s.increment('u:9').totalHits).toBe(i);
    await sleep(150);
    expect(s.increment('u:9').totalHits).toBe(5);
    down.disconnect();
  });
});
