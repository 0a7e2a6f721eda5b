import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  devLogin,
  exchange,
  outboxEvents,
  sessionIdOf,
  startTestIdentity,
  type TestIdentity,
} from './helpers.js';

let t: TestIdentity;

beforeAll(async () => {
  t = await startTestIdentity('dev');
});
afterAll(async () => {
  await t?.stop();
  await t?.db.drop();
});

describe('development sign-in (fixed contract)', () => {
  it('redirects to /#session_id=S, and S buys one access token and the session cookies', async () => {
    const res = await devLogin(t.url, {
      email: 'Poster.One@Gmail.com',
      name: 'Poster One',
      intent: 'poster',
    });
    expect(res.status).toBe(302);
    const location = res.headers.get('location');
    expect(location).toMatch(/^\/#session_id=[A-Za-z0-9_-]{20,}$/);

    const first = await exchange(t.url, sessionIdOf(location), res);
    expect(first.res.status).toBe(200);
    expect(Object.keys(first.body)).toEqual(['access_token']);
    const refreshLine = first.jar.raw.get('refresh_token')!;
    expect(refreshLine).toMatch(/HttpOnly/i);
    expect(refreshLine).toMatch(/Path=\/api\/auth/);
    expect(refreshLine).toMatch(/SameSite=Lax/i);
    expect(refreshLine).not.toMatch(/Secure/i);
    const xsrfLine = first.jar.raw.get('XSRF-TOKEN')!;
    expect(xsrfLine).toMatch(/Path=\/(;|$)/);
    expect(xsrfLine).not.toMatch(/HttpOnly/i);

    const me = await call(t.url, '/api/me', { token: first.body.access_token as string });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: expect.any(String),
      email: 'poster.one@gmail.com',
      name: 'Poster One',
      type: null,
      location: null,
      country: null,
      approved: false,
      released: false,
      created_at: expect.any(String),
    });

    const second = await exchange(t.url, sessionIdOf(location), res);
    expect(second.res.status).toBe(401);
    expect(second.body).toMatchObject({ code: 'invalid_session' });
    expect(second.jar.get('refresh_token')).toBeUndefined();
  });

  it('stores the session id only as a hash', async () => {
    const res = await devLogin(t.url, { email: 'hashcheck@gmail.com' });
    const sid = sessionIdOf(res.headers.get('location'));
    const rows = await t.svc.ctx.dbHandle.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM identity.signin_sessions WHERE id_hash = $1',
      [sid],
    );
    expect(rows[0].n).toBe(0);
  });

  it('drops handles that expired over an hour ago at the next sign-in, by the expiry index', async () => {
    const q = t.svc.ctx.dbHandle;
    // An hour of other people's handles (not yet expired), one that expired 10 minutes ago, three long gone.
    await q.query(
      `INSERT INTO identity.signin_sessions (id_hash, user_id, expires_at)
       SELECT 'busy-' || g, gen_random_uuid(), now() + interval '1 minute' FROM generate_series(1, 5000) g`,
    );
    await q.query(
      `INSERT INTO identity.signin_sessions (id_hash, user_id, expires_at)
       VALUES ('recent', gen_random_uuid(), now() - interval '10 minutes'),
              ('old-1', gen_random_uuid(), now() - interval '2 hours'),
              ('old-2', gen_random_uuid(), now() - interval '3 hours'),
              ('old-3', gen_random_uuid(), now() - interval '1 day')`,
    );
    await q.query('ANALYZE identity.signin_sessions');
    // The clean-up each sign-in runs reads only the rows it drops, not the hour's handles.
    const plan = await q.query<{ 'QUERY PLAN': string }>(
      "EXPLAIN DELETE FROM identity.signin_sessions WHERE expires_at < now() - interval '1 hour'",
    );
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('signin_sessions_expires_idx');

    await devLogin(t.url, { email: 'cleanup@gmail.com' });
    const left = await q.query<{ id_hash: string }>(
      "SELECT id_hash FROM identity.signin_sessions WHERE id_hash IN ('recent', 'old-1', 'old-2', 'old-3')",
    );
    expect(left.map((r) => r.id_hash)).toEqual(['recent']);
    const busy = await q.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM identity.signin_sessions WHERE id_hash LIKE 'busy-%'",
    );
    expect(busy[0].n).toBe(5000);
    await q.query(
      "DELETE FROM identity.signin_sessions WHERE id_hash LIKE 'busy-%' OR id_hash = 'recent'",
    );
  });

  it('refuses an unknown session id and a missing one', async () => {
    const unknown = await exchange(t.url, 'not-a-real-session-id');
    expect(unknown.res.status).toBe(401);
    const missing = await call(t.url, '/api/auth/session', { method: 'POST', body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      code: 'validation_error',
      errors: { session_id: [expect.any(String)] },
    });
  });

  it('applies the Gmail rule: other providers go back with auth_error=gmail_only and nothing is created', async () => {
    const res = await devLogin(t.url, { email: 'someone@yahoo.com', name: 'Yahoo' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/#auth_error=gmail_only');
    const rows = await t.svc.ctx.dbHandle.query(
      "SELECT 1 FROM identity.users WHERE email = 'someone@yahoo.com'",
    );
    expect(rows).toHaveLength(0);
    const gm = await devLogin(t.url, { email: 'someone@googlemail.com' });
    expect(gm.headers.get('location')).toMatch(/^\/#session_id=/);
  });

  it('recognises the admin account (ADMIN_EMAIL default admin@gmail.com) and announces it once', async () => {
    const a = await devLogin(t.url, { email: 'admin@gmail.com', name: 'Admin' });
    const { body } = await exchange(t.url, sessionIdOf(a.headers.get('location')), a);
    const me = await call(t.url, '/api/me', { token: body.access_token as string });
    expect(me.body).toMatchObject({ email: 'admin@gmail.com', type: 'admin', approved: true });
    await devLogin(t.url, { email: 'admin@gmail.com', name: 'Admin' });
    const chosen = (await outboxEvents(t, 'UserRoleChosen', me.body.id)).map((e) => e.data.type);
    expect(chosen).toEqual(['admin']);
    expect(await outboxEvents(t, 'UserSignedUp', me.body.id)).toHaveLength(1);
  });

  it('answers 400 JSON for a missing e-mail or a bad intent', async () => {
    const noEmail = await fetch(`${t.url}/api/auth/dev/login?name=x`, { redirect: 'manual' });
    expect(noEmail.status).toBe(400);
    expect(await noEmail.json()).toMatchObject({ code: 'validation_error' });
    const badIntent = await devLogin(t.url, { email: 'x@gmail.com', intent: 'admin' });
    expect(badIntent.status).toBe(400);
  });

  it('serves a DEV-labelled sign-in page without script at /api/auth/google when Google is not configured', async () => {
    const res = await fetch(`${t.url}/api/auth/google?intent=tester`, { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).not.toMatch(/script-src/);
    const html = await res.text();
    expect(html).toMatch(/DEV SIGN-IN/);
    expect(html).not.toMatch(/<script/i);
    expect(html).toMatch(/action="\/api\/auth\/dev\/login"/);
    expect(html).toMatch(/<input type="hidden" name="intent" value="tester">/);
    expect(html).toMatch(/name="email"/);
    expect(html).toMatch(/name="name"/);
  });

  it('redirects to WEB_ORIGIN when it is set', async () => {
    const other = await startTestIdentity(
      'dev_origin',
      { WEB_ORIGIN: 'http://localhost:5173/' },
      t.db,
    );
    try {
      const res = await devLogin(other.url, { email: 'origin@gmail.com' });
      expect(res.headers.get('location')).toMatch(/^http:\/\/localhost:5173\/#session_id=/);
      const bad = await devLogin(other.url, { email: 'origin@outlook.com' });
      expect(bad.headers.get('location')).toBe('http://localhost:5173/#auth_error=gmail_only');
    } finally {
      await other.stop();
    }
  });
});

describe('session cookies over https', () => {
  let https: TestIdentity;
  beforeAll(async () => {
    https = await startTestIdentity('dev-https', { PUBLIC_URL: 'https://humantest.example' }, t.db);
  });
  afterAll(async () => {
    await https?.stop();
  });

  it('are named __Secure-refresh_token and __Secure-XSRF-TOKEN (Secure), and the X-XSRF-TOKEN header still refreshes', async () => {
    const res = await devLogin(https.url, { email: 'secure.cookies@gmail.com', intent: 'poster' });
    const { jar, res: exchanged } = await exchange(
      https.url,
      sessionIdOf(res.headers.get('location')),
      res,
    );
    expect(exchanged.status).toBe(200);
    expect([...jar.cookies.keys()].sort()).toEqual([
      '__Secure-XSRF-TOKEN',
      '__Secure-refresh_token',
    ]);
    const refreshLine = jar.raw.get('__Secure-refresh_token')!;
    expect(refreshLine).toMatch(/; Secure/i);
    expect(refreshLine).toMatch(/HttpOnly/i);
    expect(refreshLine).toMatch(/Path=\/api\/auth/);
    const xsrfLine = jar.raw.get('__Secure-XSRF-TOKEN')!;
    expect(xsrfLine).toMatch(/; Secure/i);
    expect(xsrfLine).not.toMatch(/HttpOnly/i);

    const xsrf = jar.get('__Secure-XSRF-TOKEN')!;
    const refreshed = await call(https.url, '/api/auth/refresh', {
      method: 'POST',
      jar,
      headers: { 'x-xsrf-token': xsrf },
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).toEqual(expect.any(String));

    // The unprefixed names (which any http page could plant) are not read over https.
    const planted = `refresh_token=${encodeURIComponent(jar.get('__Secure-refresh_token')!)}; XSRF-TOKEN=${encodeURIComponent(xsrf)}`;
    const refused = await call(https.url, '/api/auth/refresh', {
      method: 'POST',
      headers: { cookie: planted, 'x-xsrf-token': xsrf },
    });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('missing_refresh_token');

    const out = await call(https.url, '/api/auth/logout', { method: 'POST', jar });
    expect(out.status).toBe(200);
    expect(jar.cookies.size).toBe(0);
  });
});
