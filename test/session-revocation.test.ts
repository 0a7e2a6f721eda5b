/** Logout ends the access tokens of that sign-in everywhere: the gateway and every service refuse them. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signIn as devSignIn } from '@htm/identity/testing';
import { client, signInPoster, startStack, waitFor, type Actor, type Stack } from './support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ label: 'revoke', withWorker: false });
});
afterAll(async () => {
  await stack?.stop();
});

/** Calls a service directly, bypassing the gateway. */
async function direct(serviceUrl: string, path: string, token: string) {
  const res = await fetch(`${serviceUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
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

    const out = await fetch(`${stack.url}/api/auth/logout`, { method: 'POST', headers: { cookie: poster.jar.header() } });
    expect(out.status).toBe(200);
    expect(await out.json()).toEqual({ success: true });

    const me = await waitFor(async () => {
      const r = await api.get('/api/me');
      return r.status === 401 ? r : undefined;
    }, '/api/me to refuse the token', 3000);
    expect(me.body).toEqual({ detail: expect.any(String), code: 'token_revoked' });
    const jobs = await waitFor(async () => {
      const r = await api.get('/api/jobs');
      return r.status === 401 ? r : undefined;
    }, '/api/jobs to refuse the token', 3000);
    expect(jobs.body.code).toBe('token_revoked');
    const posted = await api.post('/api/jobs', { title: 'After logout', url: 'https://x.example', what_to_test: 'x', requirements: ['y'] });
    expect(posted.status).toBe(401);
    // Each service checks for itself too, not only the gateway.
    for (const url of [stack.jobs.url, stack.payments.url]) {
      const path = url === stack.jobs.url ? '/api/jobs' : '/api/tester/my-earnings';
      expect(await waitFor(async () => {
        const r = await direct(url, path, poster.token);
        return r.status === 401 ? r : undefined;
      }, `${path} to refuse the token`, 3000)).toMatchObject({ body: { code: 'token_revoked' } });
    }
    expect((await direct(stack.identity.url, '/api/me', poster.token)).body.code).toBe('token_revoked');
  });

  it('leaves another sign-in session of the same user working', async () => {
    const api = client(stack, other.token);
    expect((await api.get('/api/me')).status).toBe(200);
    expect((await api.get('/api/jobs')).status).toBe(200);
  });
});
