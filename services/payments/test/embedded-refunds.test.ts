/**
 * Refunds on `npm start`'s database (PGlite: one connection) with the local provider: an unfilled
 * pack slot (PackSlotClosed) and the admin's clear-all (JobsCleared) give the money back while
 * payments keeps answering (/readyz, new checkouts), and a restart with a refund waiting on the
 * stream handles it at once (issue #48's blocker: the refund once ran in the handler's
 * transaction while the local provider used a second handle, which on PGlite waits for good).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createEvent, createEventBus, type EventBus, type EventEnvelope } from '@htm/events';
import { startPayments } from '../src/main.js';
import { createCheckout, q, startHarness, type Harness } from './support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('embedded_refunds', 'local', {}, { pglite: true });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

/** Fails after `ms` instead of waiting for good (a jammed database never answers). */
function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
    }),
  ]);
}

/** Polls `check` (each look bounded) until it holds, up to `ms`. */
async function until<T>(what: string, check: () => Promise<T | undefined | false>, ms = 20_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await within(5000, what, check());
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A job checkout paid on the local checkout page; answers its job, poster and session. */
async function paidJob(title = 'Bakery pack slot') {
  const jobId = randomUUID();
  const posterId = randomUUID();
  const res = await within(
    10_000,
    'a checkout',
    createCheckout(h, { job_id: jobId, poster_id: posterId, title, attempt: 1 }),
  );
  expect(res.status).toBe(200);
  const { session_id: sessionId } = (await res.json()) as { session_id: string };
  const pay = await fetch(`${h.svc.url}/api/payments/local/checkout/${sessionId}/pay`, {
    method: 'POST',
    redirect: 'manual',
    signal: AbortSignal.timeout(10_000),
  });
  expect(pay.status).toBe(303);
  await until('the payment in the ledger', async () => (await entries(jobId, 'payment')).length);
  return { jobId, posterId, sessionId, title };
}

function entries(jobId: string, kind: string) {
  return q<{ amount_cents: number; refund_id: string | null }>(
    h,
    'SELECT amount_cents, refund_id FROM payments.ledger_entries WHERE job_id = $1 AND kind = $2',
    [jobId, kind],
  );
}

/** Payments answers its readiness and a new checkout at once (not a timed-out database). */
async function stillAnswers() {
  const ready = await fetch(`${h.svc.url}/readyz`, { signal: AbortSignal.timeout(5000) });
  expect({ status: ready.status, body: await ready.json() }).toMatchObject({ status: 200 });
  const res = await within(
    5000,
    'a new checkout',
    createCheckout(h, { job_id: randomUUID(), poster_id: randomUUID(), title: 'Next', attempt: 1 }),
  );
  expect(res.status).toBe(200);
  expect(((await res.json()) as { checkout_url: string | null }).checkout_url).toMatch(
    /^\/api\/payments\/local\/checkout\/cs_local_/,
  );
}

function slotClosed(job: Awaited<ReturnType<typeof paidJob>>) {
  return createEvent('PackSlotClosed', job.jobId, {
    jobId: job.jobId,
    packId: randomUUID(),
    posterId: job.posterId,
    title: job.title,
    closedAt: new Date().toISOString(),
  });
}

async function expectRefundedOnce(jobId: string) {
  const [refund] = await until('the refund in the ledger', async () =>
    (await entries(jobId, 'refund')).length ? entries(jobId, 'refund') : undefined,
  );
  expect(refund.amount_cents).toBe(-100);
  expect(refund.refund_id).toMatch(/^re_local_/);
  expect(await entries(jobId, 'refund')).toHaveLength(1);
  // The provider side gave it back once, and PaymentRefunded tells the poster.
  expect(
    await q(h, 'SELECT id FROM payments.local_provider_refunds WHERE id = $1', [refund.refund_id]),
  ).toHaveLength(1);
  expect(
    await q(h, `SELECT id FROM payments.outbox WHERE type = 'PaymentRefunded' AND subject = $1`, [
      jobId,
    ]),
  ).toHaveLength(1);
}

describe('refunds on PGlite with the local provider', () => {
  it('an unfilled pack slot is refunded once, and payments keeps answering', async () => {
    const job = await paidJob();
    await (h.svc.ctx.bus as EventBus).publish([slotClosed(job)]);
    await expectRefundedOnce(job.jobId);
    await stillAnswers();
  });

  it("the admin's clear-all refunds the paid jobs nobody finished, and payments keeps answering", async () => {
    const a = await paidJob('Cleared one');
    const b = await paidJob('Cleared two');
    await (h.svc.ctx.bus as EventBus).publish([
      createEvent('JobsCleared', randomUUID(), {
        jobsDeleted: 2,
        submissionsDeleted: 0,
        refundJobIds: [a.jobId, b.jobId],
        actorId: randomUUID(),
      }),
    ]);
    await expectRefundedOnce(a.jobId);
    await expectRefundedOnce(b.jobId);
    await stillAnswers();
  });

  it('a refund waiting on the stream over a restart is handled at start, once', async () => {
    const job = await paidJob('Waiting over a restart');
    await h.svc.stop();
    const bus = createEventBus(h.svc.ctx.config, undefined, { clientId: 'payments-test' });
    const event: EventEnvelope = slotClosed(job);
    try {
      // Twice: a redelivered copy (same id) changes nothing.
      await bus.publish([event]);
      await bus.publish([event]);
    } finally {
      await bus.close();
    }
    h.svc = await startPayments(h.env, { port: 0 });
    await expectRefundedOnce(job.jobId);
    await stillAnswers();
  }, 120_000);
});
