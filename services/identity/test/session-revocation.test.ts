import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { call, CookieJar, signIn, signUpAs, startTestIdentity, waitFor, type TestIdentity } from './helpers.js';

let t: TestIdentity;

beforeAll(async () => {
  t = await startTestIdentity('revocation');
});
afterAll(async () => {
  await t?.stop();
  await t?.db.drop();
});

const sidOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sid?: string }).sid;

function refresh(jar: CookieJar) {
  return call(t.url, '/api/auth/refresh', { method: 'POST', jar, headers: { 'x-xsrf-token': jar.get('XSRF-TOKEN') ?? '' } });
}

/** Waits until `token` is refused by GET /api/me (revocations reach the service over pub/sub). */
function refusedOnMe(token: string) {
  return waitFor(async () => {
    const r = await call(t.url, '/api/me', { token });
    return r.status === 401 ? r : undefined;
  }, 'the access token to be refused', 3000);
}

describe('access tokens of a sign-in session', () => {
  it('name the session (the refresh-token family) in `sid`, through refresh and a role change', async () => {
    const { token, jar } = await signUpAs(t.url, 'sid.claim@gmail.com', { type: 'poster', location: 'USA' });
    const sid = sidOf(token);
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    const refreshed = await refresh(jar);
    expect(sidOf(refreshed.body.access_token)).toBe(sid);
    const other = await signIn(t.url, 'sid.claim@gmail.com');
    expect(sidOf(other.token)).not.toBe(sid);
  });

  it('are refused with 401 token_revoked after logout; another session of the same user goes on', async () => {
    const first = await signIn(t.url, 'revoke.me@gmail.com');
    const second = await signIn(t.url, 'revoke.me@gmail.com');
    expect((await call(t.url, '/api/me', { token: first.token })).status).toBe(200);

    const out = await call(t.url, '/api/auth/logout', { method: 'POST', jar: first.jar });
    expect(out.body).toEqual({ success: true });
    const refused = await refusedOnMe(first.token);
    expect(refused.body).toEqual({ detail: expect.any(String), code: 'token_revoked' });

    expect((await call(t.url, '/api/me', { token: second.token })).status).toBe(200);
    expect((await refresh(second.jar)).status).toBe(200);
  });

  it('are refused after a refresh token of their session is reused', async () => {
    const { token, jar } = await signIn(t.url, 'reused@gmail.com');
    const stolen = jar.clone();
    const next = await refresh(jar);
    expect(next.status).toBe(200);
    expect((await refresh(stolen)).body).toMatchObject({ code: 'refresh_token_reused' });
    await refusedOnMe(token);
    await refusedOnMe(next.body.access_token);
  });
});
