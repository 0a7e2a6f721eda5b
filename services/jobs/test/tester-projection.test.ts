import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { migrationsFolder } from '../src/main.js';
import {
  admin,
  api,
  handled,
  outboxEvents,
  paidJob,
  poster,
  publish,
  startHarness,
  waitFor,
  type Harness,
} from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('tester_projection');
});
afterAll(async () => {
  await h?.close();
});

type Row = { id: string; type: string | null; approved: boolean | null; country: string | null };
const userRow = async (id: string) =>
  (
    await h.svc.ctx.dbHandle.query<Row>(
      'SELECT id, type, approved, country FROM jobs.users WHERE id = $1',
      [id],
    )
  )[0];

describe('a name changed at sign-in (identity UserRenamed)', () => {
  it("shows the poster's new name in the admin's job list", async () => {
    const p = await poster(h, 'Old Poster Name');
    const job = await paidJob(h, p, { title: 'Renamed poster job' });
    const e = await publish(h, 'UserRenamed', p.id, {
      userId: p.id,
      email: p.email,
      name: 'New Poster Name',
      previousName: 'Old Poster Name',
    });
    await waitFor(() => handled(h, e.id), 'the rename handled');
    const all = await api(h, 'GET', '/api/jobs', (await admin(h)).token);
    const row = all.body.jobs.find((j: { id: string }) => j.id === job.id);
    expect(row?.poster_info).toEqual(
      expect.objectContaining({ email: p.email, name: 'New Poster Name' }),
    );
  });
});

describe('JobPublished', () => {
  it("carries what the poster's receipt and the testers' job digest need", async () => {
    const p = await poster(h);
    const job = await paidJob(h, p, {
      title: 'Digest me',
      geo_rule: 'us_pr_ca',
      expected_completion_hours: 24,
    });
    const [published] = await waitFor(async () => {
      const list = await outboxEvents(h, 'JobPublished', job.id);
      return list.length ? list : undefined;
    }, 'JobPublished');
    expect(published.data).toMatchObject({
      jobId: job.id,
      posterId: p.id,
      geoRule: 'us_pr_ca',
      title: 'Digest me',
      expectedCompletionHours: 24,
      assistiveTech: null,
      siteHost: expect.any(String),
      reservedTesterId: null,
      reservedUntil: null,
    });
    expect(typeof published.data.freshEyes).toBe('boolean');
  });
});

describe('the tester projection', () => {
  it('makes a tester of a user approved through their signup (no role choice), so the admin can assign them', async () => {
    const id = randomUUID();
    const email = `tina-${id.slice(0, 6)}@gmail.com`;
    const name = 'Tina Tëster';
    // What identity publishes for a pre-approved tester's first sign-in, then her country change.
    await publish(h, 'UserSignedUp', id, { userId: id, email, name });
    await publish(h, 'TesterApprovalChanged', id, {
      userId: id,
      email,
      name,
      approved: true,
      country: null,
      reason: 'signup',
    });
    const last = await publish(h, 'TesterApprovalChanged', id, {
      userId: id,
      email,
      name,
      approved: true,
      country: 'US',
      reason: 'profile',
    });
    await waitFor(() => handled(h, last.id), 'the profile change handled');
    expect(await userRow(id)).toEqual({ id, type: 'tester', approved: true, country: 'US' });

    const job = await paidJob(h, await poster(h), { geo_rule: 'us_pr' });
    const r = await api(h, 'POST', `/api/admin/assign/${job.id}/${id}`, (await admin(h)).token);
    expect(r.status).toBe(200);
    expect(r.body.job).toMatchObject({ status: 'claimed', tester_id: id });
  });

  it('takes the location identity derives from the country, and keeps it when an older event has none', async () => {
    const id = randomUUID();
    const base = {
      userId: id,
      email: `loc-${id.slice(0, 6)}@gmail.com`,
      name: 'Lou',
      approved: true,
    };
    const loc = async () =>
      (
        await h.svc.ctx.dbHandle.query<{ location: string | null }>(
          'SELECT location FROM jobs.users WHERE id = $1',
          [id],
        )
      )[0]?.location;
    const a = await publish(h, 'TesterApprovalChanged', id, {
      ...base,
      country: 'US',
      location: 'USA',
      reason: 'profile',
    });
    await waitFor(() => handled(h, a.id), 'profile change handled');
    expect(await loc()).toBe('USA');
    const b = await publish(h, 'TesterApprovalChanged', id, {
      ...base,
      approved: false,
      country: 'US',
      reason: 'admin',
    });
    await waitFor(() => handled(h, b.id), 'older-shape event handled');
    expect(await loc()).toBe('USA');
  });

  it('migration 0002 repairs testers the old handler left without a type, and nobody else', async () => {
    const tina = randomUUID();
    const struck = randomUUID();
    const newcomer = randomUUID();
    const posterId = randomUUID();
    // The rows as the handlers before the fix left them.
    await h.svc.ctx.dbHandle.query(
      `INSERT INTO jobs.users (id, email, name, type, approved, country, strikes) VALUES
        ($1, 'tina@gmail.com', 'Tina Tëster', NULL, true, 'US', 0),
        ($2, 'struck@gmail.com', 'Struck', NULL, false, 'US', 3),
        ($3, 'new@gmail.com', 'Newcomer', NULL, NULL, NULL, 0),
        ($4, 'pat@gmail.com', 'Pat', 'poster', false, NULL, 0)`,
      [tina, struck, newcomer, posterId],
    );
    await h.svc.ctx.dbHandle.query(
      readFileSync(path.join(migrationsFolder, '0002_repair_tester_projection.sql'), 'utf8'),
    );
    expect(await userRow(tina)).toMatchObject({ type: 'tester', approved: true });
    expect(await userRow(struck)).toMatchObject({ type: 'tester', approved: false });
    expect(await userRow(newcomer)).toMatchObject({ type: null, approved: null });
    expect(await userRow(posterId)).toMatchObject({ type: 'poster' });

    const job = await paidJob(h, await poster(h), { geo_rule: 'us_pr' });
    expect(
      (await api(h, 'POST', `/api/admin/assign/${job.id}/${tina}`, (await admin(h)).token)).status,
    ).toBe(200);
  });
});
