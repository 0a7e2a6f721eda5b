/** "Sign-ins" (issue #27, item 8): a user's active sign-ins, each revocable by its owner only, and "Log out everywhere". */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SignInView } from '@htm/contracts';
import {
  call,
  CookieJar,
  devLogin,
  sessionIdOf,
  signIn,
  startTestIdentity,
  waitFor,
  type TestIdentity,
} from './helpers.js';

let t: TestIdentity;
beforeAll(async () => {
  t = await startTestIdentity('signins');
});
afterAll(async () => {
  await t?.stop();
  await t?.db.drop();
});

const WINDOWS_CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

/** A browser with this User-Agent signs in (dev sign-in + session exchange). */
async function browser(
  email: string,
  userAgent: string,
): Promise<{ token: string; jar: CookieJar }> {
  const login = await devLogin(t.url, { email, name: 'Sam' }, { 'user-agent': userAgent });
  const jar = new CookieJar().take(login);
  const res = await fetch(`${t.url}/api/auth/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': userAgent, cookie: jar.header() },
    body: JSON.stringify({ session_id: sessionIdOf(login.headers.get('location')) }),
  });
  jar.take(res);
  expect(res.status).toBe(200);
  return { token: ((await res.json()) as { access_token: string }).access_token, jar };
}

const sidOf = (token: string) =>
  (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sid: string }).sid;
const list = async (token: string) =>
  (await call<{ sessions: SignInView[] }>(t.url, '/api/auth/sessions', { token })).body.sessions;
const refresh = (jar: CookieJar) =>
  call(t.url, '/api/auth/refresh', {
    method: 'POST',
    jar,
    headers: { 'x-xsrf-token': jar.get('XSRF-TOKEN') ?? '' },
  });
const refusedOnMe = (token: string) =>
  waitFor(
    async () => {
      const r = await call(t.url, '/api/me', { token });
      return r.status === 401 ? r : undefined;
    },
    'the access token to be refused',
    3000,
  );

describe('GET /api/auth/sessions', () => {
  it("lists the caller's live sign-ins with the device and when each was last used, the asking one marked current", async () => {
    const laptop = await browser('sam.signins@gmail.com', WINDOWS_CHROME);
    const phone = await browser('sam.signins@gmail.com', IPHONE_SAFARI);
    const ended = await browser('sam.signins@gmail.com', WINDOWS_CHROME);
    await call(t.url, '/api/auth/logout', { method: 'POST', jar: ended.jar });
    await browser('someone.else@gmail.com', WINDOWS_CHROME);

    const sessions = await list(laptop.token);
    expect(sessions).toHaveLength(2);
    const byId = new Map(sessions.map((s) => [s.id, s]));
    expect(byId.get(sidOf(laptop.token))).toMatchObject({
      device: 'Chrome on Windows',
      user_agent: WINDOWS_CHROME,
      current: true,
    });
    expect(byId.get(sidOf(phone.token))).toMatchObject({
      device: 'Safari on iPhone',
      current: false,
    });
    for (const s of sessions) {
      expect(Date.parse(s.last_used_at)).toBeGreaterThanOrEqual(Date.parse(s.created_at));
      expect(Date.parse(s.expires_at)).toBeGreaterThan(Date.now());
    }
    // A refresh is a use: the phone comes first (most recently used).
    expect((await refresh(phone.jar)).status).toBe(200);
    expect((await list(laptop.token))[0].id).toBe(sidOf(phone.token));
    expect((await call(t.url, '/api/auth/sessions')).status).toBe(401);
  });
});

describe('DELETE /api/auth/sessions/{id}', () => {
  it('ends one of my sign-ins at once (its access token refused, its refresh token dead); the others go on', async () => {
    const laptop = await browser('rae.signins@gmail.com', WINDOWS_CHROME);
    const lost = await browser('rae.signins@gmail.com', IPHONE_SAFARI);
    const r = await call(t.url, `/api/auth/sessions/${sidOf(lost.token)}`, {
      method: 'DELETE',
      token: laptop.token,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true });
    expect((await refusedOnMe(lost.token)).body).toMatchObject({ code: 'token_revoked' });
    expect((await refresh(lost.jar)).status).toBe(401);
    expect((await list(laptop.token)).map((s) => s.id)).toEqual([sidOf(laptop.token)]);
    expect((await call(t.url, '/api/me', { token: laptop.token })).status).toBe(200);
    // Ended already: 404, as for anything not mine.
    expect(
      (
        await call(t.url, `/api/auth/sessions/${sidOf(lost.token)}`, {
          method: 'DELETE',
          token: laptop.token,
        })
      ).status,
    ).toBe(404);
  });

  it("refuses to end another user's sign-in (404 session_not_found, the same as an unknown id) and changes nothing", async () => {
    const victim = await browser('vic.signins@gmail.com', WINDOWS_CHROME);
    const attacker = await signIn(t.url, 'mallory.signins@gmail.com');
    for (const id of [sidOf(victim.token), '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const r = await call(t.url, `/api/auth/sessions/${id}`, {
        method: 'DELETE',
        token: attacker.token,
      });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: expect.any(String), code: 'session_not_found' });
    }
    expect((await call(t.url, '/api/me', { token: victim.token })).status).toBe(200);
    expect((await refresh(victim.jar)).status).toBe(200);
    const [row] = await t.svc.ctx.dbHandle.query<{ revoked_at: Date | null }>(
      'SELECT revoked_at FROM identity.refresh_families WHERE id = $1',
      [sidOf(victim.token)],
    );
    expect(row.revoked_at).toBeNull();
  });

  it('ending the current sign-in clears its cookies', async () => {
    const me = await browser('cur.signins@gmail.com', WINDOWS_CHROME);
    const r = await call(t.url, `/api/auth/sessions/${sidOf(me.token)}`, {
      method: 'DELETE',
      token: me.token,
      jar: me.jar,
    });
    expect(r.status).toBe(200);
    expect(me.jar.cookies.size).toBe(0);
  });
});

describe('POST /api/auth/logout-all', () => {
  it('ends every sign-in of the user (this one included) with the refresh cookie and the XSRF header; other users keep theirs', async () => {
    const a = await browser('all.signins@gmail.com', WINDOWS_CHROME);
    const b = await browser('all.signins@gmail.com', IPHONE_SAFARI);
    const bystander = await browser('bystander.signins@gmail.com', WINDOWS_CHROME);

    // Without the XSRF header (a cross-site form could send the cookie): refused, nothing ended.
    const forged = await call(t.url, '/api/auth/logout-all', {
      method: 'POST',
      jar: a.jar.clone(),
    });
    expect(forged.status).toBe(401);
    expect(forged.body.code).toBe('xsrf_mismatch');
    expect((await call(t.url, '/api/me', { token: b.token })).status).toBe(200);

    const r = await call<{ success: boolean; ended: number }>(t.url, '/api/auth/logout-all', {
      method: 'POST',
      jar: a.jar,
      headers: { 'x-xsrf-token': a.jar.get('XSRF-TOKEN')! },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, ended: 2 });
    expect(a.jar.cookies.size).toBe(0);
    for (const s of [a, b])
      expect((await refusedOnMe(s.token)).body).toMatchObject({ code: 'token_revoked' });
    expect((await refresh(b.jar)).status).toBe(401);
    expect((await call(t.url, '/api/me', { token: bystander.token })).status).toBe(200);
    expect(await list(bystander.token)).toHaveLength(1);
  });
});
