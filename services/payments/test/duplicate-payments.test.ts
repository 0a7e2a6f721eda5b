/**
 * One job, one dollar: repeated or simultaneous checkout requests leave one payable session, and
 * a second payment that still happens (two sessions paid at the provider) is refunded
 * automatically, recorded in the ledger and shown to the poster as refunded.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  bearer,
  createCheckout,
  postWebhook,
  q,
  signedWebhook,
  startHarness,
  STRIPE_WEBHOOK_SECRET,
  type Harness,
} from './support/harness.js';
import { DEV_LOCAL_WEBHOOK_SECRET } from '../src/config.js';

type Checkout = { checkout_url: string; session_id: string };

async function checkout(
  h: Harness,
  jobId: string,
  posterId: string,
  attempt: number,
): Promise<Checkout> {
  const res = await createCheckout(h, {
    job_id: jobId,
    poster_id: posterId,
    title: 'Check my pricing page',
    attempt,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Checkout;
}

async function status(h: Harness, sessionId: string, posterId: string) {
  const res = await fetch(`${h.svc.url}/api/payments/checkout/status/${sessionId}`, {
    headers: await bearer(h, { id: posterId, type: 'poster' }),
  });
  expect(res.status).toBe(200);
  return res.json();
}

async function overview(h: Harness) {
  const res = await fetch(`${h.svc.url}/api/admin/financial-overview`, {
    headers: await bearer(h, { type: 'admin' }),
  });
  return (await res.json()) as Record<string, number>;
}

/** The job's ledger entries: payment, duplicate payments, refunds (created_at is the transaction's start, so not an order). */
const ledgerOf = (h: Harness, jobId: string) =>
  q<{ kind: string; amount_cents: number; session_id: string; refund_id: string | null }>(
    h,
    `SELECT kind, amount_cents, session_id, refund_id FROM payments.ledger_entries WHERE job_id = $1
     ORDER BY array_position(ARRAY['payment', 'duplicate_payment', 'refund'], kind), session_id`,
    [jobId],
  );
const countOutbox = async (h: Harness, type: string, jobId: string) =>
  (
    await q<{ n: number }>(
      h,
      `SELECT count(*)::int AS n FROM payments.outbox WHERE type = $1 AND subject = $2`,
      [type, jobId],
    )
  )[0].n;

/**
 * Two sessions that can both be paid at the provider: what happens when a payment beats the
 * expiry of a surplus session, or with sessions opened before the one-open-session rule. Our side
 * has closed the first one; the provider has not.
 */
async function twoPayableSessions(
  h: Harness,
  jobId: string,
  posterId: string,
): Promise<[Checkout, Checkout]> {
  const a = await checkout(h, jobId, posterId, 1);
  await q(
    h,
    `UPDATE payments.checkout_sessions SET status = 'expired', closed_at = now() WHERE id = $1`,
    [a.session_id],
  );
  const b = await checkout(h, jobId, posterId, 2);
  expect(b.session_id).not.toBe(a.session_id);
  return [a, b];
}

describe('local provider (npm start): one payable session per job, duplicates refunded', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('dup_local', 'local');
  });
  afterAll(async () => {
    await h?.close();
  });

  const pay = (sessionId: string) =>
    fetch(`${h.svc.url}/api/payments/local/checkout/${sessionId}/pay`, {
      method: 'POST',
      redirect: 'manual',
    });

  it('answers the open session to a second checkout request (two tabs): only one session can be paid', async () => {
    const jobId = randomUUID();
    const posterId = randomUUID();
    const tab1 = await checkout(h, jobId, posterId, 1);
    const tab2 = await checkout(h, jobId, posterId, 2);
    expect(tab2).toEqual(tab1);
    expect(
      await q(h, `SELECT status FROM payments.local_provider_sessions WHERE job_id = $1`, [jobId]),
    ).toEqual([{ status: 'open' }]);

    // Paying in both tabs: the first pays, the second finds the session already paid.
    const first = await pay(tab1.session_id);
    const second = await pay(tab2.session_id);
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(second.headers.get('location')).toBe(`/payment/success?session_id=${tab1.session_id}`);
    expect(await ledgerOf(h, jobId)).toEqual([
      { kind: 'payment', amount_cents: 100, session_id: tab1.session_id, refund_id: null },
    ]);
    expect(await status(h, tab1.session_id, posterId)).toEqual({
      payment_status: 'paid',
      job_id: jobId,
    });

    // And once paid, another checkout is refused.
    const again = await createCheckout(h, {
      job_id: jobId,
      poster_id: posterId,
      title: 'x',
      attempt: 3,
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({
      detail: 'This job is already paid.',
      code: 'already_paid',
    });
  });

  it('opens a new session after the poster cancelled the previous one', async () => {
    const jobId = randomUUID();
    const posterId = randomUUID();
    const first = await checkout(h, jobId, posterId, 1);
    const cancel = await fetch(
      `${h.svc.url}/api/payments/local/checkout/${first.session_id}/cancel`,
      { method: 'POST', redirect: 'manual' },
    );
    expect(cancel.status).toBe(303);
    const next = await checkout(h, jobId, posterId, 2);
    expect(next.session_id).not.toBe(first.session_id);
    expect((await pay(next.session_id)).headers.get('location')).toBe(
      `/payment/success?session_id=${next.session_id}`,
    );
    expect(await status(h, next.session_id, posterId)).toEqual({
      payment_status: 'paid',
      job_id: jobId,
    });
  });

  it('gives 8 simultaneous checkout requests for one job the same session, and the surplus sessions refuse payment', async () => {
    const jobId = randomUUID();
    const posterId = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => checkout(h, jobId, posterId, i + 1)),
    );
    const ids = new Set(answers.map((a) => a.session_id));
    expect(ids.size).toBe(1);
    const [kept] = ids;
    expect(
      await q(
        h,
        `SELECT id FROM payments.checkout_sessions WHERE job_id = $1 AND status = 'open'`,
        [jobId],
      ),
    ).toEqual([{ id: kept }]);

    // Every other session the provider opened for this job is expired there: its page refuses to pay.
    const surplus = await q<{ id: string; status: string }>(
      h,
      `SELECT id, status FROM payments.local_provider_sessions WHERE job_id = $1 AND id <> $2`,
      [jobId, kept],
    );
    for (const s of surplus) {
      expect(s.status).toBe('expired');
      const page = await (await fetch(`${h.svc.url}/api/payments/local/checkout/${s.id}`)).text();
      expect(page).toContain(
        'This checkout was cancelled or has expired and can no longer be paid.',
      );
      expect(page).not.toContain('/pay"');
      const refused = await pay(s.id);
      expect(refused.status).toBe(303);
      expect(refused.headers.get('location')).toBe('/payment/cancel');
    }
    expect((await pay(kept)).status).toBe(303);
    expect((await ledgerOf(h, jobId)).map((e) => e.kind)).toEqual(['payment']);
    expect(await countOutbox(h, 'JobPaid', jobId)).toBe(1);
  });

  it('refunds a second paid session, records it in the ledger and the overview, and tells the poster', async () => {
    const jobId = randomUUID();
    const posterId = randomUUID();
    const before = await overview(h);
    const [a, b] = await twoPayableSessions(h, jobId, posterId);

    const paidB = await pay(b.session_id);
    const paidA = await pay(a.session_id);
    expect(paidB.headers.get('location')).toBe(`/payment/success?session_id=${b.session_id}`);
    expect(paidA.headers.get('location')).toBe(`/payment/success?session_id=${a.session_id}`);

    const [refund] = await q<{ id: string; amount_cents: number; reason: string }>(
      h,
      `SELECT id, amount_cents, reason FROM payments.local_provider_refunds WHERE session_id = $1`,
      [a.session_id],
    );
    expect(refund).toMatchObject({ amount_cents: 100, reason: 'duplicate' });
    expect(refund.id).toMatch(/^re_local_/);
    const ledger = await ledgerOf(h, jobId);
    expect(ledger).toEqual([
      { kind: 'payment', amount_cents: 100, session_id: b.session_id, refund_id: null },
      { kind: 'duplicate_payment', amount_cents: 100, session_id: a.session_id, refund_id: null },
      { kind: 'refund', amount_cents: -100, session_id: a.session_id, refund_id: refund.id },
    ]);
    expect(await countOutbox(h, 'JobPaid', jobId)).toBe(1);

    expect(await status(h, b.session_id, posterId)).toEqual({
      payment_status: 'paid',
      job_id: jobId,
    });
    expect(await status(h, a.session_id, posterId)).toEqual({
      payment_status: 'refunded',
      job_id: jobId,
    });

    const after = await overview(h);
    expect(after.total_payments - before.total_payments).toBe(1);
    expect(after.total_refunds - before.total_refunds).toBe(1);
    expect(after.pending_refunds_count).toBe(before.pending_refunds_count);

    // Paying again, and the same webhook redelivered or sent as another event, change nothing.
    expect((await pay(a.session_id)).status).toBe(303);
    const [evt] = await q<{ id: string }>(
      h,
      `SELECT id FROM payments.provider_events WHERE object_id = $1`,
      [a.session_id],
    );
    const obj = {
      id: a.session_id,
      object: 'checkout.session',
      payment_status: 'paid',
      status: 'complete',
      metadata: { job_id: jobId },
      amount_total: 100,
      currency: 'usd',
    };
    for (const e of [
      signedWebhook(DEV_LOCAL_WEBHOOK_SECRET, 'checkout.session.completed', obj, { id: evt.id }),
      signedWebhook(DEV_LOCAL_WEBHOOK_SECRET, 'checkout.session.async_payment_succeeded', obj),
    ]) {
      const res = await postWebhook(h, e.payload, e.header);
      expect(res.status).toBe(200);
    }
    expect(await ledgerOf(h, jobId)).toEqual(ledger);
    expect(
      await q(
        h,
        `SELECT count(*)::int AS n FROM payments.local_provider_refunds WHERE session_id = $1`,
        [a.session_id],
      ),
    ).toEqual([{ n: 1 }]);
    expect(await overview(h)).toEqual(after);
    // The refund is announced once, with the amount the overview counts (analytics sums these).
    const refunded = await q<{ envelope: { data: Record<string, unknown> } }>(
      h,
      `SELECT envelope FROM payments.outbox WHERE type = 'PaymentRefunded' AND subject = $1`,
      [jobId],
    );
    expect(refunded.map((r) => r.envelope.data)).toEqual([
      expect.objectContaining({
        jobId,
        sessionId: a.session_id,
        amountCents: 100,
        reason: 'duplicate',
        posterId,
      }),
    ]);
  });
});

describe('stripe provider: duplicate payments refunded through the refunds API', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('dup_stripe', 'stripe');
  });
  afterAll(async () => {
    await h?.close();
  });

  const paidEvent = (sessionId: string, type = 'checkout.session.completed', id?: string) =>
    signedWebhook(STRIPE_WEBHOOK_SECRET, type, h.stripe!.sessions.get(sessionId)!, { id });
  const refundRequests = () => h.stripe!.seen('POST', '/v1/refunds');

  it('expires at Stripe the surplus sessions of simultaneous checkout requests, answering one session', async () => {
    const jobId = randomUUID();
    const posterId = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => checkout(h, jobId, posterId, i + 1)),
    );
    expect(new Set(answers.map((a) => a.session_id)).size).toBe(1);
    const kept = answers[0].session_id;
    const atStripe = [...h.stripe!.sessions.values()].filter(
      (s) => (s.metadata as Record<string, string>).job_id === jobId,
    );
    expect(atStripe.filter((s) => s.status === 'open').map((s) => s.id)).toEqual([kept]);
    for (const s of atStripe.filter((x) => x.id !== kept)) {
      expect(s.status).toBe('expired');
      expect(h.stripe!.seen('POST', `/v1/checkout/sessions/${String(s.id)}/expire`)).toHaveLength(
        1,
      );
    }
    expect(h.stripe!.seen('POST', `/v1/checkout/sessions/${kept}/expire`)).toHaveLength(0);
  });

  it('answers 409 and records the payment when the open session was paid at Stripe but its webhook is late', async () => {
    const jobId = randomUUID();
    const posterId = randomUUID();
    const a = await checkout(h, jobId, posterId, 1);
    h.stripe!.pay(a.session_id);
    const again = await createCheckout(h, {
      job_id: jobId,
      poster_id: posterId,
      title: 'x',
      attempt: 2,
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'already_paid' });
    expect((await ledgerOf(h, jobId)).map((e) => [e.kind, e.session_id])).toEqual([
      ['payment', a.session_id],
    ]);
  });

  it('of two sessions paid at the same moment, records one payment and refunds the other once, with its payment intent', async () => {
    const jobId = randomUUID();
    const posterId = randomUUID();
    const [a, b] = await twoPayableSessions(h, jobId, posterId);
    h.stripe!.pay(a.session_id);
    h.stripe!.pay(b.session_id);
    const events = [paidEvent(a.session_id), paidEvent(b.session_id)];
    const before = refundRequests().length;
    const answers = await Promise.all(events.map((e) => postWebhook(h, e.payload, e.header)));
    expect(answers.map((r) => r.status)).toEqual([200, 200]);

    const ledger = await ledgerOf(h, jobId);
    expect(ledger.map((e) => e.kind)).toEqual(['payment', 'duplicate_payment', 'refund']);
    const winner = ledger[0].session_id;
    const loser = winner === a.session_id ? b.session_id : a.session_id;
    expect(ledger.slice(1).map((e) => [e.session_id, e.amount_cents])).toEqual([
      [loser, 100],
      [loser, -100],
    ]);

    const calls = refundRequests().slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0].form).toMatchObject({
      payment_intent: h.stripe!.sessions.get(loser)!.payment_intent,
      amount: '100',
      reason: 'duplicate',
      'metadata[job_id]': jobId,
    });
    expect(calls[0].headers['idempotency-key']).toBe(`refund-${loser}`);
    const [refund] = [...h.stripe!.refunds.values()].filter(
      (r) => r.payment_intent === h.stripe!.sessions.get(loser)!.payment_intent,
    );
    expect(ledger[2].refund_id).toBe(refund.id);
    expect(await countOutbox(h, 'JobPaid', jobId)).toBe(1);
    expect(await status(h, winner, posterId)).toEqual({ payment_status: 'paid', job_id: jobId });
    expect(await status(h, loser, posterId)).toEqual({ payment_status: 'refunded', job_id: jobId });

    // Stripe redelivers both events, and sends async_payment_succeeded for both: nothing changes.
    const redelivered = [
      ...events,
      ...events
        .map((e) => JSON.parse(e.payload) as { id: string; data: { object: { id: string } } })
        .map((e) => paidEvent(e.data.object.id, 'checkout.session.async_payment_succeeded')),
    ];
    for (const e of redelivered)
      expect((await postWebhook(h, e.payload, e.header)).status).toBe(200);
    expect(await ledgerOf(h, jobId)).toEqual(ledger);
    expect(refundRequests().slice(before)).toHaveLength(1);
  });

  it('keeps the refund pending while Stripe fails (webhook 503, status refund_pending) and makes it on redelivery', async () => {
    const jobId = randomUUID();
    const posterId = randomUUID();
    const [a, b] = await twoPayableSessions(h, jobId, posterId);
    h.stripe!.pay(a.session_id);
    h.stripe!.pay(b.session_id);
    const first = paidEvent(a.session_id);
    expect((await postWebhook(h, first.payload, first.header)).status).toBe(200);
    const before = await overview(h);

    h.stripe!.refundsDown = true;
    const dup = paidEvent(b.session_id);
    const failed = await postWebhook(h, dup.payload, dup.header);
    expect(failed.status).toBe(503);
    expect(await failed.json()).toMatchObject({ code: 'refund_pending' });
    expect((await ledgerOf(h, jobId)).map((e) => e.kind)).toEqual(['payment', 'duplicate_payment']);
    expect(await status(h, b.session_id, posterId)).toEqual({
      payment_status: 'refund_pending',
      job_id: jobId,
    });
    expect((await overview(h)).pending_refunds_count).toBe(before.pending_refunds_count + 1);

    h.stripe!.refundsDown = false;
    const again = await postWebhook(h, dup.payload, dup.header);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, outcome: 'duplicate' });
    expect((await ledgerOf(h, jobId)).map((e) => [e.kind, e.session_id])).toEqual([
      ['payment', a.session_id],
      ['duplicate_payment', b.session_id],
      ['refund', b.session_id],
    ]);
    expect(await status(h, b.session_id, posterId)).toEqual({
      payment_status: 'refunded',
      job_id: jobId,
    });
    const after = await overview(h);
    expect(after.pending_refunds_count).toBe(before.pending_refunds_count);
    expect(after.total_refunds).toBe(before.total_refunds + 1);
    expect(after.total_payments).toBe(before.total_payments);
  });
});
