/**
 * The outbox relays of jobs and payments stopped while posters post and pay: the events wait
 * in the outbox tables (committed with the state), and all of them arrive once the relays run again.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  client,
  postAndPay,
  signInPoster,
  signInTester,
  startStack,
  waitFor,
  JOB,
  type Actor,
  type Stack,
} from '../support/stack.js';
import { count, sleep } from './helpers.js';

let stack: Stack;
let poster: Actor;
let tester: Actor;
beforeAll(async () => {
  stack = await startStack({ label: 'relay', withWorker: false });
  poster = await signInPoster(stack, 'relay.poster@gmail.com');
  tester = await signInTester(stack, 'relay.tester@gmail.com');
});
afterAll(async () => {
  await stack?.stop();
});

const N = 15;

describe('the outbox relay stopped and started again', () => {
  it('delivers every JobCreated and JobPaid written while it was stopped', async () => {
    await Promise.all([stack.jobs.ctx.events.relay.stop(), stack.payments.ctx.events.relay.stop()]);

    // Post and pay N jobs: each answer is a success (the state and its events are committed together).
    const jobIds: string[] = [];
    for (let i = 0; i < N; i++) {
      const posted = await client(stack, poster.token).post('/api/jobs', {
        ...JOB,
        title: `Relay job ${i}`,
        geo_rule: 'global_beta',
      });
      expect(posted.status).toBe(201);
      const pay = await fetch(`${stack.url}${posted.body.checkout_url}/pay`, {
        method: 'POST',
        redirect: 'manual',
      });
      expect(pay.status).toBe(303);
      jobIds.push(posted.body.job.id);
    }
    await sleep(500);
    // Paid in payments, but jobs has not heard: nothing visible to testers yet.
    expect(
      await count(
        stack,
        `SELECT count(*) AS n FROM payments.ledger_entries WHERE kind = 'payment' AND job_id = ANY($1::text[])`,
        [jobIds],
      ),
    ).toBe(N);
    expect(
      await count(
        stack,
        `SELECT count(*) AS n FROM jobs.jobs WHERE payment_status = 'paid' AND id = ANY($1::uuid[])`,
        [jobIds],
      ),
    ).toBe(0);
    expect(
      await count(
        stack,
        `SELECT count(*) AS n FROM payments.outbox WHERE type = 'JobPaid' AND published_at IS NULL`,
      ),
    ).toBe(N);
    expect(
      await count(
        stack,
        `SELECT count(*) AS n FROM jobs.outbox WHERE type = 'JobCreated' AND published_at IS NULL`,
      ),
    ).toBe(N);
    expect(
      (await client(stack, tester.token).get('/api/tester/available-jobs?limit=100')).body.jobs,
    ).toEqual([]);

    stack.jobs.ctx.events.relay.start();
    stack.payments.ctx.events.relay.start();

    await waitFor(
      async () =>
        (await count(
          stack,
          `SELECT count(*) AS n FROM jobs.jobs WHERE payment_status = 'paid' AND id = ANY($1::uuid[])`,
          [jobIds],
        )) === N,
      'every job paid in jobs',
    );
    expect(
      await count(stack, `SELECT count(*) AS n FROM payments.outbox WHERE published_at IS NULL`),
    ).toBe(0);
    await waitFor(
      async () =>
        (await count(stack, `SELECT count(*) AS n FROM jobs.outbox WHERE published_at IS NULL`)) ===
        0,
      'jobs outbox drained',
    );
    // Every JobPaid id of the payments outbox handled by jobs exactly once.
    const missing = await count(
      stack,
      `SELECT count(*) AS n FROM payments.outbox o WHERE o.type = 'JobPaid' AND NOT EXISTS (SELECT 1 FROM jobs.handled_events h WHERE h.event_id = o.id)`,
    );
    expect(missing).toBe(0);
    // Every JobCreated reached the stream (one entry per event id).
    const redis = (stack.jobs.ctx.bus as unknown as { redis: import('ioredis').Redis }).redis;
    const seen = new Set<string>();
    for (let p = 0; p < 4; p++) {
      for (const [, fields] of (await redis.xrange(
        `${stack.prefix}events:jobs:${p}`,
        '-',
        '+',
      )) as Array<[string, string[]]>) {
        const e = JSON.parse(fields[1]) as { id: string; type: string };
        if (e.type === 'JobCreated') seen.add(e.id);
      }
    }
    const created = await stack.sql<{ id: string }>(
      `SELECT id FROM jobs.outbox WHERE type = 'JobCreated'`,
    );
    expect(created.length).toBeGreaterThanOrEqual(N);
    for (const c of created) expect(seen.has(c.id)).toBe(true);

    const listed = await client(stack, tester.token).get('/api/tester/available-jobs?limit=100');
    expect(listed.body.jobs.map((j: { id: string }) => j.id).sort()).toEqual([...jobIds].sort());
  }, 60_000);

  it('loses nothing when a relay stops between publishing and marking (published again, applied once)', async () => {
    // A stop in the middle of a pass: the pass in flight finishes, the next one picks up the rest.
    const { jobId } = await postAndPay(stack, poster, {
      ...JOB,
      title: 'After restart',
      geo_rule: 'global_beta',
    });
    const before = await count(
      stack,
      `SELECT count(*) AS n FROM jobs.handled_events WHERE type = 'JobPaid'`,
    );
    const redis = (stack.payments.ctx.bus as unknown as { redis: import('ioredis').Redis }).redis;
    const streamLength = async () => {
      let n = 0;
      for (let p = 0; p < 4; p++) n += await redis.xlen(`${stack.prefix}events:payments:${p}`);
      return n;
    };
    const lengthBefore = await streamLength();
    await stack.payments.ctx.events.relay.stop();
    await stack.sql(`UPDATE payments.outbox SET published_at = NULL WHERE type = 'JobPaid'`); // as if every mark was lost
    stack.payments.ctx.events.relay.start();
    await waitFor(
      async () =>
        (await count(
          stack,
          `SELECT count(*) AS n FROM payments.outbox WHERE published_at IS NULL`,
        )) === 0,
      'republished',
    );
    await sleep(700);
    expect(await streamLength()).toBe(lengthBefore + before); // every JobPaid went out a second time
    expect(
      await count(stack, `SELECT count(*) AS n FROM jobs.handled_events WHERE type = 'JobPaid'`),
    ).toBe(before);
    expect(
      (
        await stack.sql<{ payment_status: string }>(
          `SELECT payment_status FROM jobs.jobs WHERE id = $1`,
          [jobId],
        )
      )[0].payment_status,
    ).toBe('paid');
  }, 30_000);
});
