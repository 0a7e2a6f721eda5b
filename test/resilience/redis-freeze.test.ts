/**
 * A hung Redis (its own redis-server child frozen with SIGSTOP: the port stays open, connections
 * stay up, nothing answers). Sign-in and payment, whose only Redis calls are rate limits, go on
 * working: every Redis call on the request path is bounded and rate limits fail open. Once
 * Redis answers again the events that waited are delivered.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signIn as devSignIn } from '@htm/identity/testing';
import {
  client,
  signInPoster,
  startStack,
  waitFor,
  JOB,
  type Actor,
  type Stack,
} from '../support/stack.js';
import { freePort, RedisChild } from './helpers.js';

let redis: RedisChild;
let stack: Stack;
let poster: Actor;
beforeAll(async () => {
  redis = new RedisChild(await freePort());
  await redis.start();
  // Real limits (not the stack's huge test ones): the limiters must really be consulted.
  stack = await startStack({
    label: 'redis-freeze',
    withWorker: false,
    env: {
      REDIS_URL: redis.url,
      AUTH_RATE_LIMIT_PER_MINUTE: '60',
      FORM_RATE_LIMIT_PER_MINUTE: '20',
    },
  });
  poster = await signInPoster(stack, 'freeze.poster@gmail.com');
}, 180_000); // starting a stack on a busy machine can take over a minute
afterAll(async () => {
  redis?.thaw();
  await stack?.stop();
  await redis?.kill();
}, 60_000);

/** Fails (instead of waiting forever) when `p` does not settle in a generous time: a request that hangs. */
async function answers<T>(what: string, p: Promise<T>, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(() => reject(new Error(`${what} hung while Redis was frozen`)), ms)),
  );
  try {
    return await Promise.race([p, hung]);
  } finally {
    clearTimeout(timer);
  }
}

describe('Redis frozen (SIGSTOP)', () => {
  it('still signs people in and takes payments, and delivers the waiting events once Redis answers again', async () => {
    const posted = await client(stack, poster.token).post('/api/jobs', {
      ...JOB,
      title: 'Paid while Redis hangs',
      geo_rule: 'global_beta',
    });
    expect(posted.status).toBe(201);
    const jobId = posted.body.job.id;

    redis.freeze();
    try {
      // Sign-in: the dev login (302) and the session exchange (200), both rate-limited in the gateway and in identity.
      const signedIn = await answers(
        'sign-in',
        devSignIn(stack.url, 'frozen.newcomer@gmail.com', { name: 'Frozen' }),
      );
      expect(signedIn.token).toEqual(expect.any(String));
      const me = await answers('GET /api/me', client(stack, signedIn.token).get('/api/me'));
      expect(me.status).toBe(200);
      // Payment through the local checkout: 303 to the success page.
      const pay = await answers(
        'pay',
        fetch(`${stack.url}${posted.body.checkout_url}/pay`, {
          method: 'POST',
          redirect: 'manual',
        }),
      );
      expect(pay.status).toBe(303);
      expect(pay.headers.get('location')).toMatch(/\/payment\/success\?session_id=/);
      // A public form (rate-limited per IP).
      const feedback = await answers(
        'POST /api/feedback',
        client(stack).post('/api/feedback', {
          message: 'Does this work while Redis hangs?',
          email: 'freeze.poster@gmail.com',
        }),
      );
      expect([200, 201]).toContain(feedback.status);
      // The poster sees the payment recorded (payments answers from Postgres).
      const status = await answers(
        'checkout status',
        client(stack, poster.token).get(`/api/payments/checkout/status/${posted.body.session_id}`),
      );
      expect(status.status).toBe(200);
      expect(status.body.payment_status).toBe('paid');
    } finally {
      redis.thaw();
    }
    // The JobPaid event waited in the outbox (or in Redis' socket buffer) and arrives now.
    await waitFor(
      async () =>
        (
          await stack.sql<{ payment_status: string }>(
            'SELECT payment_status FROM jobs.jobs WHERE id = $1',
            [jobId],
          )
        )[0]?.payment_status === 'paid',
      'JobPaid delivered after the freeze',
      30_000,
    );
  }, 120_000);
});
