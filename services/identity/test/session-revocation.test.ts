import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  CookieJar,
  signIn,
  signUpAs,
  startTestIdentity,
  waitFor,
  type TestIdentity,
} from './helpers.js';

let adminToken: string;

let t: TestIdentity;

beforeAll(async () => {
  t = await startTestIdentity('revocation');
  adminToken = (await signIn(t.url, 'admin@gmail.com')).token;
});
afterAll(async () => {
  await t?.stop();
  await t?.db.drop();
});

const sidOf = (token: string) =>
  (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sid?: string }).sid;

function refresh(jar: CookieJar) {
  return call(t.url, '/api/auth/refresh', {
    method: 'POST',
    jar,
    headers: { 'x-xsrf-token': jar.get('XSRF-TOKEN') ?? '' },
  });
}

/** Waits until `token` is refused by GET /api/me (revocations reach the service over pub/sub). */
function refusedOnMe(token: string) {
  return waitFor(
    async () => {
      const r = await call(t.url, '/api/me', { token });
      return r.status === 401 ? r : undefined;
    },
    'the access token to be refused',
    3000,
  );
}

describe('access tokens of a sign-in session', () => {
  it('name the session (the refresh-token family) in `sid`, through refresh and a role change', async () => {
    const { token, jar } = await signUpAs(t.url, 'sid.claim@gmail.com', {
      type: 'poster',
      location: 'USA',
    });
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

const query = <T>(text: string, params: unknown[]) => t.svc.ctx.dbHandle.query<T>(text, params);

describe('a change of approval (the sign-in goes on)', () => {
  it('refuses the tokens with the old approval as 401 token_stale; one refresh in the same session carries approved: true', async () => {
    const { token, jar, user } = await signUpAs(t.url, 'stale.tester@gmail.com', {
      type: 'tester',
      location: 'USA',
      country: 'US',
    });
    expect((await call(t.url, '/api/me', { token })).body).toMatchObject({ approved: false });
    const approve = await call(t.url, `/api/admin/approve-tester/${user.id}`, {
      method: 'PATCH',
      token: adminToken,
      body: { approved: true },
    });
    expect(approve.status).toBe(200);

    const stale = await waitFor(
      async () => {
        const r = await call(t.url, '/api/me', { token });
        return r.status === 401 ? r : undefined;
      },
      'the old token to be refused as stale',
      3000,
    );
    expect(stale.body).toEqual({ detail: expect.any(String), code: 'token_stale' });

    const next = await refresh(jar);
    expect(next.status).toBe(200);
    const fresh = next.body.access_token;
    expect(sidOf(fresh)).toBe(sidOf(token));
    expect(JSON.parse(Buffer.from(fresh.split('.')[1], 'base64url').toString())).toMatchObject({
      approved: true,
    });
    expect((await call(t.url, '/api/me', { token: fresh })).body).toMatchObject({ approved: true });
    const [family] = await query<{ revoked_at: Date | null }>(
      'SELECT revoked_at FROM identity.refresh_families WHERE id = $1',
      [sidOf(token)],
    );
    expect(family.revoked_at).toBeNull();
  });

  it('leaves the tokens of other users alone', async () => {
    const other = await signUpAs(t.url, 'stale.bystander@gmail.com', {
      type: 'poster',
      location: 'USA',
    });
    const { user } = await signUpAs(t.url, 'stale.approved2@gmail.com', {
      type: 'tester',
      location: 'USA',
      country: 'US',
    });
    await call(t.url, `/api/admin/approve-tester/${user.id}`, {
      method: 'PATCH',
      token: adminToken,
      body: { approved: true },
    });
    expect((await call(t.url, '/api/me', { token: other.token })).status).toBe(200);
  });
});

describe('routes that answer a new access token (role choice, profile)', () => {
  it('mint one only for a sign-in that is alive: a token of an ended sign-in cannot renew itself, and changes nothing', async () => {
    const tester = await signUpAs(t.url, 'renew.thief@gmail.com', {
      type: 'tester',
      location: 'USA',
      country: 'US',
    });
    const ok = await call(t.url, '/api/users/profile', {
      method: 'PATCH',
      token: tester.token,
      body: { country: 'PR' },
    });
    expect(ok.status).toBe(200);
    expect(sidOf(ok.body.access_token)).toBe(sidOf(tester.token));

    // The sign-in passes its idle timeout (no announcement reaches the services: only the row says so).
    await query(
      `UPDATE identity.refresh_tokens SET created_at = now() - interval '8 days' WHERE family_id = $1`,
      [sidOf(tester.token)],
    );
    const stolen = ok.body.access_token;
    const renew = await call(t.url, '/api/users/profile', {
      method: 'PATCH',
      token: stolen,
      body: { country: 'US' },
    });
    expect(renew.status).toBe(401);
    expect(renew.body).toEqual({ detail: expect.any(String), code: 'token_revoked' });
    expect((await call(t.url, '/api/me', { token: stolen })).body).toMatchObject({ country: 'PR' });

    // A new user whose sign-in expired cannot choose a role (and get a token) with it either.
    const newcomer = await signIn(t.url, 'renew.newcomer@gmail.com');
    await query(
      "UPDATE identity.refresh_families SET expires_at = now() - interval '1 second' WHERE id = $1",
      [sidOf(newcomer.token)],
    );
    const init = await call(t.url, '/api/users/init', {
      method: 'POST',
      token: newcomer.token,
      body: { type: 'poster', location: 'USA' },
    });
    expect(init.status).toBe(401);
    expect(init.body.access_token).toBeUndefined();
    expect((await call(t.url, '/api/me', { token: newcomer.token })).body).toMatchObject({
      type: null,
    });
  });

  it('refuse a token whose sign-in was logged out', async () => {
    const p = await signIn(t.url, 'renew.logout@gmail.com');
    await call(t.url, '/api/auth/logout', { method: 'POST', jar: p.jar });
    const r = await call(t.url, '/api/users/init', {
      method: 'POST',
      token: p.token,
      body: { type: 'poster', location: 'USA' },
    });
    expect(r.status).toBe(401);
    expect(r.body.access_token).toBeUndefined();
    const [row] = await query<{ type: string | null }>(
      'SELECT type FROM identity.users WHERE email = $1',
      ['renew.logout@gmail.com'],
    );
    expect(row.type).toBeNull();
  });
});
