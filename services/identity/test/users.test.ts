import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { migrationsFolder } from '../src/main.js';
import {
  call,
  outboxEvents,
  signIn,
  startTestIdentity,
  waitFor,
  type TestIdentity,
} from './helpers.js';

let t: TestIdentity;

beforeAll(async () => {
  t = await startTestIdentity('users');
});
afterAll(async () => {
  await t?.stop();
  await t?.db.drop();
});

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());

describe('POST /api/users/init (Choose Your Role)', () => {
  it('answers 400 with the role, location and country messages and changes nothing', async () => {
    const { token } = await signIn(t.url, 'chooser@gmail.com');
    const empty = await call(t.url, '/api/users/init', { method: 'POST', token, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({
      code: 'validation_error',
      errors: { type: ['Please choose a role'], location: ['Please choose a location'] },
    });
    const testerNoCountry = await call(t.url, '/api/users/init', {
      method: 'POST',
      token,
      body: { type: 'tester', location: 'USA' },
    });
    expect(testerNoCountry.status).toBe(400);
    expect(testerNoCountry.body.errors).toEqual({ country: ['Please choose a country'] });
    const badCountry = await call(t.url, '/api/users/init', {
      method: 'POST',
      token,
      body: { type: 'tester', location: 'USA', country: 'MX' },
    });
    expect(badCountry.body.errors).toEqual({ country: ['Please choose a country'] });
    const admin = await call(t.url, '/api/users/init', {
      method: 'POST',
      token,
      body: { type: 'admin', location: 'USA' },
    });
    expect(admin.status).toBe(400);
    expect(admin.body.errors).toEqual({ type: ['Please choose a role'] });
    const me = await call(t.url, '/api/me', { token });
    expect(me.body).toMatchObject({ type: null, location: null, country: null });
  });

  it('sets a poster once, answers {user, access_token} with the new type, and 409 the second time', async () => {
    const { token } = await signIn(t.url, 'poster-init@gmail.com');
    const r = await call(t.url, '/api/users/init', {
      method: 'POST',
      token,
      body: { type: 'poster', location: 'PR', country: 'CA' },
    });
    expect(r.status).toBe(200);
    expect(r.body.user).toMatchObject({
      email: 'poster-init@gmail.com',
      type: 'poster',
      location: 'PR',
      country: null,
      approved: false,
    });
    expect(claimsOf(r.body.access_token)).toMatchObject({
      type: 'poster',
      location: 'PR',
      country: null,
    });
    const again = await call(t.url, '/api/users/init', {
      method: 'POST',
      token: r.body.access_token,
      body: { type: 'tester', location: 'USA', country: 'US' },
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'role_already_chosen' });
    const events = await outboxEvents(t, 'UserRoleChosen', r.body.user.id);
    expect(events.map((e) => e.data)).toEqual([
      {
        userId: r.body.user.id,
        email: 'poster-init@gmail.com',
        name: 'Test Person',
        type: 'poster',
        location: 'PR',
        country: null,
        approved: false,
      },
    ]);
  });

  it('starts a new tester unapproved', async () => {
    const { token } = await signIn(t.url, 'new-tester@gmail.com');
    const r = await call(t.url, '/api/users/init', {
      method: 'POST',
      token,
      body: { type: 'tester', location: 'USA', country: 'US' },
    });
    expect(r.status).toBe(200);
    expect(r.body.user).toMatchObject({
      type: 'tester',
      location: 'USA',
      country: 'US',
      approved: false,
    });
  });

  it('ignores fields it does not list (no mass assignment)', async () => {
    const { token } = await signIn(t.url, 'sneaky@gmail.com', { name: 'Sneaky' });
    const me = await call(t.url, '/api/me', { token });
    const r = await call(t.url, '/api/users/init', {
      method: 'POST',
      token,
      body: {
        type: 'tester',
        location: 'USA',
        country: 'US',
        approved: true,
        email: 'admin@gmail.com',
        id: '00000000-0000-4000-8000-000000000000',
        name: 'Root',
        strikes: -5,
        google_sub: 'x',
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.user).toEqual({
      ...me.body,
      type: 'tester',
      location: 'USA',
      country: 'US',
      approved: false,
      assistive_tech: [],
      rating_avg: null,
      rating_count: 0,
    });
    const rows = await t.svc.ctx.dbHandle.query(
      'SELECT email, name, approved, strikes, google_sub FROM identity.users WHERE id = $1',
      [me.body.id],
    );
    expect(rows).toEqual([
      {
        email: 'sneaky@gmail.com',
        name: 'Sneaky',
        approved: false,
        strikes: 0,
        google_sub: 'dev:sneaky@gmail.com',
      },
    ]);
    const p = await call(t.url, '/api/users/profile', {
      method: 'PATCH',
      token: r.body.access_token,
      body: { country: 'CA', type: 'admin', approved: true },
    });
    expect(p.status).toBe(200);
    expect(p.body.user).toEqual({ ...r.body.user, country: 'CA' });
  });

  it('needs a token (401)', async () => {
    expect(
      (
        await call(t.url, '/api/users/init', {
          method: 'POST',
          body: { type: 'poster', location: 'USA' },
        })
      ).status,
    ).toBe(401);
    expect(
      (await call(t.url, '/api/users/profile', { method: 'PATCH', body: { country: 'US' } }))
        .status,
    ).toBe(401);
  });
});

describe('PATCH /api/users/profile', () => {
  it('changes a tester country, returns a fresh token and announces TesterApprovalChanged (reason profile)', async () => {
    const { token } = await signIn(t.url, 'mover@gmail.com');
    const init = await call(t.url, '/api/users/init', {
      method: 'POST',
      token,
      body: { type: 'tester', location: 'PR', country: 'PR' },
    });
    const r = await call(t.url, '/api/users/profile', {
      method: 'PATCH',
      token: init.body.access_token,
      body: { country: 'CA' },
    });
    expect(r.status).toBe(200);
    expect(r.body.user).toMatchObject({ country: 'CA', location: 'PR' });
    expect(claimsOf(r.body.access_token).country).toBe('CA');
    const events = await outboxEvents(t, 'TesterApprovalChanged', init.body.user.id);
    expect(events.map((e) => e.data)).toEqual([
      {
        userId: init.body.user.id,
        email: 'mover@gmail.com',
        name: 'Test Person',
        approved: false,
        country: 'CA',
        location: 'PR',
        assistiveTech: [],
        reason: 'profile',
        strikeLimit: 3,
      },
    ]);
    const me = await call(t.url, '/api/me', { token: r.body.access_token });
    expect(me.body.country).toBe('CA');
    // The tokens issued before the change (the sign-in's, the role choice's) carry the old claims: stale.
    for (const old of [token, init.body.access_token]) {
      const refused = await waitFor(
        async () => {
          const res = await call(t.url, '/api/me', { token: old });
          return res.status === 401 ? res : undefined;
        },
        'the older token to be refused',
        3000,
      );
      expect(refused.body.code).toBe('token_stale');
    }
  });

  it('gives a tester the location of their country (US is USA, PR is PR) on every path; Canada keeps the chosen one', async () => {
    // the role screen: the country decides, whatever location was picked
    const { token } = await signIn(t.url, 'islander@gmail.com');
    const init = await call(t.url, '/api/users/init', {
      method: 'POST',
      token,
      body: { type: 'tester', location: 'USA', country: 'PR' },
    });
    expect(init.body.user).toMatchObject({ location: 'PR', country: 'PR' });
    const toUs = await call(t.url, '/api/users/profile', {
      method: 'PATCH',
      token: init.body.access_token,
      body: { country: 'US' },
    });
    expect(toUs.body.user).toMatchObject({ location: 'USA', country: 'US' });
    expect(claimsOf(toUs.body.access_token)).toMatchObject({ location: 'USA', country: 'US' });
    expect(
      (await outboxEvents(t, 'TesterApprovalChanged', init.body.user.id)).map(
        (e) => e.data.location,
      ),
    ).toEqual(['USA']);
    const toCa = await call(t.url, '/api/users/profile', {
      method: 'PATCH',
      token: toUs.body.access_token,
      body: { country: 'CA' },
    });
    expect(toCa.body.user).toMatchObject({ location: 'USA', country: 'CA' });
    // a tester who never saw the role screen (pre-approved signup) gets a location with her country
    await t.svc.ctx.dbHandle.query(
      'UPDATE identity.users SET location = NULL, country = NULL WHERE id = $1',
      [init.body.user.id],
    );
    const fromNone = await call(t.url, '/api/users/profile', {
      method: 'PATCH',
      token: toCa.body.access_token,
      body: { country: 'US' },
    });
    expect(fromNone.body.user).toMatchObject({ location: 'USA', country: 'US' });
    expect(
      (await call(t.url, '/api/me', { token: fromNone.body.access_token })).body,
    ).toMatchObject({ location: 'USA', country: 'US' });
  });

  it('migration 0001 gives existing US and PR testers their location and leaves others alone', async () => {
    const rows = ['us-none', 'pr-none', 'us-wrong', 'ca-none', 'ca-pr', 'poster-us'];
    const ids: Record<string, string> = {};
    for (const name of rows) {
      const { token } = await signIn(t.url, `m-${name}@gmail.com`);
      ids[name] = (await call(t.url, '/api/me', { token })).body.id;
    }
    const set = (name: string, type: string, location: string | null, country: string | null) =>
      t.svc.ctx.dbHandle.query(
        'UPDATE identity.users SET type = $2, location = $3, country = $4 WHERE id = $1',
        [ids[name], type, location, country],
      );
    await set('us-none', 'tester', null, 'US');
    await set('pr-none', 'tester', null, 'PR');
    await set('us-wrong', 'tester', 'PR', 'US');
    await set('ca-none', 'tester', null, 'CA');
    await set('ca-pr', 'tester', 'PR', 'CA');
    await set('poster-us', 'poster', 'PR', null);
    await t.svc.ctx.dbHandle.query(
      readFileSync(path.join(migrationsFolder, '0001_repair_tester_location.sql'), 'utf8'),
    );
    const got = await t.svc.ctx.dbHandle.query<{ id: string; location: string | null }>(
      'SELECT id, location FROM identity.users WHERE id = ANY($1)',
      [Object.values(ids)],
    );
    const byName = Object.fromEntries(
      rows.map((n) => [n, got.find((g) => g.id === ids[n])?.location]),
    );
    expect(byName).toEqual({
      'us-none': 'USA',
      'pr-none': 'PR',
      'us-wrong': 'USA',
      'ca-none': null,
      'ca-pr': 'PR',
      'poster-us': 'PR',
    });
  });

  it('answers 400 for a bad country and 403 for non-testers', async () => {
    const { token } = await signIn(t.url, 'profile-poster@gmail.com');
    const bad = await call(t.url, '/api/users/profile', {
      method: 'PATCH',
      token,
      body: { country: 'FR' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual({ country: ['Please choose a country'] });
    const init = await call(t.url, '/api/users/init', {
      method: 'POST',
      token,
      body: { type: 'poster', location: 'USA' },
    });
    const poster = await call(t.url, '/api/users/profile', {
      method: 'PATCH',
      token: init.body.access_token,
      body: { country: 'US' },
    });
    expect(poster.status).toBe(403);
  });
});
