import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { OAuth2Server } from 'oauth2-mock-server';
import { ConfigError } from '@htm/service-kit';
import { loadIdentityConfig } from '../src/config.js';
import {
  call,
  CookieJar,
  exchange,
  freePort,
  outboxEvents,
  sessionIdOf,
  startTestIdentity,
  type TestIdentity,
} from './helpers.js';

let google: OAuth2Server;
let t: TestIdentity;
let userinfo: Record<string, unknown>;
const tokenRequests: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  google = new OAuth2Server();
  await google.issuer.keys.generate('RS256');
  await google.start(0, '127.0.0.1');
  const g = google.issuer.url!;
  google.service.on('beforeUserinfo', (res: { body: unknown }) => {
    res.body = userinfo;
  });
  google.service.on('beforeResponse', (_res: unknown, req: { body: Record<string, unknown> }) => {
    tokenRequests.push(req.body);
  });
  const port = await freePort();
  t = await startTestIdentity(
    'google',
    {
      GOOGLE_CLIENT_ID: 'test-client',
      GOOGLE_CLIENT_SECRET: 'test-secret',
      GOOGLE_AUTH_URL: `${g}/authorize`,
      GOOGLE_TOKEN_URL: `${g}/token`,
      GOOGLE_USERINFO_URL: `${g}/userinfo`,
      GOOGLE_CALLBACK_URL: `http://127.0.0.1:${port}/api/auth/google/callback`,
      ADMIN_EMAIL: 'Owner@Example.com',
    },
    undefined,
    port,
  );
});
afterAll(async () => {
  await t?.stop();
  await t?.db.drop();
  await google?.stop();
});
beforeEach(() => {
  userinfo = {
    sub: 'google-sub-1',
    email: 'real.person@gmail.com',
    email_verified: true,
    name: 'Real Person',
  };
});

/** Starts sign-in in a browser (cookie jar), lets "Google" approve, and returns the callback URL it sends back. */
async function toGoogleAndBack(jar: CookieJar, intent = 'poster'): Promise<string> {
  const start = await fetch(`${t.url}/api/auth/google?intent=${intent}`, {
    redirect: 'manual',
    headers: { cookie: jar.header() },
  });
  jar.take(start);
  expect(start.status).toBe(302);
  const authorize = new URL(start.headers.get('location')!);
  expect(authorize.origin + authorize.pathname).toBe(`${google.issuer.url}/authorize`);
  expect(authorize.searchParams.get('client_id')).toBe('test-client');
  expect(authorize.searchParams.get('scope')).toBe('openid email profile');
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorize.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{40,}$/);
  const back = await fetch(authorize, { redirect: 'manual' });
  expect(back.status).toBe(302);
  return back.headers.get('location')!;
}

async function callback(jar: CookieJar, url: string): Promise<string | null> {
  const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
  jar.take(res);
  expect(res.status).toBe(302);
  return res.headers.get('location');
}

describe('Google sign-in (code flow against a stand-in Google)', () => {
  it('creates the user keyed by Google sub and gives a working session', async () => {
    const jar = new CookieJar();
    const cb = await toGoogleAndBack(jar);
    const stateCookie = jar.raw.get('oauth_state')!;
    expect(stateCookie).toMatch(/HttpOnly/i);
    expect(stateCookie).toMatch(/Max-Age=600/);
    const location = await callback(jar, cb);
    expect(location).toMatch(/^\/#session_id=/);
    expect(jar.get('oauth_state')).toBeUndefined();
    expect(tokenRequests.at(-1)).toMatchObject({
      grant_type: 'authorization_code',
      code_verifier: expect.any(String),
    });

    const { res, body } = await exchange(t.url, sessionIdOf(location), jar);
    expect(res.status).toBe(200);
    const me = await call(t.url, '/api/me', { token: body.access_token as string });
    expect(me.body).toMatchObject({
      email: 'real.person@gmail.com',
      name: 'Real Person',
      type: null,
      approved: false,
    });
    const rows = await t.svc.ctx.dbHandle.query(
      'SELECT google_sub FROM identity.users WHERE id = $1',
      [me.body.id],
    );
    expect(rows).toEqual([{ google_sub: 'google-sub-1' }]);
    expect(await outboxEvents(t, 'UserSignedUp', me.body.id)).toHaveLength(1);

    // Same Google account with a new address: the same user (keyed by sub), e-mail updated.
    userinfo = { ...userinfo, email: 'renamed.person@gmail.com' };
    const again = await exchange(
      t.url,
      sessionIdOf(await callback(jar, await toGoogleAndBack(jar))),
      jar,
    );
    const me2 = await call(t.url, '/api/me', { token: again.body.access_token as string });
    expect(me2.body).toMatchObject({ id: me.body.id, email: 'renamed.person@gmail.com' });
  });

  it('refuses addresses that are not Gmail', async () => {
    userinfo = {
      sub: 'google-sub-2',
      email: 'person@company.com',
      email_verified: true,
      name: 'Work',
    };
    const jar = new CookieJar();
    expect(await callback(jar, await toGoogleAndBack(jar))).toBe('/#auth_error=gmail_only');
    expect(
      await t.svc.ctx.dbHandle.query(
        "SELECT 1 FROM identity.users WHERE google_sub = 'google-sub-2'",
      ),
    ).toHaveLength(0);
  });

  it('refuses a Gmail address Google has not verified', async () => {
    userinfo = {
      sub: 'google-sub-3',
      email: 'unverified@gmail.com',
      email_verified: false,
      name: 'Unverified',
    };
    const jar = new CookieJar();
    expect(await callback(jar, await toGoogleAndBack(jar))).toBe('/#auth_error=gmail_only');
    userinfo = { sub: 'google-sub-3', email: 'unverified@gmail.com', name: 'No claim' };
    expect(await callback(jar, await toGoogleAndBack(jar))).toBe('/#auth_error=gmail_only');
  });

  it('recognises ADMIN_EMAIL (any verified address) as the admin', async () => {
    userinfo = {
      sub: 'google-sub-admin',
      email: 'owner@example.com',
      email_verified: true,
      name: 'Owner',
    };
    const jar = new CookieJar();
    const { body } = await exchange(
      t.url,
      sessionIdOf(await callback(jar, await toGoogleAndBack(jar))),
      jar,
    );
    const me = await call(t.url, '/api/me', { token: body.access_token as string });
    expect(me.body).toMatchObject({ type: 'admin', approved: true });
    expect(
      (await call(t.url, '/api/admin/testers', { token: body.access_token as string })).status,
    ).toBe(200);
  });

  it('carries the tester intent through Google: someone not signed up as a tester is refused', async () => {
    userinfo = {
      sub: 'google-sub-4',
      email: 'wannabe@gmail.com',
      email_verified: true,
      name: 'Wannabe',
    };
    const jar = new CookieJar();
    expect(await callback(jar, await toGoogleAndBack(jar, 'tester'))).toBe(
      '/#auth_error=tester_signup_needed',
    );
  });

  it('rejects a callback without the state cookie of this browser (login CSRF)', async () => {
    const attacker = new CookieJar();
    const cb = await toGoogleAndBack(attacker);
    const victim = new CookieJar();
    expect(await callback(victim, cb)).toBe('/#auth_error=google_failed');
    // A state cookie from another sign-in attempt of the victim does not match either.
    const cb2 = await toGoogleAndBack(victim);
    expect(cb2).toBeTruthy();
    expect(await callback(victim, cb)).toBe('/#auth_error=google_failed');
    // A tampered cookie is refused.
    const tampered = new CookieJar();
    const cb3 = await toGoogleAndBack(tampered);
    tampered.cookies.set(
      'oauth_state',
      tampered.get('oauth_state')!.replace('.poster.', '.tester.'),
    );
    expect(await callback(tampered, cb3)).toBe('/#auth_error=google_failed');
  });

  it('sends the browser back with google_failed when the user cancels at Google', async () => {
    const jar = new CookieJar();
    const cb = new URL(await toGoogleAndBack(jar));
    cb.searchParams.delete('code');
    cb.searchParams.set('error', 'access_denied');
    expect(await callback(jar, cb.toString())).toBe('/#auth_error=google_failed');
  });

  it('has no dev sign-in once Google is configured, even with DEV_SIGN_IN=true outside production', async () => {
    expect(t.env.DEV_SIGN_IN).toBe('true');
    const res = await fetch(`${t.url}/api/auth/google`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const dev = await fetch(`${t.url}/api/auth/dev/login?email=admin@gmail.com&intent=poster`, {
      redirect: 'manual',
    });
    expect(dev.status).toBe(404);
    expect(await dev.json()).toMatchObject({ code: 'route_not_found' });
  });
});

describe('configuration', () => {
  const prod = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://x@127.0.0.1/db',
    SERVICE_TOKEN_SECRET: randomBytes(48).toString('base64'),
    AUTH_SECRET: randomBytes(48).toString('base64'),
    JWT_PRIVATE_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString(),
    // identity signs its /internal/privacy calls (data exports, deletions).
    SERVICE_TOKEN_PRIVATE_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString(),
  };

  it('stops the service in production when Google credentials are missing', () => {
    expect(() => loadIdentityConfig(prod)).toThrow(ConfigError);
    expect(() => loadIdentityConfig(prod)).toThrow(/GOOGLE_CLIENT_ID.*GOOGLE_CLIENT_SECRET/);
    expect(() =>
      loadIdentityConfig({ ...prod, GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 's' }),
    ).not.toThrow();
    expect(
      loadIdentityConfig({ ...prod, GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 's' })
        .ADMIN_EMAIL,
    ).toBeUndefined();
    expect(() =>
      loadIdentityConfig({
        ...prod,
        GOOGLE_CLIENT_ID: 'id',
        GOOGLE_CLIENT_SECRET: 's',
        AUTH_SECRET: undefined,
      }),
    ).toThrow(/AUTH_SECRET/);
  });

  it('has safe development defaults', () => {
    const cfg = loadIdentityConfig({});
    expect(cfg).toMatchObject({
      NODE_ENV: 'development',
      PORT: 8081,
      ADMIN_EMAIL: 'admin@gmail.com',
      ACCESS_TOKEN_TTL_SECONDS: 900,
    });
    expect(cfg.GOOGLE_CLIENT_ID).toBeUndefined();
  });

  it('has no dev sign-in route in production', async () => {
    const { startIdentity } = await import('../src/main.js');
    const p = await startIdentity(
      {
        ...prod,
        DATABASE_URL: t.db.url,
        REDIS_URL: t.env.REDIS_URL,
        REDIS_PREFIX: t.env.REDIS_PREFIX,
        GOOGLE_CLIENT_ID: 'id',
        GOOGLE_CLIENT_SECRET: 's',
        LOG_LEVEL: 'silent',
      },
      { port: 0 },
    );
    try {
      const res = await fetch(`${p.url}/api/auth/dev/login?email=x@gmail.com`, {
        redirect: 'manual',
      });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'route_not_found' });
    } finally {
      await p.stop();
    }
  });
});
