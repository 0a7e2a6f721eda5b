import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  CookieJar,
  devLogin,
  exchange,
  outboxEvents,
  publish,
  sessionIdOf,
  signIn,
  signUpAs,
  startTestIdentity,
  waitFor,
  type TestIdentity,
} from './helpers.js';

let t: TestIdentity;
let adminToken: string;

beforeAll(async () => {
  t = await startTestIdentity('testers');
  adminToken = (await signIn(t.url, 'admin@gmail.com', { name: 'Admin' })).token;
});
afterAll(async () => {
  await t?.stop();
  await t?.db.drop();
});

/** Waits until `token` is refused as stale by GET /api/me (claims changes reach the service over pub/sub). */
const staleOnMe = (token: string) =>
  waitFor(
    async () => {
      const r = await call(t.url, '/api/me', { token });
      return r.status === 401 ? r : undefined;
    },
    'the access token to be refused as stale',
    3000,
  );

/** A refresh in the sign-in of `jar`: the new access token. */
async function refreshed(jar: CookieJar): Promise<string> {
  const r = await call(t.url, '/api/auth/refresh', {
    method: 'POST',
    jar,
    headers: { 'x-xsrf-token': jar.get('XSRF-TOKEN') ?? '' },
  });
  expect(r.status).toBe(200);
  return r.body.access_token;
}

const userRow = async (email: string) =>
  (
    await t.svc.ctx.dbHandle.query<{
      id: string;
      type: string | null;
      approved: boolean;
      strikes: number;
    }>('SELECT id, type, approved, strikes FROM identity.users WHERE email = $1', [email])
  )[0];

describe('Secure Tester Login (intent=tester)', () => {
  it('refuses an unapproved tester, someone unknown and a site owner, each with what is true, and creates nothing for the unknown', async () => {
    await signUpAs(t.url, 'pending@gmail.com', { type: 'tester', location: 'USA', country: 'US' });
    const pending = await devLogin(t.url, { email: 'pending@gmail.com', intent: 'tester' });
    expect(pending.status).toBe(302);
    expect(pending.headers.get('location')).toBe('/#auth_error=tester_not_approved');
    const stranger = await devLogin(t.url, { email: 'stranger@gmail.com', intent: 'tester' });
    expect(stranger.headers.get('location')).toBe('/#auth_error=tester_signup_needed');
    expect(await userRow('stranger@gmail.com')).toBeUndefined();
    const poster = await signUpAs(t.url, 'a-poster@gmail.com', { type: 'poster', location: 'USA' });
    expect(poster.user.type).toBe('poster');
    expect(
      (await devLogin(t.url, { email: 'a-poster@gmail.com', intent: 'tester' })).headers.get(
        'location',
      ),
    ).toBe('/#auth_error=site_owner_account');
    // Signed in once as a poster, never chose a role: not signed up as a tester.
    expect((await devLogin(t.url, { email: 'no-role@gmail.com', intent: 'poster' })).status).toBe(
      302,
    );
    expect(
      (await devLogin(t.url, { email: 'no-role@gmail.com', intent: 'tester' })).headers.get(
        'location',
      ),
    ).toBe('/#auth_error=tester_signup_needed');
  });

  it('admits a tester once the admin approves them', async () => {
    const { user } = await signUpAs(t.url, 'approve-me@gmail.com', {
      type: 'tester',
      location: 'PR',
      country: 'PR',
    });
    const r = await call(t.url, `/api/admin/approve-tester/${user.id}`, {
      method: 'PATCH',
      token: adminToken,
      body: { approved: true },
    });
    expect(r.status).toBe(200);
    expect(r.body.tester).toMatchObject({
      id: user.id,
      approved: true,
      country: 'PR',
      location: 'PR',
      strikes: 0,
    });
    const login = await devLogin(t.url, { email: 'approve-me@gmail.com', intent: 'tester' });
    const { res, body } = await exchange(t.url, sessionIdOf(login.headers.get('location')), login);
    expect(res.status).toBe(200);
    const me = await call(t.url, '/api/me', { token: body.access_token as string });
    expect(me.body).toMatchObject({ type: 'tester', approved: true });
  });
});

describe('pre-approved signups (admin SignupApproved events)', () => {
  it('creates a brand-new pre-approved e-mail as an approved tester who only needs location and country', async () => {
    await publish(t, 'SignupApproved', randomUUID(), {
      entryId: randomUUID(),
      email: ' Fresh.Tester@Gmail.com',
      role: 'Tester (student)',
      approved: true,
    });
    await waitFor(
      async () =>
        (
          await t.svc.ctx.dbHandle.query(
            "SELECT 1 FROM identity.pre_approved_emails WHERE email = 'fresh.tester@gmail.com'",
          )
        ).length > 0,
      'pre-approval',
    );

    const login = await devLogin(t.url, {
      email: 'fresh.tester@gmail.com',
      name: 'Fresh',
      intent: 'tester',
    });
    expect(login.headers.get('location')).toMatch(/^\/#session_id=/);
    const { body } = await exchange(t.url, sessionIdOf(login.headers.get('location')), login);
    const token = body.access_token as string;
    const me = await call(t.url, '/api/me', { token });
    expect(me.body).toMatchObject({
      type: 'tester',
      approved: true,
      location: null,
      country: null,
    });
    expect(
      (await outboxEvents(t, 'TesterApprovalChanged', me.body.id)).map((e) => e.data.reason),
    ).toEqual(['signup']);

    const wrongRole = await call(t.url, '/api/users/init', {
      method: 'POST',
      token,
      body: { type: 'poster', location: 'USA' },
    });
    expect(wrongRole.status).toBe(409);
    const init = await call(t.url, '/api/users/init', {
      method: 'POST',
      token,
      body: { type: 'tester', location: 'USA', country: 'US' },
    });
    expect(init.status).toBe(200);
    expect(init.body.user).toMatchObject({
      type: 'tester',
      approved: true,
      location: 'USA',
      country: 'US',
    });
    // The role choice changed the claims: the older token is stale, the answer's token carries them.
    const again = {
      method: 'POST',
      token: init.body.access_token,
      body: { type: 'tester', location: 'USA', country: 'US' },
    };
    expect((await call(t.url, '/api/users/init', again)).status).toBe(409);
  });

  it('approves a pre-approved e-mail that chooses tester on the role screen, and approved=false takes it back', async () => {
    await publish(t, 'SignupApproved', randomUUID(), {
      entryId: randomUUID(),
      email: 'later@gmail.com',
      role: 'Tester (9-to-5)',
      approved: true,
    });
    await waitFor(
      async () =>
        (
          await t.svc.ctx.dbHandle.query(
            "SELECT 1 FROM identity.pre_approved_emails WHERE email = 'later@gmail.com'",
          )
        ).length > 0,
      'pre-approval',
    );
    const { user } = await signUpAs(t.url, 'later@gmail.com', {
      type: 'tester',
      location: 'USA',
      country: 'CA',
    });
    expect(user.approved).toBe(true);

    await publish(t, 'SignupApproved', randomUUID(), {
      entryId: randomUUID(),
      email: 'later@gmail.com',
      role: 'Tester (9-to-5)',
      approved: false,
    });
    await waitFor(async () => !(await userRow('later@gmail.com')).approved, 'unapproval');
    expect(
      await t.svc.ctx.dbHandle.query(
        "SELECT 1 FROM identity.pre_approved_emails WHERE email = 'later@gmail.com'",
      ),
    ).toHaveLength(0);
    const reasons = (await outboxEvents(t, 'TesterApprovalChanged', user.id)).map((e) => [
      e.data.reason,
      e.data.approved,
    ]);
    expect(reasons).toEqual([['signup', false]]);
  });
});

describe('landing-page signups waiting for the admin (admin WaitlistJoined events)', () => {
  it('tells a tester who signed up on the landing page that they wait for approval, then admits them once approved', async () => {
    const entryId = randomUUID();
    await publish(t, 'WaitlistJoined', entryId, {
      entryId,
      email: 'Landing.Signup@gmail.com',
      role: 'Tester (student)',
      name: 'Lana',
    });
    await waitFor(
      async () =>
        (
          await t.svc.ctx.dbHandle.query(
            "SELECT 1 FROM identity.pending_signups WHERE email = 'landing.signup@gmail.com'",
          )
        ).length > 0,
      'the pending signup',
    );

    const waiting = await devLogin(t.url, { email: 'landing.signup@gmail.com', intent: 'tester' });
    expect(waiting.headers.get('location')).toBe('/#auth_error=tester_signup_pending');
    expect(await userRow('landing.signup@gmail.com')).toBeUndefined();
    // The no-Gmail waitlist and job requests are not tester signups.
    const other = randomUUID();
    await publish(t, 'WaitlistJoined', other, {
      entryId: other,
      email: 'waitlist-only@gmail.com',
      role: 'tester',
      name: null,
    });
    await publish(t, 'SignupApproved', entryId, {
      entryId,
      email: 'landing.signup@gmail.com',
      role: 'Tester (student)',
      approved: true,
    });
    await waitFor(
      async () =>
        (
          await t.svc.ctx.dbHandle.query(
            "SELECT 1 FROM identity.pending_signups WHERE email = 'landing.signup@gmail.com'",
          )
        ).length === 0,
      'the signup approved',
    );
    expect(
      (await devLogin(t.url, { email: 'waitlist-only@gmail.com', intent: 'tester' })).headers.get(
        'location',
      ),
    ).toBe('/#auth_error=tester_signup_needed');

    const admitted = await devLogin(t.url, { email: 'landing.signup@gmail.com', intent: 'tester' });
    expect(admitted.headers.get('location')).toMatch(/^\/#session_id=/);

    // Un-approved again: waiting again (for a new account; this one is a tester now and is told it is not approved).
    await publish(t, 'SignupApproved', entryId, {
      entryId,
      email: 'landing.signup@gmail.com',
      role: 'Tester (student)',
      approved: false,
    });
    await waitFor(
      async () =>
        (
          await t.svc.ctx.dbHandle.query(
            "SELECT 1 FROM identity.pending_signups WHERE email = 'landing.signup@gmail.com'",
          )
        ).length > 0,
      'pending again',
    );
    expect(
      (await devLogin(t.url, { email: 'landing.signup@gmail.com', intent: 'tester' })).headers.get(
        'location',
      ),
    ).toBe('/#auth_error=tester_not_approved');
  });
});

describe('a name changed at sign-in', () => {
  it('is stored and announced as UserRenamed (e-mails and the admin lists follow it)', async () => {
    const first = await devLogin(t.url, {
      email: 'renamed@gmail.com',
      name: 'Old Name',
      intent: 'poster',
    });
    expect(first.status).toBe(302);
    const id = (await userRow('renamed@gmail.com')).id;
    await devLogin(t.url, { email: 'renamed@gmail.com', name: 'Old Name', intent: 'poster' });
    expect(await outboxEvents(t, 'UserRenamed', id)).toEqual([]);
    await devLogin(t.url, { email: 'renamed@gmail.com', name: 'New Name', intent: 'poster' });
    const renamed = await outboxEvents(t, 'UserRenamed', id);
    expect(renamed.map((e) => e.data)).toEqual([
      { userId: id, email: 'renamed@gmail.com', name: 'New Name', previousName: 'Old Name' },
    ]);
  });
});

describe('admin tester management', () => {
  it('lists testers and available testers with approval, country, location and strikes', async () => {
    const a = await signUpAs(t.url, 'list-a@gmail.com', {
      type: 'tester',
      location: 'USA',
      country: 'US',
    });
    const b = await signUpAs(t.url, 'list-b@gmail.com', {
      type: 'tester',
      location: 'PR',
      country: 'PR',
    });
    await call(t.url, `/api/admin/approve-tester/${b.user.id}`, {
      method: 'PATCH',
      token: adminToken,
      body: { approved: true },
    });
    const all = await call(t.url, '/api/admin/testers', { token: adminToken });
    expect(all.status).toBe(200);
    const rowA = all.body.testers.find((x: { id: string }) => x.id === a.user.id);
    expect(rowA).toEqual({
      id: a.user.id,
      email: 'list-a@gmail.com',
      name: 'Test Person',
      approved: false,
      country: 'US',
      location: 'USA',
      strikes: 0,
      created_at: expect.any(String),
      assistive_tech: [],
      rating_avg: null,
      rating_count: 0,
    });
    expect(
      all.body.testers.every(
        (x: { email: string }) => x.email !== 'a-poster@gmail.com' && x.email !== 'admin@gmail.com',
      ),
    ).toBe(true);
    const avail = await call(t.url, '/api/admin/available-testers', { token: adminToken });
    const ids = avail.body.testers.map((x: { id: string }) => x.id);
    expect(ids).toContain(b.user.id);
    expect(ids).not.toContain(a.user.id);
    expect(avail.body.testers.every((x: { approved: boolean }) => x.approved)).toBe(true);
  });

  it('toggles approval both ways and emits TesterApprovalChanged (reason admin) for each change', async () => {
    const { user } = await signUpAs(t.url, 'toggle@gmail.com', {
      type: 'tester',
      location: 'USA',
      country: 'US',
    });
    const path = `/api/admin/approve-tester/${user.id}`;
    expect(
      (await call(t.url, path, { method: 'PATCH', token: adminToken, body: { approved: true } }))
        .body.tester.approved,
    ).toBe(true);
    expect(
      (await call(t.url, path, { method: 'PATCH', token: adminToken, body: { approved: false } }))
        .body.tester.approved,
    ).toBe(false);
    const events = await outboxEvents(t, 'TesterApprovalChanged', user.id);
    expect(events.map((e) => [e.data.reason, e.data.approved])).toEqual([
      ['admin', true],
      ['admin', false],
    ]);
    expect(events[0]).toMatchObject({
      source: 'identity',
      type: 'TesterApprovalChanged',
      subject: user.id,
      data: { email: 'toggle@gmail.com', country: 'US' },
    });
    // The relay publishes them to the identity stream.
    await waitFor(
      async () =>
        (
          await t.svc.ctx.dbHandle.query(
            'SELECT 1 FROM identity.outbox WHERE subject = $1 AND published_at IS NULL',
            [user.id],
          )
        ).length === 0,
      'relay',
    );
  });

  it('answers 400 for a bad body and 404 for someone who is not a tester', async () => {
    const { user } = await signUpAs(t.url, 'bad-body@gmail.com', {
      type: 'tester',
      location: 'USA',
      country: 'US',
    });
    const bad = await call(t.url, `/api/admin/approve-tester/${user.id}`, {
      method: 'PATCH',
      token: adminToken,
      body: { approved: 'yes' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveProperty('approved');
    expect((await userRow('bad-body@gmail.com')).approved).toBe(false);
    const poster = await userRow('a-poster@gmail.com');
    expect(
      (
        await call(t.url, `/api/admin/approve-tester/${poster.id}`, {
          method: 'PATCH',
          token: adminToken,
          body: { approved: true },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(t.url, `/api/admin/approve-tester/not-a-uuid`, {
          method: 'PATCH',
          token: adminToken,
          body: { approved: true },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(t.url, `/api/admin/approve-tester/${randomUUID()}`, {
          method: 'PATCH',
          token: adminToken,
          body: { approved: true },
        })
      ).status,
    ).toBe(404);
  });

  it('lets only the admin in: 401 without a token, 403 for posters and testers', async () => {
    const poster = await signUpAs(t.url, 'authz-poster@gmail.com', {
      type: 'poster',
      location: 'USA',
    });
    const tester = await signUpAs(t.url, 'authz-tester@gmail.com', {
      type: 'tester',
      location: 'USA',
      country: 'US',
    });
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/api/admin/testers'],
      ['GET', '/api/admin/available-testers'],
      ['PATCH', `/api/admin/approve-tester/${tester.user.id}`, { approved: true }],
    ];
    for (const [method, path, body] of routes) {
      expect([path, (await call(t.url, path, { method, body })).status]).toEqual([path, 401]);
      expect([
        path,
        (await call(t.url, path, { method, body, token: poster.token })).status,
      ]).toEqual([path, 403]);
      expect([
        path,
        (await call(t.url, path, { method, body, token: tester.token })).status,
      ]).toEqual([path, 403]);
    }
    expect((await userRow('authz-tester@gmail.com')).approved).toBe(false);
  });
});

describe('strikes (jobs TesterStrikeRecorded events)', () => {
  it('stores strikes and unapproves the tester at the third', async () => {
    const { user } = await signUpAs(t.url, 'striker@gmail.com', {
      type: 'tester',
      location: 'USA',
      country: 'US',
    });
    await call(t.url, `/api/admin/approve-tester/${user.id}`, {
      method: 'PATCH',
      token: adminToken,
      body: { approved: true },
    });
    for (let i = 1; i <= 2; i++) {
      const e = await publish(t, 'TesterStrikeRecorded', user.id, {
        testerId: user.id,
        jobId: randomUUID(),
        strikes: i,
        reason: 'claim_timeout',
      });
      // Redelivery of the same event does nothing twice.
      if (i === 1) await t.svc.ctx.bus.publish([e]);
    }
    await waitFor(async () => (await userRow('striker@gmail.com')).strikes === 2, 'two strikes');
    expect((await userRow('striker@gmail.com')).approved).toBe(true);

    await publish(t, 'TesterStrikeRecorded', user.id, {
      testerId: user.id,
      jobId: randomUUID(),
      strikes: 3,
      reason: 'revision_expired',
    });
    await waitFor(async () => (await userRow('striker@gmail.com')).strikes === 3, 'three strikes');
    expect((await userRow('striker@gmail.com')).approved).toBe(false);
    const events = await outboxEvents(t, 'TesterApprovalChanged', user.id);
    expect(events.map((e) => [e.data.reason, e.data.approved])).toEqual([
      ['admin', true],
      ['strikes', false],
    ]);
    const listed = await call(t.url, '/api/admin/testers', { token: adminToken });
    expect(listed.body.testers.find((x: { id: string }) => x.id === user.id)).toMatchObject({
      strikes: 3,
      approved: false,
    });
  });

  it('lets a tester released by the strike rule in at the tester entrance, paused (/api/me says released), until an admin re-approves them; each change keeps the sign-in', async () => {
    const {
      user,
      token: first,
      jar,
    } = await signUpAs(t.url, 'released@gmail.com', {
      type: 'tester',
      location: 'USA',
      country: 'US',
    });
    const waiting = await signUpAs(t.url, 'still-waiting@gmail.com', {
      type: 'tester',
      location: 'USA',
      country: 'US',
    });
    expect((await call(t.url, '/api/me', { token: waiting.token })).body).toMatchObject({
      approved: false,
      released: false,
    });
    await call(t.url, `/api/admin/approve-tester/${user.id}`, {
      method: 'PATCH',
      token: adminToken,
      body: { approved: true },
    });
    // The token that still says "not approved" is stale; a refresh in the same sign-in says approved.
    expect((await staleOnMe(first)).body).toMatchObject({ code: 'token_stale' });
    let token = await refreshed(jar);
    expect((await call(t.url, '/api/me', { token })).body).toMatchObject({
      approved: true,
      released: false,
    });
    for (let i = 1; i <= 3; i++)
      await publish(t, 'TesterStrikeRecorded', user.id, {
        testerId: user.id,
        jobId: randomUUID(),
        strikes: i,
        reason: 'claim_timeout',
      });
    await waitFor(
      async () => (await userRow('released@gmail.com')).approved === false,
      'released at three strikes',
    );

    // The release made the token stale, not the sign-in: refreshed, /api/me says why.
    expect((await staleOnMe(token)).body).toMatchObject({ code: 'token_stale' });
    token = await refreshed(jar);
    expect((await call(t.url, '/api/me', { token })).body).toMatchObject({
      approved: false,
      released: true,
    });
    // A new sign-in at the tester entrance gets in too (#34: the paused dashboard shows the strikes and the appeal form).
    const again = await devLogin(t.url, {
      email: 'released@gmail.com',
      name: 'Test Person',
      intent: 'tester',
    });
    const second = await exchange(
      t.url,
      sessionIdOf(again.headers.get('location')),
      new CookieJar().take(again),
    );
    expect(second.res.status).toBe(200);
    expect(
      (await call(t.url, '/api/me', { token: second.body.access_token as string })).body,
    ).toMatchObject({ type: 'tester', approved: false, released: true });

    await call(t.url, `/api/admin/approve-tester/${user.id}`, {
      method: 'PATCH',
      token: adminToken,
      body: { approved: true },
    });
    expect((await staleOnMe(token)).body).toMatchObject({ code: 'token_stale' });
    expect((await call(t.url, '/api/me', { token: await refreshed(jar) })).body).toMatchObject({
      approved: true,
      released: false,
    });
    expect(
      (await call(t.url, '/api/me', { token: await refreshed(second.jar) })).body,
    ).toMatchObject({ approved: true, released: false });
    expect(
      (
        await devLogin(t.url, {
          email: 'released@gmail.com',
          name: 'Test Person',
          intent: 'tester',
        })
      ).headers.get('location'),
    ).toMatch(/^\/#session_id=/);
    // Through all of it, both sign-ins live: nothing was revoked.
    const families = await t.svc.ctx.dbHandle.query<{ revoked_at: Date | null }>(
      'SELECT f.revoked_at FROM identity.refresh_families f JOIN identity.users u ON u.id = f.user_id WHERE u.email = $1',
      ['released@gmail.com'],
    );
    expect(families.map((f) => f.revoked_at)).toEqual([null, null]);
  });

  it('still refuses at the tester entrance a tester who is not approved for any other reason (never approved, or un-approved by the admin below the strike limit)', async () => {
    // Never approved: "not approved yet", whatever the other testers' strikes.
    await signUpAs(t.url, 'never-approved@gmail.com', {
      type: 'tester',
      location: 'USA',
      country: 'US',
    });
    expect(
      (
        await devLogin(t.url, {
          email: 'never-approved@gmail.com',
          name: 'Test Person',
          intent: 'tester',
        })
      ).headers.get('location'),
    ).toBe('/#auth_error=tester_not_approved');

    // Approved, two strikes (below the limit of 3), then un-approved by the admin: refused too.
    const { user } = await signUpAs(t.url, 'admin-paused@gmail.com', {
      type: 'tester',
      location: 'USA',
      country: 'US',
    });
    await call(t.url, `/api/admin/approve-tester/${user.id}`, {
      method: 'PATCH',
      token: adminToken,
      body: { approved: true },
    });
    for (let i = 1; i <= 2; i++)
      await publish(t, 'TesterStrikeRecorded', user.id, {
        testerId: user.id,
        jobId: randomUUID(),
        strikes: i,
        reason: 'claim_timeout',
      });
    await waitFor(
      async () => (await userRow('admin-paused@gmail.com')).strikes === 2,
      'two strikes',
    );
    await call(t.url, `/api/admin/approve-tester/${user.id}`, {
      method: 'PATCH',
      token: adminToken,
      body: { approved: false },
    });
    expect(
      (
        await devLogin(t.url, {
          email: 'admin-paused@gmail.com',
          name: 'Test Person',
          intent: 'tester',
        })
      ).headers.get('location'),
    ).toBe('/#auth_error=tester_not_approved');
    // (The site owner, unknown and pending-signup refusals keep their codes: 'Secure Tester Login' above.)
  });
});
