/**
 * Security hardening (issue #15), through the gateway with every service real: each test here
 * is an attack from the security review that must now fail.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import Stripe from 'stripe';
import { devLogin, exchange, sessionIdOf } from '@htm/identity/testing';
import { startIdentity } from '@htm/identity';
import { startGateway } from '@htm/gateway';
import { embeddedEnv, gatewayEnv } from '../scripts/start-env.js';
import {
  client,
  CookieJar,
  postAndPay,
  signIn,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  waitFor,
  type Actor,
  type Stack,
} from './support/stack.js';

let stack: Stack;
let admin: Actor;
beforeAll(async () => {
  stack = await startStack({ label: 'security', env: { PROVIDER_RATE_LIMIT_PER_MINUTE: '4' } });
  admin = await signInAdmin(stack);
});
afterAll(async () => {
  await stack?.stop();
});

const post = (path: string, body: string, headers: Record<string, string>) =>
  fetch(`${stack.url}${path}`, { method: 'POST', redirect: 'manual', headers, body });

/** POST /api/auth/refresh as the browser holding `jar` (refresh cookie + XSRF header). */
async function refresh(jar: CookieJar) {
  const res = await fetch(`${stack.url}/api/auth/refresh`, {
    method: 'POST',
    headers: { cookie: jar.header(), 'x-xsrf-token': jar.get('XSRF-TOKEN') ?? '' },
  });
  jar.take(res);
  return {
    status: res.status,
    body: (await res.json()) as { access_token?: string; code?: string },
  };
}

describe('login CSRF (finding 2)', () => {
  it("refuses the attacker's session_id in another browser, and the refusal spends nothing", async () => {
    const attacker = await devLogin(stack.url, {
      email: 'sec.attacker@gmail.com',
      intent: 'poster',
    });
    const sid = sessionIdOf(attacker.headers.get('location'));
    expect(attacker.headers.getSetCookie().join('\n')).toMatch(/signin_nonce=[^;]+;.*HttpOnly/i);

    const victim = await exchange(stack.url, sid, new CookieJar());
    expect(victim.res.status).toBe(401);
    expect(victim.body).toMatchObject({ code: 'signin_not_bound' });
    expect(victim.jar.get('refresh_token')).toBeUndefined();

    // The browser that started the sign-in still finishes it.
    const own = await exchange(stack.url, sid, attacker);
    expect(own.res.status).toBe(200);
    expect(own.body.access_token).toEqual(expect.any(String));
  });

  it('refuses a cross-site form post and any /api/auth write from another origin, cookie or not', async () => {
    const login = await devLogin(stack.url, { email: 'sec.form@gmail.com' });
    const sid = sessionIdOf(login.headers.get('location'));
    const cookie = new CookieJar().take(login).header();

    const form = await post('/api/auth/session', `session_id=${sid}`, {
      'content-type': 'application/x-www-form-urlencoded',
      cookie,
    });
    expect(form.status).toBe(415);
    expect(await form.json()).toMatchObject({ code: 'json_required' });
    const text = await post('/api/auth/session', JSON.stringify({ session_id: sid }), {
      'content-type': 'text/plain',
      cookie,
    });
    expect(text.status).toBe(415);

    const json = JSON.stringify({ session_id: sid });
    const evil = await post('/api/auth/session', json, {
      'content-type': 'application/json',
      origin: 'https://evil.example',
    });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ code: 'bad_origin' });
    const crossSite = await post('/api/auth/refresh', '', { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);

    // Our own origin with the nonce: signed in (the refusals above spent nothing).
    const ok = await post('/api/auth/session', json, {
      'content-type': 'application/json',
      origin: stack.url,
      cookie,
    });
    expect(ok.status).toBe(200);
  });
});

describe('roles and sessions (findings 3 and 13)', () => {
  it('keeps the sign-in of a tester whose approval changes: the old token is refused as stale, one refresh carries the new approval', async () => {
    const tester = await signInTester(stack, 'sec.tester@gmail.com', { approved: false });
    expect((await client(stack, tester.token).get('/api/me')).status).toBe(200);
    const r = await client(stack, admin.token).patch(`/api/admin/approve-tester/${tester.id}`, {
      approved: true,
    });
    expect(r.status).toBe(200);
    const me = await waitFor(
      async () => {
        const res = await client(stack, tester.token).get('/api/me');
        return res.status === 401 ? res : undefined;
      },
      'the old token to be refused',
      5000,
    );
    expect(me.body).toMatchObject({ code: 'token_stale' });
    const next = await refresh(tester.jar);
    expect(next.status).toBe(200);
    expect((await client(stack, next.body.access_token).get('/api/me')).body).toMatchObject({
      approved: true,
    });
  });

  it('ends a sign-in whose refresh token was not used for the idle timeout (7 days)', async () => {
    const p = await signIn(stack, 'sec.idle@gmail.com');
    expect((await refresh(p.jar)).status).toBe(200);
    // A week passes without the browser coming back.
    await stack.sql(
      `UPDATE identity.refresh_tokens SET created_at = now() - interval '7 days 1 minute'
        WHERE family_id IN (SELECT f.id FROM identity.refresh_families f JOIN identity.users u ON u.id = f.user_id WHERE u.email = $1)`,
      ['sec.idle@gmail.com'],
    );
    const idle = await refresh(p.jar);
    expect(idle.status).toBe(401);
    expect(idle.body).toMatchObject({ code: 'invalid_refresh_token' });
    const [family] = await stack.sql<{ revoked_reason: string }>(
      'SELECT f.revoked_reason FROM identity.refresh_families f JOIN identity.users u ON u.id = f.user_id WHERE u.email = $1',
      ['sec.idle@gmail.com'],
    );
    expect(family.revoked_reason).toBe('idle');
  });
});

describe('payments (finding 6)', () => {
  it('books only the amount and currency of the session: a forged webhook for $999,999 pays nothing and is shown to the admin', async () => {
    const poster = await signInPoster(stack, 'sec.poster@gmail.com');
    const posted = await client(stack, poster.token).post('/api/jobs', {
      title: 'Forged',
      url: 'https://forged.example',
      what_to_test: 'x',
      requirements: ['y'],
    });
    expect(posted.status).toBe(201);
    const sessionId = posted.body.session_id!;
    const jobId = posted.body.job.id;
    const payload = JSON.stringify({
      id: `evt_forged_${Date.now()}`,
      object: 'event',
      type: 'checkout.session.completed',
      data: {
        object: {
          id: sessionId,
          object: 'checkout.session',
          amount_total: 99_999_900,
          currency: 'usd',
          payment_status: 'paid',
          status: 'complete',
          client_reference_id: jobId,
          metadata: { job_id: jobId },
        },
      },
    });
    // The local provider's development secret is public (it is in the repository).
    const signature = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: 'whsec_dev_only_local_payments_secret',
    });
    const hook = await post('/api/payments/webhook', payload, {
      'content-type': 'application/json',
      'stripe-signature': signature,
    });
    expect(hook.status).toBe(200);

    expect(
      await stack.sql('SELECT 1 FROM payments.ledger_entries WHERE job_id = $1', [jobId]),
    ).toHaveLength(0);
    const [row] = await stack.sql<{ status: string }>(
      'SELECT status FROM payments.checkout_sessions WHERE id = $1',
      [sessionId],
    );
    expect(row.status).toBe('open');
    const overview = await client(stack, admin.token).get('/api/admin/financial-overview');
    expect(
      (overview.body as unknown as { amount_mismatches: unknown[] }).amount_mismatches,
    ).toContainEqual(
      expect.objectContaining({
        session_id: sessionId,
        job_id: jobId,
        expected_cents: 100,
        expected_currency: 'usd',
        received_cents: 99_999_900,
        received_currency: 'usd',
      }),
    );
    // The real $1 payment still goes through.
    const pay = await fetch(`${stack.url}/api/payments/local/checkout/${sessionId}/pay`, {
      method: 'POST',
      redirect: 'manual',
    });
    expect(pay.status).toBe(303);
    await waitFor(
      async () =>
        (
          await stack.sql(
            'SELECT 1 FROM payments.ledger_entries WHERE job_id = $1 AND amount_cents = 100',
            [jobId],
          )
        ).length === 1,
      'the $1 payment',
    );
  });
});

describe('payout accounts (finding 8)', () => {
  it('creates provider accounts for approved testers only, and limits the provider routes per user', async () => {
    const waiting = await signInTester(stack, 'sec.unapproved@gmail.com', { approved: false });
    const refused = await client(stack, waiting.token).post('/api/tester/payout-account');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'tester_not_approved' });
    expect(
      await stack.sql('SELECT 1 FROM payments.payout_accounts WHERE tester_id = $1', [waiting.id]),
    ).toHaveLength(0);

    const approved = await signInTester(stack, 'sec.payee@gmail.com', { admin });
    const connected = await client(stack, approved.token).post('/api/tester/payout-account');
    expect(connected.status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await client(stack, approved.token).get('/api/tester/payout-account')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Another user has their own allowance.
    expect((await client(stack, waiting.token).get('/api/tester/payout-account')).status).toBe(200);
  });
});

describe('uploads (finding 11)', () => {
  it('stores screenshots without their EXIF/GPS metadata', async () => {
    const poster = await signInPoster(stack, 'sec.exif.poster@gmail.com');
    const tester = await signInTester(stack, 'sec.exif.tester@gmail.com', { admin });
    const { jobId } = await postAndPay(stack, poster);
    await waitFor(
      async () =>
        (await client(stack, tester.token).get('/api/tester/available-jobs')).body.jobs?.some(
          (j: { id: string }) => j.id === jobId,
        ),
      'the job to be listed',
    );
    expect((await client(stack, tester.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);

    const jpeg = await sharp({
      create: { width: 64, height: 48, channels: 3, background: '#3366aa' },
    })
      .jpeg()
      .withExif({
        IFD0: { Copyright: 'Home of the tester', Artist: 'Tess' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' },
      })
      .toBuffer();
    expect((await sharp(jpeg).metadata()).exif).toBeDefined();
    const form = new FormData();
    form.set('feedback_text', 'Works, but the order button is hard to find.');
    form.set('key_finding_1', 'Order button is below the fold');
    form.set('screenshot', new Blob([jpeg], { type: 'image/jpeg' }), 'shot.jpg');
    const res = await fetch(`${stack.url}/api/jobs/${jobId}/submit-work`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tester.token}` },
      body: form,
    });
    expect(res.status).toBe(201);

    const [file] = await stack.sql<{ storage_key: string }>(
      "SELECT storage_key FROM jobs.files WHERE job_id = $1 AND kind = 'original'",
      [jobId],
    );
    const { stream } = await stack.jobs.deps.storage.get(file.storage_key);
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(c as Buffer);
    const stored = Buffer.concat(chunks);
    const meta = await sharp(stored).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 64, height: 48 });
    expect(meta.exif).toBeUndefined();
    expect(stored.includes('Home of the tester')).toBe(false);
  });
});

describe('npm start at the edge (finding 5)', () => {
  it('does not let a client rotate X-Forwarded-For past the sign-in rate limit', async () => {
    const env = gatewayEnv(
      embeddedEnv({ ...stack.env, AUTH_RATE_LIMIT_PER_MINUTE: '2', DATA_DIR: stack.env.DATA_DIR }),
      {},
    );
    expect(env).toMatchObject({ HOST: '127.0.0.1', TRUST_PROXY: 'false', DEV_SIGN_IN: 'true' });
    const edge = await startGateway(
      { ...env, REDIS_PREFIX: `${stack.prefix}edge:`, WEB_DIST: '/nonexistent', PORT: '0' },
      { port: 0, host: env.HOST, metricsPort: 0 },
    );
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await fetch(`${edge.url}/api/auth/dev/login?email=sec.rotate@gmail.com`, {
          redirect: 'manual',
          headers: { 'x-forwarded-for': `198.51.100.${i + 1}` },
        });
        statuses.push(r.status);
      }
      expect(statuses).toEqual([302, 302, 429, 429]);
    } finally {
      await edge.stop();
    }
  });
});

describe('ADMIN_EMAIL changes (finding 3)', () => {
  it('demotes the former admin at start-up and ends their sign-ins', async () => {
    const former = await signInAdmin(stack);
    expect((await client(stack, former.token).get('/api/admin/testers')).status).toBe(200);
    const port = Number(new URL(stack.identity.url).port);
    await stack.identity.stop();
    const restarted = await startIdentity(
      { ...stack.env, ADMIN_EMAIL: 'sec.boss@gmail.com' },
      { port },
    );
    try {
      const [row] = await stack.sql<{ type: string | null }>(
        "SELECT type FROM identity.users WHERE email = 'admin@gmail.com'",
      );
      expect(row.type).toBeNull();
      const refused = await waitFor(
        async () => {
          const r = await client(stack, former.token).get('/api/admin/testers');
          return r.status === 401 ? r : undefined;
        },
        "the former admin's token to be refused",
        5000,
      );
      expect(refused.body).toMatchObject({ code: 'token_revoked' });
      expect((await refresh(former.jar)).status).toBe(401);
      const boss = await signIn(stack, 'sec.boss@gmail.com');
      expect((await client(stack, boss.token).get('/api/me')).body).toMatchObject({
        type: 'admin',
      });
    } finally {
      await restarted.stop();
    }
  });
});
