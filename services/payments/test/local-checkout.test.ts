import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  bearer,
  createCheckout,
  eventually,
  postWebhook,
  q,
  signedWebhook,
  startHarness,
  type Harness,
} from './support/harness.js';
import { DEV_LOCAL_WEBHOOK_SECRET } from '../src/config.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('local_checkout', 'local');
});
afterAll(async () => {
  await h?.close();
});

async function newCheckout(title = 'Try my <b>pricing</b> page') {
  const jobId = randomUUID();
  const posterId = randomUUID();
  const res = await createCheckout(h, { job_id: jobId, poster_id: posterId, title, attempt: 1 });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { checkout_url: string; session_id: string };
  return { ...body, jobId, posterId };
}

const post = (path: string) =>
  fetch(`${h.svc.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });

describe('local provider checkout (PAYMENTS_PROVIDER=local)', () => {
  it('answers checkout_url /api/payments/local/checkout/{session_id} with a cs_local_ session id', async () => {
    const c = await newCheckout();
    expect(c.session_id).toMatch(/^cs_local_[A-Za-z0-9]{24}$/);
    expect(c.checkout_url).toBe(`/api/payments/local/checkout/${c.session_id}`);
    const [row] = await q(
      h,
      'SELECT success_url, cancel_url, amount_cents FROM payments.local_provider_sessions WHERE id = $1',
      [c.session_id],
    );
    expect(row).toEqual({
      success_url: 'http://localhost:8080/payment/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://localhost:8080/payment/cancel',
      amount_cents: 100,
    });
  });

  it('serves an HTML page with the escaped job title, $1.00, and Pay/Cancel as plain forms without script', async () => {
    const c = await newCheckout();
    const res = await fetch(`${h.svc.url}${c.checkout_url}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    // Its one <style> is allowed by hash only: no 'unsafe-inline'.
    expect(res.headers.get('content-security-policy')).toMatch(
      /style-src 'sha256-[A-Za-z0-9+/=]+';/,
    );
    const html = await res.text();
    expect(html).toContain('Try my &lt;b&gt;pricing&lt;/b&gt; page');
    expect(html).not.toContain('<b>pricing</b>');
    expect(html).toContain('$1.00');
    expect(html).toContain(
      `<form method="post" action="/api/payments/local/checkout/${c.session_id}/pay">`,
    );
    expect(html).toContain(
      `<form method="post" action="/api/payments/local/checkout/${c.session_id}/cancel">`,
    );
    expect(html).toMatch(/<button class="pay" type="submit">Pay \$1\.00<\/button>/);
    expect(html).toMatch(/<button class="cancel" type="submit">Cancel<\/button>/);
    expect(html).not.toMatch(/<script|style=|onclick/i);
    expect((await fetch(`${h.svc.url}/api/payments/local/checkout/cs_local_unknown`)).status).toBe(
      404,
    );
  });

  it('Pay sends a signed checkout.session.completed webhook, answers 303 to /payment/success and publishes JobPaid', async () => {
    const c = await newCheckout();
    const res = await post(`/api/payments/local/checkout/${c.session_id}/pay`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/payment/success?session_id=${c.session_id}`);

    // The webhook went through the real signature check and the provider-event store.
    const [evt] = await q<{ id: string; type: string }>(
      h,
      'SELECT id, type FROM payments.provider_events WHERE object_id = $1',
      [c.session_id],
    );
    expect(evt.type).toBe('checkout.session.completed');
    expect(evt.id).toMatch(/^evt_/);
    expect(
      await q(
        h,
        `SELECT amount_cents FROM payments.ledger_entries WHERE kind = 'payment' AND job_id = $1`,
        [c.jobId],
      ),
    ).toEqual([{ amount_cents: 100 }]);
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
    // And it reached the bus (the relay published it).
    await eventually(
      async () =>
        (
          await q<{ p: string | null }>(
            h,
            `SELECT published_at AS p FROM payments.outbox WHERE type = 'JobPaid' AND subject = $1`,
            [c.jobId],
          )
        )[0]?.p,
    );

    const poster = await bearer(h, { id: c.posterId, type: 'poster' });
    expect(
      await (
        await fetch(`${h.svc.url}/api/payments/checkout/status/${c.session_id}`, {
          headers: poster,
        })
      ).json(),
    ).toEqual({ payment_status: 'paid', job_id: c.jobId });

    // Paying twice changes nothing.
    const again = await post(`/api/payments/local/checkout/${c.session_id}/pay`);
    expect(again.status).toBe(303);
    expect(
      await q(
        h,
        `SELECT count(*)::int AS n FROM payments.outbox WHERE type = 'JobPaid' AND subject = $1`,
        [c.jobId],
      ),
    ).toEqual([{ n: 1 }]);
  });

  it('Cancel answers 303 to /payment/cancel, emits CheckoutCancelled and leaves the job unpaid', async () => {
    const c = await newCheckout();
    const res = await post(`/api/payments/local/checkout/${c.session_id}/cancel`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/payment/cancel');
    const [evt] = await q<{ envelope: { data: Record<string, unknown> } }>(
      h,
      `SELECT envelope FROM payments.outbox WHERE type = 'CheckoutCancelled' AND subject = $1`,
      [c.jobId],
    );
    expect(evt.envelope.data).toEqual({
      jobId: c.jobId,
      sessionId: c.session_id,
      reason: 'cancelled',
      posterId: c.posterId,
    });
    expect(
      await q(h, `SELECT count(*)::int AS n FROM payments.ledger_entries WHERE job_id = $1`, [
        c.jobId,
      ]),
    ).toEqual([{ n: 0 }]);
    expect(
      await q(
        h,
        `SELECT count(*)::int AS n FROM payments.outbox WHERE type = 'JobPaid' AND subject = $1`,
        [c.jobId],
      ),
    ).toEqual([{ n: 0 }]);

    // A cancelled checkout can no longer be paid.
    const pay = await post(`/api/payments/local/checkout/${c.session_id}/pay`);
    expect(pay.status).toBe(303);
    expect(pay.headers.get('location')).toBe('/payment/cancel');
    const poster = await bearer(h, { id: c.posterId, type: 'poster' });
    expect(
      await (
        await fetch(`${h.svc.url}/api/payments/checkout/status/${c.session_id}`, {
          headers: poster,
        })
      ).json(),
    ).toEqual({ payment_status: 'expired', job_id: c.jobId });
    expect(
      await q(h, `SELECT count(*)::int AS n FROM payments.ledger_entries WHERE job_id = $1`, [
        c.jobId,
      ]),
    ).toEqual([{ n: 0 }]);
  });

  it('recovers from a lost local webhook through the status call (the local provider says paid)', async () => {
    const c = await newCheckout();
    // The provider side completes, but the webhook never arrives.
    await q(
      h,
      `UPDATE payments.local_provider_sessions SET status = 'complete', payment_status = 'paid' WHERE id = $1`,
      [c.session_id],
    );
    const poster = await bearer(h, { id: c.posterId, type: 'poster' });
    const res = await fetch(`${h.svc.url}/api/payments/checkout/status/${c.session_id}`, {
      headers: poster,
    });
    expect(await res.json()).toEqual({ payment_status: 'paid', job_id: c.jobId });
    expect(
      await q(
        h,
        `SELECT count(*)::int AS n FROM payments.outbox WHERE type = 'JobPaid' AND subject = $1`,
        [c.jobId],
      ),
    ).toEqual([{ n: 1 }]);
  });

  it('verifies local webhooks with the local secret like Stripe ones', async () => {
    const c = await newCheckout();
    const obj = {
      id: c.session_id,
      object: 'checkout.session',
      payment_status: 'paid',
      status: 'complete',
      metadata: { job_id: c.jobId },
      amount_total: 100,
      currency: 'usd',
    };
    const forged = signedWebhook('whsec_not_the_local_secret', 'checkout.session.completed', obj);
    expect((await postWebhook(h, forged.payload, forged.header)).status).toBe(400);
    const genuine = signedWebhook(DEV_LOCAL_WEBHOOK_SECRET, 'checkout.session.completed', obj);
    expect((await postWebhook(h, genuine.payload, genuine.header)).status).toBe(200);
    expect(
      await q(
        h,
        `SELECT count(*)::int AS n FROM payments.ledger_entries WHERE kind = 'payment' AND job_id = $1`,
        [c.jobId],
      ),
    ).toEqual([{ n: 1 }]);
  });
});

describe('local checkout redirects with WEB_ORIGIN set', () => {
  it('redirects to WEB_ORIGIN/payment/success', async () => {
    const h2 = await startHarness('local_checkout_origin', 'local', {
      WEB_ORIGIN: 'http://app.example.test',
    });
    try {
      const res = await createCheckout(h2, {
        job_id: randomUUID(),
        poster_id: randomUUID(),
        title: 'x',
        attempt: 1,
      });
      const { session_id } = (await res.json()) as { session_id: string };
      const pay = await fetch(`${h2.svc.url}/api/payments/local/checkout/${session_id}/pay`, {
        method: 'POST',
        redirect: 'manual',
      });
      expect(pay.status).toBe(303);
      expect(pay.headers.get('location')).toBe(
        `http://app.example.test/payment/success?session_id=${session_id}`,
      );
    } finally {
      await h2.close();
    }
  });
});
