/** Favourite testers ("Fair and fast for testers", #34 part 3), through the gateway. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { FAVOURITE_MESSAGES } from '@htm/contracts';
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

/** Long enough that the hold never ends during the test (its end is the re-test mechanism's, tested in retest.test). */
const RESERVE_MS = 10 * 60_000;

let stack: Stack;
let admin: Actor;
let poster: Actor;
let otherPoster: Actor;
let favourite: Actor;
let other: Actor;
let firstJobId: string;

beforeAll(async () => {
  stack = await startStack({
    label: 'favourites',
    env: { RETEST_RESERVE_MS: String(RESERVE_MS), READ_CACHE_TTL_MS: '0' },
  });
  admin = await signInAdmin(stack);
  poster = await signInPoster(stack, 'fav.poster@gmail.com');
  otherPoster = await signInPoster(stack, 'fav.other.poster@gmail.com');
  favourite = await signInTester(stack, 'fav.tester@gmail.com', { admin });
  other = await signInTester(stack, 'fav.other.tester@gmail.com', { admin });
});
afterAll(async () => {
  await stack?.stop();
});

async function submitWork(tester: Actor, jobId: string): Promise<void> {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366aa' } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.set('feedback_text', 'Ordered a cake: the button is hard to find but checkout works fine.');
  form.set('key_finding_1', 'Order button is below the fold');
  form.set('screenshot', new Blob([png], { type: 'image/png' }), 'shot.png');
  const res = await fetch(`${stack.url}/api/jobs/${jobId}/submit-work`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tester.token}` },
    body: form,
  });
  expect([res.status, res.status === 201 ? '' : await res.text()]).toEqual([201, '']);
}

const favourites = (a: Actor) => client(stack, a.token).get('/api/favourites');
const del = (a: Actor, testerId: string) =>
  client(stack, a.token).call('DELETE', `/api/favourites/${testerId}`);
const availableIds = async (a: Actor) =>
  (
    (await client(stack, a.token).get('/api/tester/available-jobs')).body.jobs as Array<{
      id: string;
    }>
  ).map((j) => j.id);

describe('favourite testers', () => {
  beforeAll(async () => {
    ({ jobId: firstJobId } = await postAndPay(stack, poster, JOB));
    expect(
      (await client(stack, favourite.token).post(`/api/jobs/${firstJobId}/claim`)).status,
    ).toBe(200);
    await submitWork(favourite, firstJobId);
  });

  it('refuses a tester whose work the poster has not accepted (403 not_your_tester), and testers and anonymous callers', async () => {
    const notYet = await client(stack, poster.token).post('/api/favourites', {
      tester_id: favourite.id,
    });
    expect(notYet.status).toBe(403);
    expect(notYet.body).toMatchObject({
      code: 'not_your_tester',
      detail: FAVOURITE_MESSAGES.notYourTester,
    });

    expect(
      (
        await client(stack, poster.token).post(`/api/jobs/${firstJobId}/review`, {
          decision: 'accept',
        })
      ).status,
    ).toBe(200);
    expect(
      (await client(stack, poster.token).post(`/api/jobs/${firstJobId}/rating`, { stars: 5 }))
        .status,
    ).toBeLessThan(300);

    const neverWorked = await client(stack, poster.token).post('/api/favourites', {
      tester_id: other.id,
    });
    expect([neverWorked.status, neverWorked.body.code]).toEqual([403, 'not_your_tester']);
    const notTheirs = await client(stack, otherPoster.token).post('/api/favourites', {
      tester_id: favourite.id,
    });
    expect([notTheirs.status, notTheirs.body.code]).toEqual([403, 'not_your_tester']);
    expect(
      (await client(stack, favourite.token).post('/api/favourites', { tester_id: favourite.id }))
        .status,
    ).toBe(403);
    expect((await client(stack).get('/api/favourites')).status).toBe(401);
    const empty = await client(stack, poster.token).post('/api/favourites', {});
    expect([empty.status, empty.body.errors]).toEqual([
      400,
      { tester_id: [FAVOURITE_MESSAGES.testerId] },
    ]);
    expect(await stack.sql('SELECT 1 FROM jobs.favourites')).toHaveLength(0);
  });

  it('favourites the tester once (201, then 200) and lists them with name, average rating and jobs done', async () => {
    const added = await client(stack, poster.token).post('/api/favourites', {
      tester_id: favourite.id,
    });
    expect(added.status).toBe(201);
    const expected = { tester_id: favourite.id, name: 'fav.tester', rating_avg: 5, jobs_done: 1 };
    expect(added.body).toEqual({ favourite: expected });
    const again = await client(stack, poster.token).post('/api/favourites', {
      tester_id: favourite.id,
    });
    expect([again.status, again.body]).toEqual([200, { favourite: expected }]);

    expect((await favourites(poster)).body).toEqual({ favourites: [expected] });
    expect((await favourites(otherPoster)).body).toEqual({ favourites: [] });
    expect(await stack.sql('SELECT poster_id, tester_id FROM jobs.favourites')).toEqual([
      { poster_id: poster.id, tester_id: favourite.id },
    ]);
  });

  it('refuses an invitation of a tester who is not a favourite (400) and posts nothing', async () => {
    const before = (await stack.sql<{ n: number }>('SELECT count(*)::int AS n FROM jobs.jobs'))[0]
      .n;
    const r = await client(stack, poster.token).post('/api/jobs', {
      ...JOB,
      invite_tester_id: other.id,
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      code: 'invite_not_favourite',
      detail: FAVOURITE_MESSAGES.inviteNotFavourite,
    });
    expect((await stack.sql<{ n: number }>('SELECT count(*)::int AS n FROM jobs.jobs'))[0].n).toBe(
      before,
    );
  });

  it('holds an invited job for the favourite only (fresh eyes does not block them) and e-mails them', async () => {
    // Fresh eyes on, same site: the favourite tested it already, which would otherwise keep them out.
    const { jobId } = await postAndPay(stack, poster, {
      ...JOB,
      title: 'Invited job',
      fresh_eyes: true,
      invite_tester_id: favourite.id,
    });
    const [row] = await stack.sql<{ reserved_tester_id: string; held_ms: number }>(
      'SELECT reserved_tester_id, (extract(epoch FROM reserved_until - paid_at) * 1000)::int AS held_ms FROM jobs.jobs WHERE id = $1',
      [jobId],
    );
    expect(row).toEqual({ reserved_tester_id: favourite.id, held_ms: RESERVE_MS });

    await waitFor(
      async () =>
        (
          await stack.sql(
            `SELECT 1 FROM notifications.messages WHERE kind = 'job_held_for_you' AND user_id = $1`,
            [favourite.id],
          )
        ).length === 1,
      'the invitation e-mail to be queued',
    );

    expect(await availableIds(other)).not.toContain(jobId);
    const refused = await client(stack, other.token).post(`/api/jobs/${jobId}/claim`);
    expect([refused.status, refused.body.code]).toEqual([403, 'reserved_for_original_tester']);
    expect(
      (
        await stack.sql<{ status: string }>('SELECT status FROM jobs.jobs WHERE id = $1', [jobId])
      )[0].status,
    ).toBe('open');

    expect(await availableIds(favourite)).toContain(jobId);
    expect((await client(stack, favourite.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(
      200,
    );
    expect(
      (
        await stack.sql<{ tester_id: string }>('SELECT tester_id FROM jobs.jobs WHERE id = $1', [
          jobId,
        ])
      )[0].tester_id,
    ).toBe(favourite.id);
  });

  it('opens an invited job to every tester once the hold is over', async () => {
    const { jobId } = await postAndPay(stack, poster, {
      ...JOB,
      title: 'Invited, then open',
      invite_tester_id: favourite.id,
    });
    expect(await availableIds(other)).not.toContain(jobId);
    // The hold runs out (the test moves its end into the past instead of waiting RETEST_RESERVE_MS).
    await stack.sql(
      "UPDATE jobs.jobs SET reserved_until = now() - interval '1 second' WHERE id = $1",
      [jobId],
    );
    await waitFor(
      async () => (await availableIds(other)).includes(jobId),
      "the job in the other tester's Available Jobs",
    );
    expect((await client(stack, other.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
    expect(
      (
        await stack.sql<{ tester_id: string }>('SELECT tester_id FROM jobs.jobs WHERE id = $1', [
          jobId,
        ])
      )[0].tester_id,
    ).toBe(other.id);
  });

  it('releases a job held for an invited favourite when the admin un-approves them, and refuses inviting them while un-approved', async () => {
    const { jobId } = await postAndPay(stack, poster, {
      ...JOB,
      title: 'Invited, then un-approved',
      invite_tester_id: favourite.id,
    });
    expect(await availableIds(other)).not.toContain(jobId);
    const approval = (approved: boolean) =>
      client(stack, admin.token).patch(`/api/admin/approve-tester/${favourite.id}`, { approved });
    const projected = async () =>
      (
        await stack.sql<{ approved: boolean }>('SELECT approved FROM jobs.users WHERE id = $1', [
          favourite.id,
        ])
      )[0]?.approved;
    expect((await approval(false)).status).toBe(200);
    // The hold ends with the approval: the job is every tester's at once, not in 24 h.
    await waitFor(
      async () => (await availableIds(other)).includes(jobId),
      "the released job in the other tester's Available Jobs",
    );
    expect(
      (
        await stack.sql<{ held: boolean }>(
          'SELECT reserved_until > now() AS held FROM jobs.jobs WHERE id = $1',
          [jobId],
        )
      )[0].held,
    ).toBe(false);
    expect(await projected()).toBe(false);
    // Invited while un-approved: refused, nothing posted.
    const before = (await stack.sql<{ n: number }>('SELECT count(*)::int AS n FROM jobs.jobs'))[0]
      .n;
    const r = await client(stack, poster.token).post('/api/jobs', {
      ...JOB,
      invite_tester_id: favourite.id,
    });
    expect([r.status, r.body]).toEqual([
      400,
      {
        code: 'invite_not_approved',
        detail: FAVOURITE_MESSAGES.inviteNotApproved,
        errors: { invite_tester_id: [FAVOURITE_MESSAGES.inviteNotApproved] },
      },
    ]);
    expect((await stack.sql<{ n: number }>('SELECT count(*)::int AS n FROM jobs.jobs'))[0].n).toBe(
      before,
    );
    expect((await approval(true)).status).toBe(200);
    await waitFor(async () => (await projected()) === true, 'the approval back in jobs');
  });

  it('removes a favourite (204, also when it was none) and a removed tester can no longer be invited', async () => {
    expect((await del(poster, favourite.id)).status).toBe(204);
    expect((await del(poster, favourite.id)).status).toBe(204);
    expect((await favourites(poster)).body).toEqual({ favourites: [] });
    const r = await client(stack, poster.token).post('/api/jobs', {
      ...JOB,
      invite_tester_id: favourite.id,
    });
    expect([r.status, r.body.code]).toEqual([400, 'invite_not_favourite']);
  });
});
