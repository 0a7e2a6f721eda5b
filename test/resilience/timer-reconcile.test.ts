/**
 * Redis loses every timer (its own redis-server child wiped with FLUSHALL while 20 claim timers
 * are pending, as a restart without persistence or a failover to an empty replica would). The
 * database still knows every deadline: once they are due, the timer reconciler rebuilds the
 * timers (overdue ones fire at once) and each of the 20 fires exactly once (one release and one strike per job).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import {
  client,
  signInAdmin,
  signInTester,
  startStack,
  waitFor,
  type Actor,
  type Stack,
} from '../support/stack.js';
import { count, freePort, insertJobs, RedisChild, sleep } from './helpers.js';

const N = 20;
/** Long: no claim runs out by itself while the test sets up, however slow the machine. */
const CLAIM_TIMEOUT_MS = 10 * 60_000;
const TIMER_RECONCILE_MS = 500;

let redis: RedisChild;
let stack: Stack;
/** Two claims per tester: three strikes would unapprove a tester and release their other claims without a timer. */
let testers: Actor[];
beforeAll(async () => {
  redis = new RedisChild(await freePort());
  await redis.start();
  stack = await startStack({
    label: 'timer-reconcile',
    env: {
      REDIS_URL: redis.url,
      CLAIM_TIMEOUT_MS: String(CLAIM_TIMEOUT_MS),
      TIMER_RECONCILE_MS: String(TIMER_RECONCILE_MS),
      MAX_ACTIVE_CLAIMS: '2',
    },
  });
  const admin = await signInAdmin(stack);
  testers = await Promise.all(
    Array.from({ length: N / 2 }, (_, i) =>
      signInTester(stack, `reconcile.tester${i}@gmail.com`, { admin }),
    ),
  );
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await redis?.kill();
}, 180_000); // starting a stack on a busy machine can take over a minute

describe('Redis wiped with timers pending', () => {
  it(`fires all ${N} claim timeouts once, rebuilt from the database`, async () => {
    const jobIds = await insertJobs(stack, N, { paid: true, tag: 'Reconcile' });
    for (const [i, id] of jobIds.entries())
      expect(
        (await client(stack, testers[i >> 1].token).post(`/api/jobs/${id}/claim`)).status,
      ).toBe(200);
    const queue = stack.jobs.worker!.queue;
    await waitFor(
      async () => (await queue.getDelayedCount()) >= N,
      `all ${N} claim timers scheduled`,
      60_000,
    );

    // Redis loses everything: timers, streams, consumer groups.
    const admin = new Redis(redis.url);
    await admin.flushall();
    admin.disconnect();
    // The timers are gone. Healing may start within milliseconds (the outbox relay sees its stream
    // wiped, publishes again and schedules again what it relays), so "gone" is fewer than N here,
    // not 0: the CI once counted 1 already back.
    expect(await queue.getDelayedCount()).toBeLessThan(N);
    // Time passes: the deadlines come (now overdue) while Redis no longer knows about them.
    await stack.sql(
      `UPDATE jobs.jobs SET claim_deadline_at = date_trunc('milliseconds', now()) - interval '1 second' WHERE id = ANY($1::uuid[])`,
      [jobIds],
    );

    const released = () =>
      count(
        stack,
        `SELECT count(*) AS n FROM jobs.jobs WHERE status = 'open' AND id = ANY($1::uuid[])`,
        [jobIds],
      );
    await waitFor(
      async () => (await released()) === N,
      `all ${N} claims released after the wipe`,
      60_000,
    );
    await sleep(3 * TIMER_RECONCILE_MS); // further reconciliations and any second firing land by now

    const perJob = await stack.sql<{ subject: string; n: string }>(
      `SELECT subject, count(*) AS n FROM jobs.outbox WHERE type = 'JobReleased' AND envelope->'data'->>'reason' = 'claim_timeout' AND subject = ANY($1::text[]) GROUP BY subject`,
      [jobIds],
    );
    console.log(
      `timers pending when Redis was wiped: ${N}; fired after the wipe: ${perJob.length}; fired more than once: ${perJob.filter((r) => Number(r.n) > 1).length}`,
    );
    expect(perJob.length).toBe(N);
    expect(perJob.every((r) => Number(r.n) === 1)).toBe(true);
    expect(
      await count(
        stack,
        `SELECT count(*) AS n FROM jobs.outbox WHERE type = 'TesterStrikeRecorded' AND subject = ANY($1::text[])`,
        [testers.map((t) => t.id)],
      ),
    ).toBe(N);
    expect(await released()).toBe(N);
  }, 150_000);
});
