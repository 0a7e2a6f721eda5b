/**
 * Logout ends the access tokens of that sign-in everywhere: the gateway and every service refuse
 * them. A change of approval does not end the sign-in: tokens with the old claims are refused as
 * stale everywhere, and one refresh in the same sign-in carries the new claims.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signIn as devSignIn } from '@htm/identity/testing';
import {
  client,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  waitFor,
  type Actor,
  type Stack,
} from './support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ label: 'revoke', withWorker: false });
});
afterAll(async () => {
  await stack?.stop();
});

/** Calls a service directly, bypassing the gateway. */
async function direct(serviceUrl: string, path: string, token: string) {
  const res = await fetch(`${serviceUrl}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as { code?: string } };
}

describe('logout', () => {
  let poster: Actor;
  let other: { token: string };

  it('refuses the old access token with 401 on /api/me and on jobs routes, in the gateway and in the services', async () => {
    poster = await signInPoster(stack, 'revoke.poster@gmail.com');
    other = await devSignIn(stack.url, 'revoke.poster@gmail.com');
    const api = client(stack, poster.token);
    expect((await api.get('/api/me')).status).toBe(200);
    expect((await api.get('/api/jobs')).status).toBe(200);
    expect((await direct(stack.jobs.url, '/api/jobs', poster.token)).status).toBe(200);

    const out = await fetch(`${stack.url}/api/auth/logout`, {
      method: 'POST',
      headers: { cookie: poster.jar.header() },
    });
    expect(out.status).toBe(200);
    expect(await out.json()).toEqual({ success: true });

    const me = await waitFor(
      async () => {
        const r = await api.get('/api/me');
        return r.status === 401 ? r : undefined;
      },
      '/api/me to refuse the token',
      3000,
    );
    expect(me.body).toEqual({ detail: expect.any(String), code: 'token_revoked' });
    const jobs = await waitFor(
      async () => {
        const r = await api.get('/api/jobs');
        return r.status === 401 ? r : undefined;
      },
      '/api/jobs to refuse the token',
      3000,
    );
    expect(jobs.body.code).toBe('token_revoked');
    const posted = await api.post('/api/jobs', {
      title: 'After logout',
      url: 'https://x.example',
      what_to_test: 'x',
      requirements: ['y'],
    });
    expect(posted.status).toBe(401);
    // Each service checks for itself too, not only the gateway.
    for (const url of [stack.jobs.url, stack.payments.url]) {
      const path = url === stack.jobs.url ? '/api/jobs' : '/api/tester/my-earnings';
      expect(
        await waitFor(
          async () => {
            const r = await direct(url, path, poster.token);
            return r.status === 401 ? r : undefined;
          },
          `${path} to refuse the token`,
          3000,
        ),
      ).toMatchObject({ body: { code: 'token_revoked' } });
    }
    expect((await direct(stack.identity.url, '/api/me', poster.token)).body.code).toBe(
      'token_revoked',
    );
  });

  it('leaves another sign-in session of the same user working', async () => {
    const api = client(stack, other.token);
    expect((await api.get('/api/me')).status).toBe(200);
    expect((await api.get('/api/jobs')).status).toBe(200);
  });

  it('with only the bearer token (no cookie), ends the session that token names: its access and refresh tokens stop working, other sessions go on', async () => {
    const session = await devSignIn(stack.url, 'bearer.logout@gmail.com');
    const elsewhere = await devSignIn(stack.url, 'bearer.logout@gmail.com');
    const api = client(stack, session.token);
    expect((await api.get('/api/me')).status).toBe(200);
    const out = await fetch(`${stack.url}/api/auth/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}` },
    });
    expect([out.status, await out.json()]).toEqual([200, { success: true }]);
    const me = await waitFor(
      async () => {
        const r = await api.get('/api/me');
        return r.status === 401 ? r : undefined;
      },
      '/api/me to refuse the logged-out token',
      3000,
    );
    expect(me.body.code).toBe('token_revoked');
    expect((await direct(stack.jobs.url, '/api/jobs', session.token)).body.code).toBe(
      'token_revoked',
    );
    // The session's refresh cookie is dead too: no new access token from it.
    const refresh = await fetch(`${stack.url}/api/auth/refresh`, {
      method: 'POST',
      headers: {
        cookie: session.jar.header(),
        'x-xsrf-token': session.jar.get('XSRF-TOKEN') ?? '',
      },
    });
    expect(refresh.status).toBe(401);
    expect((await client(stack, elsewhere.token).get('/api/me')).status).toBe(200);
    // A made-up or foreign token ends nothing and still answers success (cookies cleared).
    const junk = await fetch(`${stack.url}/api/auth/logout`, {
      method: 'POST',
      headers: { authorization: 'Bearer not.a.token' },
    });
    expect(junk.status).toBe(200);
    expect((await client(stack, elsewhere.token).get('/api/me')).status).toBe(200);
  });
});

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as {
    sid?: string;
    approved?: boolean;
  };

describe('a signed-in tester approved by the admin', () => {
  it('gets 401 token_stale on the next call (gateway and services), refreshes once in the same session, and goes on with approved: true', async () => {
    const admin = await signInAdmin(stack);
    const tester = await signInTester(stack, 'stale.tester@gmail.com', { approved: false, admin });
    const api = client(stack, tester.token);
    expect((await api.get('/api/me')).body).toMatchObject({ approved: false });
    expect((await api.get('/api/tester/available-jobs')).status).toBe(403);

    expect(
      (
        await client(stack, admin.token).patch(`/api/admin/approve-tester/${tester.id}`, {
          approved: true,
        })
      ).status,
    ).toBe(200);

    const stale = await waitFor(
      async () => {
        const r = await api.get('/api/me');
        return r.status === 401 ? r : undefined;
      },
      'the gateway to refuse the stale token',
      3000,
    );
    expect(stale.body).toEqual({ detail: expect.any(String), code: 'token_stale' });
    expect(
      await waitFor(
        async () => {
          const r = await direct(stack.jobs.url, '/api/tester/available-jobs', tester.token);
          return r.status === 401 ? r : undefined;
        },
        'jobs to refuse the stale token',
        3000,
      ),
    ).toMatchObject({ body: { code: 'token_stale' } });

    // The web app's one silent refresh: same session, current claims.
    const res = await fetch(`${stack.url}/api/auth/refresh`, {
      method: 'POST',
      headers: { cookie: tester.jar.header(), 'x-xsrf-token': tester.jar.get('XSRF-TOKEN') ?? '' },
    });
    tester.jar.take(res);
    expect(res.status).toBe(200);
    const fresh = ((await res.json()) as { access_token: string }).access_token;
    expect(claimsOf(fresh)).toMatchObject({ sid: claimsOf(tester.token).sid, approved: true });

    const next = client(stack, fresh);
    expect((await next.get('/api/me')).body).toMatchObject({ approved: true });
    await waitFor(
      async () => (await next.get('/api/tester/available-jobs')).status === 200,
      'the approved tester to see available jobs',
      5000,
    );
    // The admin's own sign-in is untouched.
    expect((await client(stack, admin.token).get('/api/me')).status).toBe(200);
  });
});
