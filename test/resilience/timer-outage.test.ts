/**
 * The database is away for longer than a timer's retries used to last (8 attempts from 1 s: about
 * two minutes; here the horizon is shrunk with TIMER_RETRY_BASE_MS so the test takes seconds): the
 * stack talks to Postgres through a TCP proxy this file cuts. Timers due during the outage keep
 * retrying with capped backoff and each fires exactly once when the database is back. A timer
 * BullMQ already holds as failed (attempts spent, as before this fix) is retried by the rebuild,
 * and the overdue one shows in the `jobs_timers_overdue` metric until then.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createTestDatabase,
  TcpProxy,
  TEST_DATABASE_URL,
  type TestDatabase,
} from '@htm/service-kit/testing';
import { TIMERS } from '@htm/jobs';
import {
  client,
  signInAdmin,
  signInTester,
  startStack,
  waitFor,
  type Actor,
  type Stack,
} from '../support/stack.js';
import { count, insertJobs } from './helpers.js';

const N = 6;
/** Old behaviour: a timer gave up after this many attempts. */
const OLD_ATTEMPTS = 8;
const target = new URL(TEST_DATABASE_URL);
const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
let db: TestDatabase;
let stack: Stack;
let testers: Actor[];
let lateTester: Actor;
beforeAll(async () => {
  await proxy.start();
  db = await createTestDatabase('timer_outage');
  stack = await startStack({
    label: 'timer-outage',
    env: {
      DATABASE_URL: proxy.urlFor(db.url),
      CLAIM_TIMEOUT_MS: String(10 * 60_000),
      // Rebuilds only when the test asks (and at start-up).
      TIMER_RECONCILE_MS: String(10 * 60_000),
      TIMER_RETRY_BASE_MS: '20',
      TIMER_RETRY_MAX_DELAY_MS: '200',
      TIMER_MAX_ATTEMPTS: String(OLD_ATTEMPTS),
      MAX_ACTIVE_CLAIMS: '2',
    },
  });
  const admin = await signInAdmin(stack);
  testers = await Promise.all(
    Array.from({ length: N / 2 }, (_, i) =>
      signInTester(stack, `outage.tester${i}@gmail.com`, { admin }),
    ),
  );
  lateTester = await signInTester(stack, 'outage.late@gmail.com', { admin });
}, 120_000);
afterAll(async () => {
  proxy.down = false;
  await stack?.stop();
  await db?.drop();
  await proxy.close();
}, 180_000); // starting a stack on a busy machine can take over a minute

const releasesOf = (jobIds: string[]) =>
  stack.sql<{ subject: string; n: string }>(
    `SELECT subject, count(*) AS n FROM jobs.outbox WHERE type = 'JobReleased' AND envelope->'data'->>'reason' = 'claim_timeout' AND subject = ANY($1::text[]) GROUP BY subject`,
    [jobIds],
  );
const overdueMetric = async () => {
  const text = await (await fetch(`${stack.jobs.url}/metrics`)).text();
  return Number(/^jobs_timers_overdue\{[^}]*\} (\d+)/m.exec(text)?.[1] ?? NaN);
};

describe('Postgres away longer than the old retry horizon', () => {
  it(`fires each of ${N} claim timers due during the outage exactly once after the database returns`, async () => {
    const jobIds = await insertJobs(stack, N, { paid: true, tag: 'Outage' });
    for (const [i, id] of jobIds.entries())
      expect(
        (await client(stack, testers[i >> 1].token).post(`/api/jobs/${id}/claim`)).status,
      ).toBe(200);
    const { queue, reconcile } = stack.jobs.worker!;
    await waitFor(
      async () => (await queue.getDelayedCount()) >= N,
      `all ${N} claim timers scheduled`,
      30_000,
    );
    // The deadlines come in 1.5 s, while the database is away: rebuild the timers for the new deadlines.
    await queue.drain(true);
    await stack.sql(
      `UPDATE jobs.jobs SET claim_deadline_at = date_trunc('milliseconds', now()) + interval '1500 milliseconds' WHERE id = ANY($1::uuid[])`,
      [jobIds],
    );
    await reconcile();
    expect(await queue.getDelayedCount()).toBe(N);

    proxy.cut();
    const cutAt = Date.now();
    // Past the old horizon: every timer has failed more often than it used to be allowed to.
    const timerAttempts = async () =>
      (await queue.getJobs(['delayed', 'wait', 'active', 'failed', 'completed'])).map(
        (j) => j.attemptsMade,
      );
    await waitFor(
      async () => {
        const a = await timerAttempts();
        return a.length === N && a.every((n) => n > OLD_ATTEMPTS + 2);
      },
      `every timer retried past ${OLD_ATTEMPTS} attempts while the database is away`,
      30_000,
    );
    expect(await queue.getFailedCount()).toBe(0);
    proxy.down = false;
    const backAt = Date.now();

    const released = () =>
      count(
        stack,
        `SELECT count(*) AS n FROM jobs.jobs WHERE status = 'open' AND id = ANY($1::uuid[])`,
        [jobIds],
      );
    await waitFor(
      async () => (await released()) === N,
      `all ${N} claims released once the database is back`,
      30_000,
    );
    const healedAt = Date.now();
    await waitFor(async () => (await queue.getCompletedCount()) >= N, 'the timers completed');
    const perJob = await releasesOf(jobIds);
    console.log(
      `postgres away ${backAt - cutAt} ms, timers attempted ${Math.min(...(await timerAttempts()))}+ times each: due ${N}, applied ${perJob.length}, duplicates ${perJob.filter((r) => Number(r.n) > 1).length}, time to heal ${healedAt - backAt} ms`,
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
  }, 120_000);

  it('retries a due timer BullMQ holds as failed at the next rebuild, and shows it as overdue until then', async () => {
    const [jobId] = await insertJobs(stack, 1, { paid: true, tag: 'Failed timer' });
    expect((await client(stack, lateTester.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(
      200,
    );
    const { queue, reconcile } = stack.jobs.worker!;
    await waitFor(async () => (await queue.getDelayedCount()) >= 1, 'the claim timer scheduled');
    await queue.drain(true);
    // Due two minutes ago, and its timer failed with its attempts spent (as timers did before this fix).
    const deadline = new Date(Math.floor(Date.now() / 1000) * 1000 - 2 * 60_000);
    await stack.sql(`UPDATE jobs.jobs SET claim_deadline_at = $2 WHERE id = $1`, [jobId, deadline]);
    proxy.cut();
    const timerId = `${TIMERS.claimTimeout}-${jobId}-${deadline.getTime()}`;
    await queue.add(
      TIMERS.claimTimeout,
      { jobId, testerId: lateTester.id, deadlineAt: deadline.toISOString() },
      { jobId: timerId, attempts: 1 },
    );
    await waitFor(
      async () => (await queue.getJobState(timerId)) === 'failed',
      'the timer failed for good while the database is away',
      30_000,
    );
    proxy.down = false;

    await waitFor(
      async () => (await overdueMetric()) === 1,
      'jobs_timers_overdue shows the overdue timer',
      30_000,
    );
    await reconcile();
    await waitFor(
      async () =>
        (await count(
          stack,
          `SELECT count(*) AS n FROM jobs.jobs WHERE status = 'open' AND id = $1`,
          [jobId],
        )) === 1,
      'the claim released after the rebuild',
      30_000,
    );
    expect((await releasesOf([jobId])).map((r) => Number(r.n))).toEqual([1]);
    expect(await overdueMetric()).toBe(0);
  }, 60_000);
});
