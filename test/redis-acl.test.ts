/**
 * Event bus credentials (issue #27, finding 1): each service's Redis user, from
 * scripts/redis-acl.ts, against the real Redis. A service writes events only to its own streams;
 * it still consumes the others' (consumer groups), and its timers (BullMQ) and other keys work.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { createEvent, RedisStreamsBus, type EventEnvelope } from '@htm/events';
import { testRedisPrefix, TEST_REDIS_URL, waitFor } from '@htm/service-kit/testing';
import { aclSetUserArgs, REDIS_USERS, type RedisUser } from '../scripts/redis-acl.js';

const prefix = testRedisPrefix('acl');
const tag = randomBytes(4).toString('hex');
const nameOf = (u: RedisUser) => `test-${tag}-${u}`;
const passwords = Object.fromEntries(
  REDIS_USERS.map((u) => [u, randomBytes(24).toString('base64url')]),
) as Record<RedisUser, string>;
const urlOf = (u: RedisUser) => {
  const url = new URL(TEST_REDIS_URL);
  url.username = nameOf(u);
  url.password = passwords[u];
  return url.toString();
};

let admin: Redis;
const clients: Redis[] = [];
const as = (u: RedisUser) => {
  const c = new Redis(urlOf(u), { maxRetriesPerRequest: 1, lazyConnect: false });
  clients.push(c);
  return c;
};
const buses: RedisStreamsBus[] = [];
const busAs = (u: RedisUser) => {
  const b = new RedisStreamsBus({
    url: urlOf(u),
    prefix,
    partitions: 2,
    leaseMs: 1500,
    blockMs: 200,
  });
  buses.push(b);
  return b;
};

beforeAll(async () => {
  admin = new Redis(TEST_REDIS_URL);
  for (const args of aclSetUserArgs(prefix, passwords, nameOf)) await admin.call('ACL', ...args);
});
afterAll(async () => {
  await Promise.all(buses.map((b) => b.close()));
  clients.forEach((c) => c.disconnect(false));
  await admin.call('ACL', 'DELUSER', ...REDIS_USERS.map(nameOf));
  admin.disconnect();
});

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'allowed',
    (err: Error) => err.message.split(' ')[0],
  );

describe('Redis ACL users of the event bus', () => {
  it("refuses a service's XADD to another service's stream (NOPERM), directly, in Lua, or by copying a key", async () => {
    const jobs = as('jobs');
    expect(
      await refusal(jobs.xadd(`${prefix}events:payments:0`, '*', 'e', '{"type":"JobPaid"}')),
    ).toBe('NOPERM');
    expect(await refusal(jobs.xadd(`${prefix}events:identity:1`, '*', 'e', '{}'))).toBe('NOPERM');
    expect(await refusal(jobs.xadd(`${prefix}events:dlq:payments`, '*', 'e', '{}'))).toBe('NOPERM');
    expect(
      await refusal(
        jobs.eval(
          "return redis.call('XADD', KEYS[1], '*', 'e', 'x')",
          1,
          `${prefix}events:payments:1`,
        ),
      ),
    ).toMatch(/^(NOPERM|ERR)$/);
    // Its own stream: allowed; a copy of it onto the payments stream: not.
    expect(await refusal(jobs.xadd(`${prefix}events:jobs:0`, '*', 'e', '{}'))).toBe('allowed');
    expect(await refusal(jobs.copy(`${prefix}events:jobs:0`, `${prefix}events:payments:0`))).toBe(
      'NOPERM',
    );
    expect(await refusal(jobs.rename(`${prefix}events:jobs:0`, `${prefix}events:payments:0`))).toBe(
      'NOPERM',
    );
    // Nothing outside the prefix, and no server administration.
    expect(await refusal(jobs.set('other-app:key', '1'))).toBe('NOPERM');
    expect(await refusal(jobs.call('FLUSHALL'))).toBe('NOPERM');
    expect(
      await admin.exists(
        `${prefix}events:payments:0`,
        `${prefix}events:payments:1`,
        `${prefix}events:identity:1`,
      ),
    ).toBe(0);
  });

  it('gives the gateway no event stream to write, only its live channel', async () => {
    const gateway = as('gateway');
    for (const source of ['identity', 'jobs', 'payments', 'admin']) {
      expect(await refusal(gateway.xadd(`${prefix}events:${source}:0`, '*', 'e', '{}'))).toBe(
        'NOPERM',
      );
    }
    expect(await refusal(gateway.xadd(`${prefix}live:messages`, '*', 'm', '{}'))).toBe('allowed');
    expect(await refusal(gateway.incr(`${prefix}rl:api:someone`))).toBe('allowed');
  });

  it("lets each service publish its own events and consume the others' through the bus", async () => {
    const seen: EventEnvelope[] = [];
    const jobsBus = busAs('jobs');
    await jobsBus.subscribe({
      group: 'jobs',
      sources: ['payments'],
      handler: async (e) => void seen.push(e),
    });
    const gatewaySeen: string[] = [];
    await busAs('gateway').subscribe({
      group: 'gateway-live',
      sources: ['payments', 'jobs'],
      handler: async (e) => void gatewaySeen.push(e.id),
    });
    const paid = createEvent('JobPaid', 'job-acl', {
      jobId: 'job-acl',
      sessionId: 'cs_1',
      posterId: 'p',
      amountCents: 100,
      paidAt: new Date().toISOString(),
    });
    await busAs('payments').publish([paid]);
    const claimed = createEvent('JobClaimed', 'job-acl', {
      jobId: 'job-acl',
      testerId: 't',
      claimedAt: new Date().toISOString(),
      deadlineAt: new Date().toISOString(),
      by: 'tester',
    });
    await jobsBus.publish([claimed]);
    await waitFor(
      () => seen.length === 1 && gatewaySeen.length === 2,
      'jobs and the gateway to consume',
    );
    expect(seen[0].id).toBe(paid.id);
    // payments cannot publish as jobs: the bus writes to the jobs stream, which it may not.
    await expect(busAs('payments').publish([claimed])).rejects.toThrow(/NOPERM/);
    // The gateway cannot publish at all.
    await expect(busAs('gateway').publish([paid])).rejects.toThrow(/NOPERM/);
  });

  it("runs the jobs service's BullMQ timers under its user", async () => {
    const connection = new Redis(urlOf('jobs'), { maxRetriesPerRequest: null });
    clients.push(connection);
    const queue = new Queue('acl-timers', { connection, prefix: `${prefix}bull` });
    try {
      const job = await queue.add(
        'auto-accept',
        { jobId: 'x' },
        { delay: 60_000, jobId: 'timer-1' },
      );
      expect(job.id).toBe('timer-1');
      expect(await queue.getDelayedCount()).toBe(1);
      await queue.remove('timer-1');
    } finally {
      await queue.close();
    }
  });
});
