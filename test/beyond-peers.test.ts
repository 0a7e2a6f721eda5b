/**
 * "Beyond the peers, part 1" through the gateway, every service real: ratings and the priority
 * window, fresh eyes, assistive-technology testers, minutes spent and the effective hourly rate.
 * The tests run in order: the priority window (last) needs the ratings the earlier ones gave.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import type { JobView } from '@htm/contracts';
import {
  client,
  JOB,
  postAndPay,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  waitFor,
  type Actor,
  type Stack,
} from './support/stack.js';

let stack: Stack;
let admin: Actor;
let poster: Actor;
let otherPoster: Actor;
/** The tester whose ratings make them top-rated (Canada: us_pr_ca and global_beta jobs, not us_pr). */
let rated: Actor;
let usTester: Actor;

beforeAll(async () => {
  stack = await startStack({ label: 'peers1' });
  admin = await signInAdmin(stack);
  poster = await signInPoster(stack, 'peers.poster@gmail.com');
  otherPoster = await signInPoster(stack, 'peers.other@gmail.com');
  rated = await signInTester(stack, 'peers.rated@gmail.com', { admin, country: 'CA' });
  usTester = await signInTester(stack, 'peers.us@gmail.com', { admin, country: 'US' });
});
afterAll(async () => {
  await stack?.stop();
});

let png: Buffer;
async function screenshot(): Promise<Blob> {
  png ??= await sharp({ create: { width: 32, height: 24, channels: 3, background: '#884422' } })
    .png()
    .toBuffer();
  return new Blob([png], { type: 'image/png' });
}

/** The dashboard submit-work form, with optional minutes_spent. */
async function submitDashboard(t: Actor, jobId: string, minutes?: string) {
  const form = new FormData();
  form.set('feedback_text', 'The order form works; the delivery date picker is confusing.');
  form.set('key_finding_1', 'Date picker is confusing');
  if (minutes !== undefined) form.set('minutes_spent', minutes);
  form.set('screenshot', await screenshot(), 'shot.png');
  const res = await fetch(`${stack.url}/api/jobs/${jobId}/submit-work`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.token}` },
    body: form,
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      submission: { minutes_spent: number | null; claim_to_submit_minutes: number | null };
      code?: string;
      errors?: Record<string, string[]>;
    },
  };
}

/** The poster-flow submission form, with optional minutes_spent. */
async function submitPosterFlow(t: Actor, jobId: string, minutes?: string) {
  const form = new FormData();
  form.set(
    'requirement_responses',
    JSON.stringify([
      { requirement_index: 0, response_text: 'The order button is easy to find at the top.' },
    ]),
  );
  form.set('device_used', 'Laptop');
  form.set('browser_used', 'Firefox');
  form.set('key_findings_bullet_1', 'Order button is clear');
  form.set('key_findings_bullet_2', 'Prices are shown');
  form.set('key_findings_bullet_3', 'Checkout is quick');
  if (minutes !== undefined) form.set('minutes_spent', minutes);
  const res = await fetch(`${stack.url}/api/jobs/${jobId}/submissions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.token}` },
    body: form,
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      submission: { minutes_spent: number | null };
      errors?: Record<string, string[]>;
    },
  };
}

/** Posts and pays a job, has `t` claim and submit it (dashboard), and the poster accept it. */
async function completedJob(
  t: Actor,
  opts: { minutes?: string; job?: Record<string, unknown>; by?: Actor } = {},
): Promise<string> {
  const by = opts.by ?? poster;
  const { jobId } = await postAndPay(stack, by, { ...JOB, ...opts.job });
  const claim = await client(stack, t.token).post(`/api/jobs/${jobId}/claim`);
  if (claim.status !== 200)
    throw new Error(`claim answered ${claim.status} ${JSON.stringify(claim.body)}`);
  const sub = await submitDashboard(t, jobId, opts.minutes);
  if (sub.status !== 201)
    throw new Error(`submit answered ${sub.status} ${JSON.stringify(sub.body)}`);
  const accept = await client(stack, by.token).post(`/api/jobs/${jobId}/review`, {
    decision: 'accept',
  });
  if (accept.status !== 200) throw new Error(`accept answered ${accept.status}`);
  return jobId;
}

const available = async (t: Actor) =>
  (await client(stack, t.token).get('/api/tester/available-jobs?limit=100')).body as unknown as {
    jobs: JobView[];
    usual_minutes: number | null;
  };
const sees = async (t: Actor, jobId: string) =>
  (await available(t)).jobs.some((j) => j.id === jobId);
const posterJob = async (jobId: string, p: Actor = poster) =>
  (await client(stack, p.token).get('/api/jobs')).body.jobs.find((j) => j.id === jobId)!;

describe('ratings', () => {
  let jobId: string;

  it('refuses to rate before the job is completed (409 not_completed), and anyone but its poster (403)', async () => {
    const { jobId: id } = await postAndPay(stack, poster);
    jobId = id;
    expect((await client(stack, rated.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
    expect((await submitDashboard(rated, jobId, '30')).status).toBe(201);

    const early = await client(stack, poster.token).post(`/api/jobs/${jobId}/rating`, { stars: 5 });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('not_completed');
    for (const stranger of [otherPoster, rated, admin]) {
      const r = await client(stack, stranger.token).post(`/api/jobs/${jobId}/rating`, { stars: 5 });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('not_job_poster');
    }
    expect((await client(stack).post(`/api/jobs/${jobId}/rating`, { stars: 5 })).status).toBe(401);
    expect(
      (
        await client(stack, poster.token).post(
          '/api/jobs/00000000-0000-4000-8000-000000000000/rating',
          { stars: 5 },
        )
      ).status,
    ).toBe(404);
  });

  it('gives a field error on stars outside 1-5 and on a comment over 500 characters, storing nothing', async () => {
    expect(
      (await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, { decision: 'accept' }))
        .status,
    ).toBe(200);
    for (const stars of [0, 6, 4.5, '5', null]) {
      const r = await client(stack, poster.token).post(`/api/jobs/${jobId}/rating`, { stars });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('validation_error');
      expect(Object.keys(r.body.errors ?? {})).toEqual(['stars']);
    }
    const long = await client(stack, poster.token).post(`/api/jobs/${jobId}/rating`, {
      stars: 4,
      comment: 'x'.repeat(501),
    });
    expect(long.status).toBe(400);
    expect(Object.keys(long.body.errors ?? {})).toEqual(['comment']);
    expect(await stack.sql('SELECT 1 FROM jobs.ratings WHERE job_id = $1', [jobId])).toHaveLength(
      0,
    );
    expect((await posterJob(jobId)).rating).toBeNull();
  });

  it("rates a completed job once (201, then 409 already_rated) and shows the rating on the poster's job", async () => {
    const r = await client(stack, poster.token).post(`/api/jobs/${jobId}/rating`, {
      stars: 5,
      comment: ' Clear and thorough. ',
    });
    expect(r.status).toBe(201);
    const rating = (
      r.body as unknown as { rating: { stars: number; comment: string; created_at: string } }
    ).rating;
    expect(rating).toEqual({
      stars: 5,
      comment: 'Clear and thorough.',
      created_at: expect.any(String),
    });
    const again = await client(stack, poster.token).post(`/api/jobs/${jobId}/rating`, {
      stars: 1,
      comment: 'Changed my mind.',
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('already_rated');
    expect((await posterJob(jobId)).rating).toEqual(rating);
    const adminView = (await client(stack, admin.token).get('/api/jobs')).body.jobs.find(
      (j) => j.id === jobId,
    )!;
    expect(adminView.rating).toEqual(rating);
    const events = await stack.sql<{ envelope: { data: Record<string, unknown> } }>(
      "SELECT envelope FROM jobs.outbox WHERE type = 'TesterRated' AND subject = $1",
      [jobId],
    );
    expect(events.map((e) => e.envelope.data)).toEqual([
      {
        jobId,
        testerId: rated.id,
        posterId: poster.id,
        stars: 5,
        comment: 'Clear and thorough.',
        ratedAt: rating.created_at,
      },
    ]);
  });

  it("shows the tester's rating_avg and rating_count on GET /api/me and in the admin's testers list", async () => {
    const me = await waitFor(async () => {
      const r = await client(stack, rated.token).get('/api/me');
      return (r.body as unknown as { rating_count: number }).rating_count === 1
        ? r.body
        : undefined;
    }, 'identity to learn the rating');
    expect(me).toMatchObject({ rating_avg: 5, rating_count: 1 });
    const fresh = (await client(stack, usTester.token).get('/api/me')).body;
    expect(fresh).toMatchObject({ rating_avg: null, rating_count: 0, assistive_tech: [] });
    const testers = (await client(stack, admin.token).get('/api/admin/testers'))
      .body as unknown as {
      testers: Array<{ id: string; rating_avg: number | null; rating_count: number }>;
    };
    expect(testers.testers.find((t) => t.id === rated.id)).toMatchObject({
      rating_avg: 5,
      rating_count: 1,
    });
    const posterMe = (await client(stack, poster.token).get('/api/me')).body;
    expect(posterMe).not.toHaveProperty('rating_avg');
  });
});

describe('time on task', () => {
  it('refuses minutes_spent outside 1-240 in both flows (400 on the field) and keeps the job claimed', async () => {
    const { jobId } = await postAndPay(stack, poster);
    expect((await client(stack, usTester.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
    for (const bad of ['0', '241', '12.5', 'ten']) {
      const a = await submitDashboard(usTester, jobId, bad);
      expect(a.status).toBe(400);
      expect(Object.keys(a.body.errors ?? {})).toContain('minutes_spent');
      const b = await submitPosterFlow(usTester, jobId, bad);
      expect(b.status).toBe(400);
      expect(Object.keys(b.body.errors ?? {})).toContain('minutes_spent');
    }
    expect(
      (await client(stack, usTester.token).get('/api/tester/my-jobs')).body.jobs.find(
        (j) => j.id === jobId,
      )?.status,
    ).toBe('claimed');
    expect(
      await stack.sql('SELECT 1 FROM jobs.submissions WHERE job_id = $1', [jobId]),
    ).toHaveLength(0);

    const ok = await submitPosterFlow(usTester, jobId, '90');
    expect(ok.status).toBe(201);
    expect(ok.body.submission).toMatchObject({
      minutes_spent: 90,
      claim_to_submit_minutes: expect.any(Number),
    });
    expect(
      (await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, { decision: 'accept' }))
        .status,
    ).toBe(200);
  });

  it('carries minutes_spent and the measured claim_to_submit_minutes on the submission view', async () => {
    const { jobId } = await postAndPay(stack, poster);
    expect((await client(stack, usTester.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
    // The claim was made 25 minutes ago.
    await stack.sql(
      "UPDATE jobs.jobs SET claimed_at = now() - interval '25 minutes' WHERE id = $1",
      [jobId],
    );
    const sub = await submitDashboard(usTester, jobId, '20');
    expect(sub.status).toBe(201);
    expect(sub.body.submission).toMatchObject({ minutes_spent: 20, claim_to_submit_minutes: 25 });
    const seen = await client(stack, poster.token).get(`/api/jobs/${jobId}/submission`);
    expect(seen.body).toMatchObject({ minutes_spent: 20, claim_to_submit_minutes: 25 });
    expect(
      (await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, { decision: 'accept' }))
        .status,
    ).toBe(200);
  });

  it('answers effective_hourly_rate and median_minutes over accepted jobs that have minutes_spent', async () => {
    // usTester: 82 cents for 90 minutes and 82 cents for 20 minutes; one more job without minutes.
    await completedJob(usTester);
    const earnings = await waitFor(async () => {
      const r = (await client(stack, usTester.token).get('/api/tester/my-earnings'))
        .body as unknown as {
        completed_jobs: number;
        effective_hourly_rate: number | null;
        median_minutes: number | null;
      };
      return r.completed_jobs === 3 ? r : undefined;
    }, 'payments to record three earnings');
    // 164 cents over 110 minutes = 89.45... cents an hour.
    expect(earnings.effective_hourly_rate).toBe(0.89);
    expect(earnings.median_minutes).toBe(55);
    const none = (
      await client(stack, (await signInTester(stack, 'peers.new@gmail.com', { admin })).token).get(
        '/api/tester/my-earnings',
      )
    ).body;
    expect(none).toMatchObject({ effective_hourly_rate: null, median_minutes: null });
  });

  it('tells testers how long recent tests usually took (median of recent submissions)', async () => {
    // Submissions so far: 30 (rated), 90 and 20 (usTester), one without minutes.
    expect((await available(usTester)).usual_minutes).toBe(30);
  });
});

describe('fresh eyes', () => {
  it('is on by default and shown on the job; a non-boolean is a 400', async () => {
    const posted = await client(stack, poster.token).post('/api/jobs', {
      ...JOB,
      fresh_eyes: undefined,
    });
    expect(posted.status).toBe(201);
    expect(posted.body.job).toMatchObject({ fresh_eyes: true, assistive_tech: null });
    const bad = await client(stack, poster.token).post('/api/jobs', { ...JOB, fresh_eyes: 'yes' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors ?? {})).toEqual(['fresh_eyes']);
  });

  it('hides a fresh-eyes job of the same site (www. and case ignored) from a tester who tested it, and refuses the claim (403 already_tested_site)', async () => {
    // `rated` submitted work on poster's https://bakery.example; usTester did as well.
    const newcomer = await signInTester(stack, 'peers.newcomer@gmail.com', {
      admin,
      country: 'US',
    });
    const { jobId } = await postAndPay(stack, poster, {
      ...JOB,
      url: 'https://WWW.Bakery.example/cakes',
      fresh_eyes: true,
    });
    const { jobId: otherSite } = await postAndPay(stack, poster, {
      ...JOB,
      url: 'https://pastry.example',
      fresh_eyes: true,
    });
    const { jobId: otherPosters } = await postAndPay(stack, otherPoster, {
      ...JOB,
      url: 'https://bakery.example',
      fresh_eyes: true,
    });
    const { jobId: notFresh } = await postAndPay(stack, poster, {
      ...JOB,
      url: 'https://bakery.example/again',
      fresh_eyes: false,
    });

    const seenByRated = (await available(rated)).jobs.map((j) => j.id);
    expect(seenByRated).not.toContain(jobId);
    expect(seenByRated).toEqual(expect.arrayContaining([otherSite, otherPosters, notFresh]));
    const claim = await client(stack, rated.token).post(`/api/jobs/${jobId}/claim`);
    expect(claim.status).toBe(403);
    expect(claim.body.code).toBe('already_tested_site');
    expect((await posterJob(jobId)).status).toBe('open');

    const assign = await client(stack, admin.token).post(`/api/admin/assign/${jobId}/${rated.id}`);
    expect(assign.status).toBe(409);
    expect(assign.body.code).toBe('already_tested_site');

    expect(await sees(newcomer, jobId)).toBe(true);
    expect((await client(stack, newcomer.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
  });
});

describe('assistive-technology testers', () => {
  let reader: Actor;

  it('keeps the assistive technology a tester uses on their profile; anything outside the list is a 400', async () => {
    reader = await signInTester(stack, 'peers.reader@gmail.com', { admin, country: 'US' });
    const bad = await client(stack, reader.token).patch('/api/users/profile', {
      assistive_tech: ['screen_reader', 'braille'],
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors ?? {})).toEqual(['assistive_tech']);
    expect((await client(stack, reader.token).get('/api/me')).body).toMatchObject({
      assistive_tech: [],
    });

    const ok = await client(stack, reader.token).patch('/api/users/profile', {
      assistive_tech: ['screen_reader', 'captions'],
    });
    expect(ok.status).toBe(200);
    expect(
      (ok.body as unknown as { user: { assistive_tech: string[]; country: string } }).user,
    ).toMatchObject({ assistive_tech: ['screen_reader', 'captions'], country: 'US' });
    expect((await client(stack, reader.token).get('/api/me')).body).toMatchObject({
      assistive_tech: ['screen_reader', 'captions'],
    });
    expect(
      (
        await client(stack, poster.token).patch('/api/users/profile', {
          assistive_tech: ['screen_reader'],
        })
      ).status,
    ).toBe(403);
  });

  it('lists and filters testers by assistive technology for the admin', async () => {
    const r = (
      await client(stack, admin.token).get('/api/admin/testers?assistive_tech=screen_reader')
    ).body as unknown as { testers: Array<{ id: string; assistive_tech: string[] }> };
    expect(r.testers.map((t) => t.id)).toEqual([reader.id]);
    expect(r.testers[0].assistive_tech).toEqual(['screen_reader', 'captions']);
    const all = (await client(stack, admin.token).get('/api/admin/testers')).body as unknown as {
      testers: Array<{ id: string; assistive_tech: string[] }>;
    };
    expect(all.testers.find((t) => t.id === usTester.id)?.assistive_tech).toEqual([]);
    const bad = await client(stack, admin.token).get('/api/admin/testers?assistive_tech=braille');
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors ?? {})).toEqual(['assistive_tech']);
  });

  it('shows a screen-reader job only to testers who use one, and refuses the others (403 assistive_tech_required)', async () => {
    const bad = await client(stack, poster.token).post('/api/jobs', {
      ...JOB,
      assistive_tech: 'braille',
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors ?? {})).toEqual(['assistive_tech']);

    const { jobId } = await postAndPay(stack, poster, {
      ...JOB,
      url: 'https://reader.example',
      assistive_tech: 'screen_reader',
    });
    expect((await posterJob(jobId)).assistive_tech).toBe('screen_reader');
    expect(await sees(usTester, jobId)).toBe(false);
    const refused = await client(stack, usTester.token).post(`/api/jobs/${jobId}/claim`);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('assistive_tech_required');

    const assign = await client(stack, admin.token).post(
      `/api/admin/assign/${jobId}/${usTester.id}`,
    );
    expect(assign.status).toBe(409);
    expect(assign.body.code).toBe('assistive_tech_required');

    await waitFor(
      async () =>
        (
          await stack.sql<{ t: string[] }>(
            'SELECT assistive_tech AS t FROM jobs.users WHERE id = $1',
            [reader.id],
          )
        )[0]?.t?.includes('screen_reader'),
      'jobs to learn the profile',
    );
    expect(await sees(reader, jobId)).toBe(true);
    const claim = await client(stack, reader.token).post(`/api/jobs/${jobId}/claim`);
    expect(claim.status).toBe(200);
    expect(claim.body.job).toMatchObject({ assistive_tech: 'screen_reader', tester_id: reader.id });
  });
});

describe('priority window (PRIORITY_WINDOW_MS default, 10 minutes)', () => {
  it('opens new jobs to everyone at once while no tester is top-rated', async () => {
    const { jobId } = await postAndPay(stack, poster);
    expect(await sees(usTester, jobId)).toBe(true);
  });

  it('shows a new job first only to top-rated testers (4.5+ from 3+ posters) who exist for its geo rule', async () => {
    // `rated` (Canada) has one 5; two more ratings (5 and 4) make 4.7 over 3.
    for (const stars of [5, 4]) {
      const id = await completedJob(rated);
      expect(
        (await client(stack, poster.token).post(`/api/jobs/${id}/rating`, { stars })).status,
      ).toBe(201);
    }
    await waitFor(
      async () =>
        (
          (await client(stack, rated.token).get('/api/me')).body as unknown as {
            rating_count: number;
          }
        ).rating_count === 3,
      'identity to learn the ratings',
    );
    expect((await client(stack, rated.token).get('/api/me')).body).toMatchObject({
      rating_avg: 4.7,
      rating_count: 3,
    });
    // All three from one poster: one voice, not top-rated (one colluding poster cannot do it).
    const { jobId: colluded } = await postAndPay(stack, poster, { ...JOB, geo_rule: 'us_pr_ca' });
    expect(await sees(usTester, colluded)).toBe(true);

    // Two more posters rate `rated` 5 each: three posters, averages 4.7, 5 and 5.
    const thirdPoster = await signInPoster(stack, 'peers.third@gmail.com');
    for (const by of [otherPoster, thirdPoster]) {
      const id = await completedJob(rated, { by });
      expect(
        (await client(stack, by.token).post(`/api/jobs/${id}/rating`, { stars: 5 })).status,
      ).toBe(201);
    }

    const { jobId: usCa } = await postAndPay(stack, poster, { ...JOB, geo_rule: 'us_pr_ca' });
    const { jobId: usOnly } = await postAndPay(stack, poster, { ...JOB, geo_rule: 'us_pr' });
    // A top-rated tester exists for us_pr_ca (Canada), none for us_pr.
    expect(await sees(rated, usCa)).toBe(true);
    expect(await sees(usTester, usCa)).toBe(false);
    expect(await sees(usTester, usOnly)).toBe(true);
    const early = await client(stack, usTester.token).post(`/api/jobs/${usCa}/claim`);
    expect(early.status).toBe(403);
    expect(early.body.code).toBe('priority_window');

    // Ten minutes after payment the job is open to everyone.
    await stack.sql("UPDATE jobs.jobs SET paid_at = now() - interval '601 seconds' WHERE id = $1", [
      usCa,
    ]);
    expect(await sees(usTester, usCa)).toBe(true);
    expect((await client(stack, usTester.token).post(`/api/jobs/${usCa}/claim`)).status).toBe(200);
  });
});
