/**
 * Local checkout races and crashes:
 * - a double-click on Pay (or Pay racing Cancel) sends every click to the page that matches what
 *   really happened: a paid poster never lands on "Payment cancelled";
 * - a crash between committing the local payment and sending its webhook: the next start of
 *   payments settles it, and the job becomes visible to testers without anyone polling.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startPayments } from '@htm/payments';
import type { LocalProvider } from '@htm/payments';
import {
  client,
  signInPoster,
  startStack,
  waitFor,
  JOB,
  type Actor,
  type Stack,
} from '../support/stack.js';
import { count } from './helpers.js';

let stack: Stack;
let poster: Actor;
beforeAll(async () => {
  stack = await startStack({ label: 'payment-races', withWorker: false });
  poster = await signInPoster(stack, 'races.poster@gmail.com');
}, 180_000); // starting a stack on a busy machine can take over a minute
afterAll(async () => {
  await stack?.stop();
}, 60_000);

async function post(
  title: string,
): Promise<{ jobId: string; checkoutUrl: string; sessionId: string }> {
  const r = await client(stack, poster.token).post('/api/jobs', {
    ...JOB,
    title,
    geo_rule: 'global_beta',
  });
  expect(r.status).toBe(201);
  return { jobId: r.body.job.id, checkoutUrl: r.body.checkout_url!, sessionId: r.body.session_id! };
}
const click = async (checkoutUrl: string, button: 'pay' | 'cancel') => {
  const r = await fetch(`${stack.url}${checkoutUrl}/${button}`, {
    method: 'POST',
    redirect: 'manual',
  });
  expect(r.status).toBe(303);
  return new URL(r.headers.get('location')!, stack.url).pathname;
};
const paymentStatus = async (sessionId: string) =>
  (await client(stack, poster.token).get(`/api/payments/checkout/status/${sessionId}`)).body
    .payment_status;

describe('local checkout races', () => {
  it('sends every click of a double-clicked Pay to "payment successful"', async () => {
    for (let round = 0; round < 3; round++) {
      const { checkoutUrl, sessionId } = await post(`Double click ${round}`);
      const pages = await Promise.all([
        click(checkoutUrl, 'pay'),
        click(checkoutUrl, 'pay'),
        click(checkoutUrl, 'pay'),
      ]);
      expect(pages).toEqual(['/payment/success', '/payment/success', '/payment/success']);
      expect(await paymentStatus(sessionId)).toBe('paid');
    }
  });

  it('sends Pay racing Cancel to the page of whichever won', async () => {
    for (let round = 0; round < 4; round++) {
      const { checkoutUrl, sessionId } = await post(`Pay or cancel ${round}`);
      const [payPage, cancelPage] = await Promise.all([
        click(checkoutUrl, 'pay'),
        click(checkoutUrl, 'cancel'),
      ]);
      const paid = (await paymentStatus(sessionId)) === 'paid';
      const expected = paid ? '/payment/success' : '/payment/cancel';
      expect([payPage, cancelPage]).toEqual([expected, expected]);
    }
  });
});

describe('a crash between the local payment and its webhook', () => {
  it('is settled when payments starts again: the job is paid and published without a status poll', async () => {
    const { jobId, sessionId } = await post('Paid, then the process died');
    // The provider side commits the payment; the process dies before the webhook leaves.
    const provider = stack.payments.deps.provider as unknown as LocalProvider;
    expect(await provider.complete(sessionId)).toBeTruthy();
    const paidInJobs = async () =>
      (
        await stack.sql<{ payment_status: string }>(
          'SELECT payment_status FROM jobs.jobs WHERE id = $1',
          [jobId],
        )
      )[0]?.payment_status === 'paid';
    expect(await paidInJobs()).toBe(false);

    const restarted = await startPayments({ ...stack.env }, { port: 0 });
    try {
      await waitFor(paidInJobs, 'JobPaid after the restart', 20_000);
      expect(
        await count(
          stack,
          `SELECT count(*) AS n FROM payments.ledger_entries WHERE kind = 'payment' AND job_id = $1`,
          [jobId],
        ),
      ).toBe(1);
      expect(
        await count(
          stack,
          `SELECT count(*) AS n FROM payments.outbox WHERE type = 'JobPaid' AND subject = $1`,
          [jobId],
        ),
      ).toBe(1);
    } finally {
      await restarted.stop();
    }
  });
});
