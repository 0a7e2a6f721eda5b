import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TesterStandingView } from '@htm/contracts';
import {
  api,
  paidJob,
  poster,
  startHarness,
  tester,
  type Harness,
  type Person,
} from './helpers.js';

/** GET /api/tester/standing: jobs completed, acceptance rate, average rating and level; Top opens the priority window. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness('standing');
});
afterAll(async () => {
  await h?.close();
});

function quickReport() {
  const f = new FormData();
  f.append('feedback_text', 'The signup button is hidden below the fold on mobile.');
  f.append('key_finding_1', 'Signup button hard to find');
  return f;
}

/** A job of `p`'s that `t` claims and submits, `p` accepts and rates with `stars`. */
async function ratedJob(t: Person, p: Person, stars: number): Promise<void> {
  const job = await paidJob(h, p);
  expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)).status).toBe(200);
  expect(
    (await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, quickReport())).status,
  ).toBe(201);
  expect(
    (await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, { decision: 'accept' })).status,
  ).toBe(200);
  const rated = await api(h, 'POST', `/api/jobs/${job.id}/rating`, p.token, {
    stars,
    comment: stars <= 2 ? 'The report missed the checkout steps.' : undefined,
  });
  expect(rated.status).toBe(201);
}

const standing = async (t: Person) => {
  const r = await api<TesterStandingView>(h, 'GET', '/api/tester/standing', t.token);
  expect(r.status).toBe(200);
  return r.body;
};

describe('GET /api/tester/standing', () => {
  it('shows a new tester at New, with what Trusted needs', async () => {
    const t = await tester(h, { country: 'US' });
    expect(await standing(t)).toEqual({
      jobs_completed: 0,
      acceptance_rate_pct: null,
      rating_avg: null,
      rating_count: 0,
      level: 'new',
      priority_access: false,
      next_level: { level: 'trusted', needs: ['5 more accepted jobs (5 in all)'] },
    });
  });

  it('counts accepted jobs, strikes in force and ratings; Top (three posters, 4.5+) gets the priority window', async () => {
    const t = await tester(h, { country: 'US' });
    const others = await tester(h, { country: 'US' });
    const posters = [await poster(h, 'Ann'), await poster(h, 'Bo'), await poster(h, 'Cy')];
    await ratedJob(t, posters[0], 5);
    await ratedJob(t, posters[1], 4);
    // A missed claim deadline leaves a strike row (what the claim timer records).
    await h.svc.ctx.dbHandle.query(
      "INSERT INTO jobs.strikes (tester_id, job_id, reason) VALUES ($1, gen_random_uuid(), 'claim_timeout')",
      [t.id],
    );
    const mid = await standing(t);
    expect(mid).toMatchObject({
      jobs_completed: 2,
      acceptance_rate_pct: 67,
      rating_avg: 4.5,
      rating_count: 2,
      level: 'new',
      priority_access: false,
    });
    expect(mid.next_level?.needs).toEqual([
      '3 more accepted jobs (5 in all)',
      'an acceptance rate of 80% or more (yours: 67%)',
    ]);

    await ratedJob(t, posters[2], 5);
    const top = await standing(t);
    expect(top).toMatchObject({
      jobs_completed: 3,
      acceptance_rate_pct: 75,
      rating_avg: 4.7,
      rating_count: 3,
      level: 'top',
      priority_access: true,
      next_level: null,
    });

    // The level decides the priority window: a job just paid shows to the Top tester only.
    const fresh = await paidJob(h, posters[0]);
    const seen = async (who: Person) =>
      (
        await api<{ jobs: Array<{ id: string }> }>(
          h,
          'GET',
          '/api/tester/available-jobs',
          who.token,
        )
      ).body.jobs.map((j) => j.id);
    expect(await seen(t)).toContain(fresh.id);
    expect(await seen(others)).not.toContain(fresh.id);
    const early = await api(h, 'POST', `/api/jobs/${fresh.id}/claim`, others.token);
    expect(early.status).toBe(403);
    expect(early.body.code).toBe('priority_window');
  });

  it('refuses anyone but a tester', async () => {
    const p = await poster(h);
    expect((await api(h, 'GET', '/api/tester/standing', p.token)).status).toBe(403);
    expect((await api(h, 'GET', '/api/tester/standing')).status).toBe(401);
  });
});
