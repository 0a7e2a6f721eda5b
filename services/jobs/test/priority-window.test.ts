import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { migrationsFolder } from '../src/main.js';
import {
  api,
  paidJob,
  poster,
  startHarness,
  tester,
  type Harness,
  type Person,
} from './helpers.js';

/** PRIORITY_WINDOW_MS=0 turns the window off: a top-rated tester exists, yet everyone sees new jobs at once. */
let h: Harness;
let top: Person;
let other: Person;
beforeAll(async () => {
  h = await startHarness('priority_off', { PRIORITY_WINDOW_MS: '0' });
  top = await tester(h, { country: 'US' });
  other = await tester(h, { country: 'US' });
  // Arrange: `top` has 5 stars over 3 ratings in the projection (what three rated jobs leave).
  await h.svc.ctx.dbHandle.query(
    'UPDATE jobs.users SET rating_sum = 15, rating_count = 3 WHERE id = $1',
    [top.id],
  );
});
afterAll(async () => {
  await h?.close();
});

describe('PRIORITY_WINDOW_MS=0', () => {
  it('lists and lets anyone claim a job the moment it is paid', async () => {
    const job = await paidJob(h, await poster(h), { geo_rule: 'us_pr' });
    const page = await api(h, 'GET', '/api/tester/available-jobs', other.token);
    expect(page.body.jobs.map((j) => j.id)).toContain(job.id);
    const claim = await api(h, 'POST', `/api/jobs/${job.id}/claim`, other.token);
    expect(claim.status).toBe(200);
  });
});

describe('migration 0003', () => {
  it('fills site_host of jobs posted before it (host, lower-case, without www.)', async () => {
    const job = await paidJob(h, await poster(h), {
      url: 'https://WWW.Old-Bakery.example:8443/menu?x=1',
    });
    // The row as the release before this one left it.
    await h.svc.ctx.dbHandle.query("UPDATE jobs.jobs SET site_host = '' WHERE id = $1", [job.id]);
    const sql = readFileSync(path.join(migrationsFolder, '0003_beyond_peers.sql'), 'utf8');
    const backfill = sql.split('--> statement-breakpoint').find((s) => s.includes('UPDATE'))!;
    await h.svc.ctx.dbHandle.query(backfill);
    const [row] = await h.svc.ctx.dbHandle.query<{ site_host: string }>(
      'SELECT site_host FROM jobs.jobs WHERE id = $1',
      [job.id],
    );
    expect(row.site_host).toBe('old-bakery.example');
  });
});
