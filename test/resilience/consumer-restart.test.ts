/**
 * A consumer that dies in the middle of a stream (no ack, lease not released) and a new one
 * started in its place: every event applied, none twice. Jobs consumes JobPaid (job becomes
 * paid), payments consumes SubmissionAccepted (ledger: +82 earning, +18 fee per job).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createEvent, type EventEnvelope } from '@htm/events';
import type { Redis } from 'ioredis';
import { startStack, waitFor, type Stack } from '../support/stack.js';
import { count, insertJobs, killConsumer, sleep } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ label: 'consumer-restart', withWorker: false });
});
afterAll(async () => {
  await stack?.stop();
});

const N = 200;

describe('a consumer killed mid-stream and restarted', () => {
  it('applies every one of 200 JobPaid and 200 SubmissionAccepted events exactly once', async () => {
    const jobIds = await insertJobs(stack, N, { tag: 'consumer' });
    const paid: EventEnvelope[] = jobIds.map((jobId, i) =>
      createEvent('JobPaid', jobId, {
        jobId,
        sessionId: `cs_test_${i}`,
        posterId: 'poster-bulk',
        amountCents: 100,
        paidAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      }),
    );
    const accepted: EventEnvelope[] = jobIds.map((jobId) =>
      createEvent('SubmissionAccepted', jobId, {
        jobId,
        testerId: 'tester-bulk',
        posterId: 'poster-bulk',
        title: 'consumer',
        acceptedBy: 'poster',
        acceptedAt: new Date().toISOString(),
      }),
    );
    // Payments books an earning only for a job whose payment is in its ledger.
    await stack.sql(
      `INSERT INTO payments.ledger_entries (kind, job_id, amount_cents, poster_id, session_id) SELECT 'payment', j, 100, 'poster-bulk', 'cs_test_' || i FROM unnest($1::text[]) WITH ORDINALITY AS t(j, i)`,
      [jobIds],
    );
    const handledJobs = () =>
      count(stack, `SELECT count(*) AS n FROM jobs.handled_events WHERE type = 'JobPaid'`);
    const handledPayments = () =>
      count(
        stack,
        `SELECT count(*) AS n FROM payments.handled_events WHERE type = 'SubmissionAccepted'`,
      );

    // First half on the bus, then both consumers die while working through it.
    await stack.payments.ctx.bus.publish(paid.slice(0, N / 2));
    await stack.jobs.ctx.bus.publish(accepted.slice(0, N / 2));
    await waitFor(
      async () => (await handledJobs()) >= 10 && (await handledPayments()) >= 10,
      'the consumers to get going',
      90_000, // a busy machine: the consumers' first batches can take a while
    );
    // Handlers already running finish their transaction; their ack is lost.
    await Promise.all([killConsumer(stack.jobs), killConsumer(stack.payments)]);
    const atKill = { jobs: await handledJobs(), payments: await handledPayments() };

    // Second half while nobody consumes: it waits in the stream.
    await stack.payments.ctx.bus.publish(paid.slice(N / 2));
    await stack.jobs.ctx.bus.publish(accepted.slice(N / 2));
    await sleep(300);
    expect(await handledJobs()).toBe(atKill.jobs);
    expect(await handledPayments()).toBe(atKill.payments);

    // New consumers: they take the partitions once the dead one's lease runs out and
    // finish its unacknowledged entries first.
    await Promise.all([
      stack.jobs.ctx.events.start({ relay: false }),
      stack.payments.ctx.events.start({ relay: false }),
    ]);
    await waitFor(
      async () => (await handledJobs()) === N && (await handledPayments()) === N,
      'every event handled after the restart',
      120_000,
    );
    await sleep(500); // a late duplicate would show up now
    console.log(
      `consumer restart: killed after ${atKill.jobs}/${N} JobPaid and ${atKill.payments}/${N} SubmissionAccepted were handled`,
    );
    expect(atKill.jobs).toBeLessThan(N);
    expect(atKill.payments).toBeLessThan(N);

    // Effects: each job paid with its own event's time; the ledger exact.
    const jobs = await stack.sql<{ id: string; payment_status: string; paid_at: Date }>(
      `SELECT id, payment_status, paid_at FROM jobs.jobs WHERE id = ANY($1::uuid[])`,
      [jobIds],
    );
    expect(jobs.filter((j) => j.payment_status === 'paid')).toHaveLength(N);
    const byId = new Map(paid.map((e) => [e.subject, (e.data as { paidAt: string }).paidAt]));
    for (const j of jobs) expect(new Date(j.paid_at).toISOString()).toBe(byId.get(j.id));
    expect(await handledJobs()).toBe(N);
    expect(await handledPayments()).toBe(N);
    const ledger = await stack.sql<{ kind: string; n: string; total: string }>(
      `SELECT kind, count(*) AS n, sum(amount_cents) AS total FROM payments.ledger_entries WHERE job_id = ANY($1::text[]) GROUP BY kind ORDER BY kind`,
      [jobIds],
    );
    expect(ledger.map((r) => [r.kind, Number(r.n), Number(r.total)])).toEqual([
      ['payment', N, N * 100],
      ['platform_fee', N, N * 18],
      ['tester_earning', N, N * 82],
    ]);

    // Nothing dead-lettered, nothing left unacknowledged.
    const redis = (stack.jobs.ctx.bus as unknown as { redis: Redis }).redis;
    expect(await redis.xlen(`${stack.prefix}events:dlq:jobs`)).toBe(0);
    expect(await redis.xlen(`${stack.prefix}events:dlq:payments`)).toBe(0);
    // Acks trail the handled rows (an entry the dead consumer had read is re-read, found handled and
    // acknowledged by the new one): wait for none to be left, however busy the machine.
    const unacked = async () => {
      let n = 0;
      for (const [source, group] of [
        ['payments', 'jobs'],
        ['jobs', 'payments'],
      ] as const) {
        for (let p = 0; p < 4; p++)
          n += Number(
            ((await redis.xpending(`${stack.prefix}events:${source}:${p}`, group)) as [number])[0],
          );
      }
      return n;
    };
    await waitFor(async () => (await unacked()) === 0, 'every entry acknowledged', 30_000);
    expect(await handledJobs()).toBe(N);
    expect(await handledPayments()).toBe(N);
  }, 300_000);
});
