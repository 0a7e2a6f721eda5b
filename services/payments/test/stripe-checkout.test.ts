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

let h: Harness;

beforeAll(async () => {
  h = await startHarness('stripe_checkout', 'stripe');
});
afterAll(async () => {
  await h?.close();
});

async function newCheckout(posterId = randomUUID(), jobId = randomUUID(), attempt = 1) {
  const res = await createCheckout(h, {
    job_id: jobId,
    poster_id: posterId,
    title: 'Check my signup flow',
    attempt,
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { checkout_url: string; session_id: string };
  return { ...body, jobId, posterId };
}

function sessionObject(id: string, jobId: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    object: 'checkout.session',
    payment_status: 'paid',
    status: 'complete',
    metadata: { job_id: jobId },
    client_reference_id: jobId,
    amount_total: 100,
    currency: 'usd',
    ...extra,
  };
}

const countPayments = (jobId: string) =>
  q<{ n: number }>(
    h,
    `SELECT count(*)::int AS n FROM payments.ledger_entries WHERE kind = 'payment' AND job_id = $1`,
    [jobId],
  );
const countOutbox = (type: string, jobId: string) =>
  q<{ n: number }>(
    h,
    `SELECT count(*)::int AS n FROM payments.outbox WHERE type = $1 AND subject = $2`,
    [type, jobId],
  );

describe('POST /internal/checkout-sessions (stripe provider through the official SDK)', () => {
  it('asks Stripe for a $1.00 USD payment-mode session with the job in metadata, return URLs and an idempotency key', async () => {
    const before = h.stripe!.seen('POST', '/v1/checkout/sessions').length;
    const { checkout_url, session_id, jobId, posterId } = await newCheckout();
    const reqs = h.stripe!.seen('POST', '/v1/checkout/sessions');
    expect(reqs.length).toBe(before + 1);
    const req = reqs[reqs.length - 1];
    expect(req.form).toMatchObject({
      mode: 'payment',
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][unit_amount]': '100',
      'metadata[job_id]': jobId,
      'metadata[poster_id]': posterId,
      client_reference_id: jobId,
      success_url: 'http://localhost:8080/payment/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://localhost:8080/payment/cancel',
    });
    expect(req.headers['idempotency-key']).toBe(`checkout-${jobId}-1`);
    expect(req.headers.authorization).toBe('Bearer sk_test_standin');
    expect(checkout_url).toBe(`https://checkout.stripe.com/c/pay/${session_id}`);
    const rows = await q(
      h,
      'SELECT job_id, poster_id, title, status, amount_cents FROM payments.checkout_sessions WHERE id = $1',
      [session_id],
    );
    expect(rows).toEqual([
      {
        job_id: jobId,
        poster_id: posterId,
        title: 'Check my signup flow',
        status: 'open',
        amount_cents: 100,
      },
    ]);
  });

  it('asks Stripe for one line item of quantity N for a pack, and books $1 and a JobPaid for each of its jobs when paid', async () => {
    const posterId = randomUUID();
    const jobIds = [randomUUID(), randomUUID(), randomUUID()];
    const res = await createCheckout(h, {
      job_id: jobIds[0],
      poster_id: posterId,
      title: 'Three testers on my shop',
      attempt: 1,
      job_ids: jobIds,
    });
    expect(res.status).toBe(200);
    const { session_id } = (await res.json()) as { session_id: string };
    const req = h.stripe!.seen('POST', '/v1/checkout/sessions').at(-1)!;
    expect(req.form).toMatchObject({
      'line_items[0][quantity]': '3',
      'line_items[0][price_data][unit_amount]': '100',
      'metadata[job_id]': jobIds[0],
    });
    expect(
      await q(h, 'SELECT amount_cents, job_ids FROM payments.checkout_sessions WHERE id = $1', [
        session_id,
      ]),
    ).toEqual([{ amount_cents: 300, job_ids: jobIds }]);

    const { payload, header } = signedWebhook(
      STRIPE_WEBHOOK_SECRET,
      'checkout.session.completed',
      sessionObject(session_id, jobIds[0], { amount_total: 300 }),
    );
    expect((await postWebhook(h, payload, header)).status).toBe(200);
    for (const jobId of jobIds) {
      expect(
        await q(
          h,
          `SELECT amount_cents, session_id FROM payments.ledger_entries WHERE kind = 'payment' AND job_id = $1`,
          [jobId],
        ),
      ).toEqual([{ amount_cents: 100, session_id }]);
      expect(await countOutbox('JobPaid', jobId)).toEqual([{ n: 1 }]);
    }
  });

  it("answers the job's open session to every new attempt, and a new session (new attempt's key) once it has expired", async () => {
    const first = await newCheckout();
    const again = await newCheckout(first.posterId, first.jobId, 1);
    expect(again.session_id).toBe(first.session_id);
    const whileOpen = await newCheckout(first.posterId, first.jobId, 2);
    expect(whileOpen.session_id).toBe(first.session_id);
    expect(
      h
        .stripe!.seen('POST', '/v1/checkout/sessions')
        .filter((r) => r.form['metadata[job_id]'] === first.jobId),
    ).toHaveLength(1);

    // The session expired at Stripe (its webhook lost): the next attempt learns it and opens a new one.
    h.stripe!.sessions.get(first.session_id)!.status = 'expired';
    const retry = await newCheckout(first.posterId, first.jobId, 3);
    expect(retry.session_id).not.toBe(first.session_id);
    expect(h.stripe!.requests.at(-1)!.headers['idempotency-key']).toBe(`checkout-${first.jobId}-3`);
    expect(
      await q(
        h,
        'SELECT id, status FROM payments.checkout_sessions WHERE job_id = $1 ORDER BY created_at',
        [first.jobId],
      ),
    ).toEqual([
      { id: first.session_id, status: 'expired' },
      { id: retry.session_id, status: 'open' },
    ]);
    expect(await countOutbox('CheckoutCancelled', first.jobId)).toEqual([{ n: 1 }]);
  });

  it('refuses callers without a jobs service token and bad bodies, creating nothing', async () => {
    const before = h.stripe!.requests.length;
    const noToken = await fetch(`${h.svc.url}/internal/checkout-sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(noToken.status).toBe(401);
    const wrongService = await createCheckout(
      h,
      { job_id: 'j', poster_id: 'p', title: 't', attempt: 1 },
      'admin',
    );
    expect(wrongService.status).toBe(403);
    const bad = await createCheckout(h, { job_id: '', poster_id: 'p', title: '   ', attempt: 1.5 });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { code: string; errors: Record<string, string[]> };
    expect(body.code).toBe('validation_error');
    expect(Object.keys(body.errors).sort()).toEqual(['attempt', 'job_id', 'title']);
    expect(h.stripe!.requests.length).toBe(before);
  });
});

describe('POST /api/payments/webhook', () => {
  it('records a validly signed checkout.session.completed: one ledger payment and one JobPaid', async () => {
    const c = await newCheckout();
    const { payload, header } = signedWebhook(
      STRIPE_WEBHOOK_SECRET,
      'checkout.session.completed',
      sessionObject(c.session_id, c.jobId),
    );
    const res = await postWebhook(h, payload, header);
    expect(res.status).toBe(200);
    expect(await countPayments(c.jobId)).toEqual([{ n: 1 }]);
    const [paid] = await q<{ envelope: { data: Record<string, unknown> } }>(
      h,
      `SELECT envelope FROM payments.outbox WHERE type = 'JobPaid' AND subject = $1`,
      [c.jobId],
    );
    expect(paid.envelope.data).toMatchObject({
      jobId: c.jobId,
      sessionId: c.session_id,
      posterId: c.posterId,
      amountCents: 100,
    });
    const [entry] = await q(
      h,
      `SELECT amount_cents, poster_id, session_id FROM payments.ledger_entries WHERE kind = 'payment' AND job_id = $1`,
      [c.jobId],
    );
    expect(entry).toEqual({ amount_cents: 100, poster_id: c.posterId, session_id: c.session_id });
  });

  it('answers 400 in the error shape to a tampered body and records nothing', async () => {
    const c = await newCheckout();
    const { payload, header } = signedWebhook(
      STRIPE_WEBHOOK_SECRET,
      'checkout.session.completed',
      sessionObject(c.session_id, c.jobId, { payment_status: 'unpaid' }),
    );
    const tampered = payload.replace('"payment_status":"unpaid"', '"payment_status":"paid"');
    expect(tampered).not.toBe(payload);
    const res = await postWebhook(h, tampered, header);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      detail: 'Webhook signature verification failed.',
      code: 'invalid_signature',
    });
    expect(await countPayments(c.jobId)).toEqual([{ n: 0 }]);
  });

  it('answers 400 to a signature with the wrong secret, a missing header and a stale (> 5 min) timestamp', async () => {
    const c = await newCheckout();
    const obj = sessionObject(c.session_id, c.jobId);
    const wrong = signedWebhook('whsec_someone_else', 'checkout.session.completed', obj);
    expect((await postWebhook(h, wrong.payload, wrong.header)).status).toBe(400);
    const missing = await fetch(`${h.svc.url}/api/payments/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: wrong.payload,
    });
    expect(missing.status).toBe(400);
    const stale = signedWebhook(STRIPE_WEBHOOK_SECRET, 'checkout.session.completed', obj, {
      timestamp: Math.floor(Date.now() / 1000) - 301,
    });
    const res = await postWebhook(h, stale.payload, stale.header);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid_signature' });
    expect(await countPayments(c.jobId)).toEqual([{ n: 0 }]);
    expect(await q(h, 'SELECT id FROM payments.provider_events WHERE id = $1', [stale.id])).toEqual(
      [],
    );
  });

  it('turns 20 concurrent deliveries of one event into one ledger payment and one JobPaid', async () => {
    const c = await newCheckout();
    const { payload, header } = signedWebhook(
      STRIPE_WEBHOOK_SECRET,
      'checkout.session.completed',
      sessionObject(c.session_id, c.jobId),
    );
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => postWebhook(h, payload, header)),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(await countPayments(c.jobId)).toEqual([{ n: 1 }]);
    expect(await countOutbox('JobPaid', c.jobId)).toEqual([{ n: 1 }]);
  });

  it('pays a job once however many different events arrive, and ignores a late expiry', async () => {
    const c = await newCheckout();
    const obj = sessionObject(c.session_id, c.jobId);
    const paidEvents = [
      signedWebhook(STRIPE_WEBHOOK_SECRET, 'checkout.session.async_payment_succeeded', obj),
      signedWebhook(STRIPE_WEBHOOK_SECRET, 'checkout.session.completed', obj),
    ];
    await Promise.all(paidEvents.map((e) => postWebhook(h, e.payload, e.header)));
    const lateExpiry = signedWebhook(STRIPE_WEBHOOK_SECRET, 'checkout.session.expired', {
      ...obj,
      status: 'expired',
      payment_status: 'unpaid',
    });
    for (const e of [...paidEvents, lateExpiry])
      expect((await postWebhook(h, e.payload, e.header)).status).toBe(200);
    expect(await countPayments(c.jobId)).toEqual([{ n: 1 }]);
    expect(await countOutbox('JobPaid', c.jobId)).toEqual([{ n: 1 }]);
    expect(await countOutbox('CheckoutCancelled', c.jobId)).toEqual([{ n: 0 }]);
    expect(
      await q(h, 'SELECT status FROM payments.checkout_sessions WHERE id = $1', [c.session_id]),
    ).toEqual([{ status: 'paid' }]);
  });

  it('does not pay on a completed-but-unpaid (delayed method) session, and emits CheckoutCancelled on expiry', async () => {
    const c = await newCheckout();
    const unpaid = signedWebhook(
      STRIPE_WEBHOOK_SECRET,
      'checkout.session.completed',
      sessionObject(c.session_id, c.jobId, { payment_status: 'unpaid' }),
    );
    expect((await postWebhook(h, unpaid.payload, unpaid.header)).status).toBe(200);
    expect(await countPayments(c.jobId)).toEqual([{ n: 0 }]);
    const expired = signedWebhook(
      STRIPE_WEBHOOK_SECRET,
      'checkout.session.expired',
      sessionObject(c.session_id, c.jobId, { payment_status: 'unpaid', status: 'expired' }),
    );
    expect((await postWebhook(h, expired.payload, expired.header)).status).toBe(200);
    const [row] = await q<{ envelope: { data: Record<string, unknown> } }>(
      h,
      `SELECT envelope FROM payments.outbox WHERE type = 'CheckoutCancelled' AND subject = $1`,
      [c.jobId],
    );
    expect(row.envelope.data).toEqual({
      jobId: c.jobId,
      sessionId: c.session_id,
      posterId: c.posterId,
      reason: 'expired',
    });
    const poster = await bearer(h, { id: c.posterId, type: 'poster' });
    const status = await fetch(`${h.svc.url}/api/payments/checkout/status/${c.session_id}`, {
      headers: poster,
    });
    expect(await status.json()).toEqual({ payment_status: 'expired', job_id: c.jobId });
  });
});

describe('GET /api/payments/checkout/status/:session_id', () => {
  it('recovers a lost webhook: asks Stripe, which says paid, and records the payment and JobPaid once', async () => {
    const c = await newCheckout();
    const poster = await bearer(h, { id: c.posterId, type: 'poster' });
    const url = `${h.svc.url}/api/payments/checkout/status/${c.session_id}`;

    const unpaid = await fetch(url, { headers: poster });
    expect(await unpaid.json()).toEqual({ payment_status: 'unpaid', job_id: c.jobId });
    expect(h.stripe!.seen('GET', `/v1/checkout/sessions/${c.session_id}`).length).toBe(1);

    Object.assign(h.stripe!.sessions.get(c.session_id)!, {
      status: 'complete',
      payment_status: 'paid',
    });
    const paid = await Promise.all([
      fetch(url, { headers: poster }),
      fetch(url, { headers: poster }),
    ]);
    for (const r of paid)
      expect(await r.json()).toEqual({ payment_status: 'paid', job_id: c.jobId });
    expect(await countPayments(c.jobId)).toEqual([{ n: 1 }]);
    expect(await countOutbox('JobPaid', c.jobId)).toEqual([{ n: 1 }]);

    // Once paid, the answer comes from our own records; the late webhook changes nothing.
    const calls = h.stripe!.seen('GET', `/v1/checkout/sessions/${c.session_id}`).length;
    expect(await (await fetch(url, { headers: poster })).json()).toEqual({
      payment_status: 'paid',
      job_id: c.jobId,
    });
    expect(h.stripe!.seen('GET', `/v1/checkout/sessions/${c.session_id}`).length).toBe(calls);
    const late = signedWebhook(
      STRIPE_WEBHOOK_SECRET,
      'checkout.session.completed',
      sessionObject(c.session_id, c.jobId),
    );
    expect((await postWebhook(h, late.payload, late.header)).status).toBe(200);
    expect(await countOutbox('JobPaid', c.jobId)).toEqual([{ n: 1 }]);
  });

  it("lets only the session's poster and the admin read it", async () => {
    const c = await newCheckout();
    const url = `${h.svc.url}/api/payments/checkout/status/${c.session_id}`;
    expect((await fetch(url)).status).toBe(401);
    const other = await fetch(url, { headers: await bearer(h, { type: 'poster' }) });
    expect(other.status).toBe(403);
    expect(await other.json()).toMatchObject({ code: 'not_your_session' });
    expect((await fetch(url, { headers: await bearer(h, { type: 'tester' }) })).status).toBe(403);
    const admin = await fetch(url, { headers: await bearer(h, { type: 'admin' }) });
    expect(admin.status).toBe(200);
    expect(await admin.json()).toEqual({ payment_status: 'unpaid', job_id: c.jobId });
    const unknown = await fetch(`${h.svc.url}/api/payments/checkout/status/cs_test_nope`, {
      headers: await bearer(h, { type: 'poster' }),
    });
    expect(unknown.status).toBe(404);
    expect(
      (
        await fetch(
          `${h.svc.url}/api/payments/checkout/status/${encodeURIComponent("x' OR 1=1")}`,
          { headers: await bearer(h, { type: 'poster' }) },
        )
      ).status,
    ).toBe(404);
  });

  it('refuses a second checkout for a job that is already paid (409)', async () => {
    const c = await newCheckout();
    const e = signedWebhook(
      STRIPE_WEBHOOK_SECRET,
      'checkout.session.completed',
      sessionObject(c.session_id, c.jobId),
    );
    await postWebhook(h, e.payload, e.header);
    const again = await createCheckout(h, {
      job_id: c.jobId,
      poster_id: c.posterId,
      title: 'x',
      attempt: 2,
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'already_paid' });
  });
});
