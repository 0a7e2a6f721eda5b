/**
 * Duplicate, late and out-of-order Stripe webhooks (signed exactly as Stripe signs them, with
 * the local provider's webhook secret) fired concurrently through the gateway, while posters
 * poll the checkout status (which reconciles with the provider): the ledger stays exact.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Stripe from 'stripe';
import {
  client,
  signInPoster,
  startStack,
  waitFor,
  JOB,
  type Actor,
  type Stack,
} from '../support/stack.js';
import { count, sleep } from './helpers.js';

let stack: Stack;
let poster: Actor;
beforeAll(async () => {
  stack = await startStack({ label: 'webhooks', withWorker: false });
  poster = await signInPoster(stack, 'webhooks.poster@gmail.com');
});
afterAll(async () => {
  await stack?.stop();
});

let seq = 0;
function event(
  type: string,
  session: Record<string, unknown>,
  id = `evt_test_${Date.now()}_${seq++}`,
) {
  return {
    id,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: Math.floor(Date.now() / 1000),
    data: { object: session },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}
function sessionObject(
  s: { id: string; jobId: string },
  status: 'open' | 'complete' | 'expired',
  payment: 'paid' | 'unpaid',
  cancelled = false,
) {
  return {
    id: s.id,
    object: 'checkout.session',
    amount_total: 100,
    currency: 'usd',
    client_reference_id: s.jobId,
    metadata: {
      job_id: s.jobId,
      poster_id: poster.id,
      ...(cancelled ? { cancelled_by: 'poster' } : {}),
    },
    mode: 'payment',
    payment_status: payment,
    status,
  };
}
async function send(
  payload: string,
  secret = stack.payments.deps.provider.webhookSecret,
  timestamp = Math.floor(Date.now() / 1000),
) {
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
  const res = await fetch(`${stack.url}/api/payments/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': header },
    body: payload,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
function shuffle<T>(a: T[]): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

describe('duplicate and out-of-order webhooks under load', () => {
  it('records exactly one $1 payment per paid job and none for cancelled ones', async () => {
    const PAID = 12;
    const CANCELLED = 6;
    const sessions: Array<{ id: string; jobId: string }> = [];
    for (let i = 0; i < PAID + CANCELLED; i++) {
      const r = await client(stack, poster.token).post('/api/jobs', {
        ...JOB,
        title: `Webhook job ${i}`,
      });
      expect(r.status).toBe(201);
      sessions.push({ id: r.body.session_id!, jobId: r.body.job.id });
    }
    const paid = sessions.slice(0, PAID);
    const cancelled = sessions.slice(PAID);
    // The provider's side: paid sessions completed, cancelled ones expired (status polls reconcile against this).
    await stack.sql(
      `UPDATE payments.local_provider_sessions SET status = 'complete', payment_status = 'paid' WHERE id = ANY($1::text[])`,
      [paid.map((s) => s.id)],
    );
    await stack.sql(
      `UPDATE payments.local_provider_sessions SET status = 'expired', cancelled_by_user = 'poster' WHERE id = ANY($1::text[])`,
      [cancelled.map((s) => s.id)],
    );

    const payloads: string[] = [];
    for (const s of paid) {
      const completed = JSON.stringify(
        event('checkout.session.completed', sessionObject(s, 'complete', 'paid')),
      );
      const succeeded = JSON.stringify(
        event('checkout.session.async_payment_succeeded', sessionObject(s, 'complete', 'paid')),
      );
      payloads.push(completed, completed, completed, succeeded, succeeded);
      // The earlier state (a delayed method completes unpaid) arriving late, and a stray expiry.
      payloads.push(
        JSON.stringify(event('checkout.session.completed', sessionObject(s, 'complete', 'unpaid'))),
      );
    }
    for (const s of cancelled) {
      const expired = JSON.stringify(
        event('checkout.session.expired', sessionObject(s, 'expired', 'unpaid', true)),
      );
      payloads.push(
        expired,
        expired,
        expired,
        JSON.stringify(
          event('checkout.session.async_payment_failed', sessionObject(s, 'expired', 'unpaid')),
        ),
      );
    }
    // Forged and replayed deliveries in the same storm: refused, no effect.
    const forged = JSON.stringify(
      event('checkout.session.completed', sessionObject(cancelled[0], 'complete', 'paid')),
    );
    const stale = JSON.stringify(
      event('checkout.session.completed', sessionObject(cancelled[1], 'complete', 'paid')),
    );

    const results = await Promise.all([
      ...shuffle(payloads).map((p) => send(p)),
      send(forged, 'whsec_not_the_real_secret_at_all'),
      send(stale, undefined, Math.floor(Date.now() / 1000) - 3600),
      // Posters polling the status at the same time (reconciles with the provider when the webhook is late).
      ...paid.flatMap((s) =>
        [1, 2].map(() => client(stack, poster.token).get(`/api/payments/checkout/status/${s.id}`)),
      ),
    ]);
    const webhookResults = results.slice(0, payloads.length);
    const [forgedRes, staleRes] = results.slice(payloads.length, payloads.length + 2);
    expect(webhookResults.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    expect(forgedRes.status).toBe(400);
    expect(forgedRes.body).toMatchObject({ code: 'invalid_signature' });
    expect(staleRes.status).toBe(400);
    for (const r of results.slice(payloads.length + 2)) expect(r.status).toBe(200);
    const outcomes = webhookResults.map((r) => r.body.outcome);
    console.log(
      `webhooks: ${payloads.length} deliveries -> ${['applied', 'duplicate', 'ignored'].map((o) => `${outcomes.filter((x) => x === o).length} ${o}`).join(', ')}`,
    );

    const ledger = await stack.sql<{ kind: string; n: string; total: string }>(
      `SELECT kind, count(*) AS n, sum(amount_cents) AS total FROM payments.ledger_entries GROUP BY kind`,
    );
    expect(ledger.map((r) => [r.kind, Number(r.n), Number(r.total)])).toEqual([
      ['payment', PAID, PAID * 100],
    ]);
    expect(
      await count(stack, `SELECT count(*) AS n FROM payments.outbox WHERE type = 'JobPaid'`),
    ).toBe(PAID);
    expect(
      await count(
        stack,
        `SELECT count(*) AS n FROM payments.outbox WHERE type = 'CheckoutCancelled'`,
      ),
    ).toBe(CANCELLED);
    // Each distinct provider event stored once.
    expect(await count(stack, `SELECT count(*) AS n FROM payments.provider_events`)).toBe(
      new Set(payloads.map((p) => (JSON.parse(p) as { id: string }).id)).size,
    );

    await waitFor(
      async () =>
        (await count(
          stack,
          `SELECT count(*) AS n FROM jobs.jobs WHERE payment_status = 'paid'`,
        )) === PAID,
      'jobs to learn every payment',
    );
    await sleep(300);
    expect(
      await count(
        stack,
        `SELECT count(*) AS n FROM jobs.jobs WHERE payment_status = 'paid' AND id = ANY($1::uuid[])`,
        [cancelled.map((s) => s.jobId)],
      ),
    ).toBe(0);
    await waitFor(
      async () =>
        (await count(
          stack,
          `SELECT count(*) AS n FROM jobs.jobs WHERE checkout_cancelled_at IS NOT NULL`,
        )) === CANCELLED,
      'jobs to learn every cancellation',
    );

    const admin = await (await import('../support/stack.js')).signInAdmin(stack);
    const overview = await client(stack, admin.token).get('/api/admin/financial-overview');
    expect(overview.body).toMatchObject({ total_payments: PAID });
  }, 60_000);
});
