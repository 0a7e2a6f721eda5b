/**
 * #34 Reasons and one appeal, across jobs, identity and notifications: a tester released by missed
 * claims signs in again at the tester entrance (paused: nothing but the appeal), sees each strike's
 * reason, appeals one once, and the admin's overturn re-approves them so they claim again;
 * a 1-star rating must say why, may be appealed, and an overturn takes it out of the average.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { JOB_MESSAGES } from '@htm/contracts';
import {
  client,
  postAndPay,
  refreshAccess,
  signIn,
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
let tester: Actor;
let other: Actor;

beforeAll(async () => {
  stack = await startStack({
    label: 'appeals',
    env: { TESTER_STRIKE_LIMIT: '2', CLAIM_TIMEOUT_MS: '2500', READ_CACHE_TTL_MS: '0' },
  });
  admin = await signInAdmin(stack);
  poster = await signInPoster(stack, 'appeals.poster@gmail.com');
  tester = await signInTester(stack, 'appeals.tester@gmail.com', { admin });
  other = await signInTester(stack, 'appeals.other@gmail.com', { admin });
});
afterAll(async () => {
  await stack?.stop();
});

const jobStatus = async (id: string) =>
  (await stack.sql<{ status: string }>('SELECT status FROM jobs.jobs WHERE id = $1', [id]))[0]
    ?.status;
const identityUser = async (id: string) =>
  (
    await stack.sql<{
      approved: boolean;
      strikes: number;
      rating_sum: number;
      rating_count: number;
    }>('SELECT approved, strikes, rating_sum, rating_count FROM identity.users WHERE id = $1', [id])
  )[0];
const jobsUser = async (id: string) =>
  (
    await stack.sql<{
      approved: boolean;
      strikes: number;
      rating_sum: number;
      rating_count: number;
    }>('SELECT approved, strikes, rating_sum, rating_count FROM jobs.users WHERE id = $1', [id])
  )[0];

/** The tester claims the job and lets the claim run out: a strike. */
async function missClaim(jobId: string, token: string, strikes: number) {
  expect((await client(stack, token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
  await waitFor(
    async () =>
      (await jobStatus(jobId)) === 'open' && (await jobsUser(tester.id)).strikes === strikes,
    `strike ${strikes}`,
    30_000,
  );
}

const message = 'The site was down the whole afternoon, so I could not finish in time.';
let strikeJob: string;
let oldStrikeJob: string;

describe('strikes: reason, one appeal, the admin overturns and the tester is approved again', () => {
  it('lets the released tester sign in at the tester entrance, refuses them claims, submissions and cash-outs, and shows each strike with its reason', async () => {
    ({ jobId: oldStrikeJob } = await postAndPay(stack, poster, {
      title: 'Old strike job',
      url: 'https://a.example',
      what_to_test: 'x',
      requirements: ['y'],
      fresh_eyes: false,
    }));
    ({ jobId: strikeJob } = await postAndPay(stack, poster, {
      title: 'Strike job',
      url: 'https://b.example',
      what_to_test: 'x',
      requirements: ['y'],
      fresh_eyes: false,
    }));
    await missClaim(oldStrikeJob, tester.token, 1);
    await missClaim(strikeJob, tester.token, 2);
    await waitFor(
      async () => (await identityUser(tester.id))?.approved === false,
      'identity to release the tester at 2 strikes',
    );

    // Released, the tester signs in anew at the tester entrance (a new browser): the paused dashboard.
    const back = await signIn(stack, 'appeals.tester@gmail.com', 'tester');
    tester = { ...tester, token: back.token, jar: back.jar };
    expect((await client(stack, tester.token).get('/api/me')).body).toMatchObject({
      type: 'tester',
      approved: false,
      released: true,
    });
    // Everything but the appeal stays refused by the services that own it, whatever the client shows.
    const claim = await client(stack, tester.token).post(`/api/jobs/${strikeJob}/claim`);
    expect([claim.status, claim.body.code]).toEqual([403, 'tester_not_approved']);
    expect((await client(stack, tester.token).get('/api/tester/available-jobs')).status).toBe(403);
    const submit = new FormData();
    submit.set('feedback_text', 'Trying to submit while paused, which must not work.');
    submit.set('key_finding_1', 'Nothing to see here');
    expect(
      (
        await fetch(`${stack.url}/api/jobs/${strikeJob}/submit-work`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tester.token}` },
          body: submit,
        })
      ).status,
    ).toBe(403);
    expect((await client(stack, tester.token).post('/api/tester/cash-out')).body.code).toBe(
      'tester_not_approved',
    );

    const mine = await client(stack, tester.token).get('/api/appeals');
    expect(mine.status).toBe(200);
    const items = (mine.body as unknown as { items: Array<Record<string, unknown>> }).items;
    expect(items.map((i) => [i.job_title, i.kind, i.reason, i.appeal, i.overturned])).toEqual(
      expect.arrayContaining([
        ['Strike job', 'strike', JOB_MESSAGES.claimExpired, null, false],
        ['Old strike job', 'strike', JOB_MESSAGES.claimExpired, null, false],
      ]),
    );
  });

  it('refuses bad bodies, other people, a second appeal and a closed window', async () => {
    const bad = await client(stack, tester.token).post('/api/appeals', {
      job_id: strikeJob,
      kind: 'strike',
      message: 'short',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual({ message: ['Your reason must be 10 to 1000 characters'] });
    expect(
      (
        await client(stack, poster.token).post('/api/appeals', {
          job_id: strikeJob,
          kind: 'strike',
          message,
        })
      ).status,
    ).toBe(403);
    const notTheirs = await client(stack, other.token).post('/api/appeals', {
      job_id: strikeJob,
      kind: 'strike',
      message,
    });
    expect(notTheirs.status).toBe(403);
    expect(notTheirs.body.code).toBe('not_your_appeal');

    const filed = await client(stack, tester.token).post('/api/appeals', {
      job_id: strikeJob,
      kind: 'strike',
      message,
    });
    expect(filed.status).toBe(201);
    expect(filed.body.appeal).toMatchObject({
      job_id: strikeJob,
      job_title: 'Strike job',
      kind: 'strike',
      reason: JOB_MESSAGES.claimExpired,
      message,
      status: 'open',
    });
    const again = await client(stack, tester.token).post('/api/appeals', {
      job_id: strikeJob,
      kind: 'strike',
      message,
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('already_appealed');

    await stack.sql(
      `UPDATE jobs.strikes SET created_at = now() - interval '15 days' WHERE job_id = $1`,
      [oldStrikeJob],
    );
    const late = await client(stack, tester.token).post('/api/appeals', {
      job_id: oldStrikeJob,
      kind: 'strike',
      message,
    });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('appeal_window_closed');
  });

  it('lists the open appeal for the admin; an overturn removes the strike and re-approves the tester, once', async () => {
    expect((await client(stack, tester.token).get('/api/admin/appeals')).status).toBe(403);
    const open = await client(stack, admin.token).get('/api/admin/appeals?status=open');
    expect(open.status).toBe(200);
    const appeals = (
      open.body as unknown as {
        appeals: Array<{ id: string; tester_id: string; reason: string; message: string }>;
      }
    ).appeals;
    const appeal = appeals.find((a) => a.tester_id === tester.id)!;
    expect(appeal).toMatchObject({ reason: JOB_MESSAGES.claimExpired, message });
    expect((await client(stack, admin.token).get('/api/admin/appeals?status=nope')).status).toBe(
      400,
    );

    const decided = await client(stack, admin.token).post(
      `/api/admin/appeals/${appeal.id}/decision`,
      { decision: 'overturn', note: 'Their site really was down.' },
    );
    expect(decided.status).toBe(200);
    expect(decided.body.appeal).toMatchObject({
      status: 'overturned',
      decision_note: 'Their site really was down.',
    });
    expect(
      (
        await client(stack, admin.token).post(`/api/admin/appeals/${appeal.id}/decision`, {
          decision: 'uphold',
        })
      ).body.code,
    ).toBe('appeal_decided');

    // Identity takes the strike away and approves the tester again; jobs follows.
    await waitFor(
      async () => (await identityUser(tester.id))?.approved === true,
      'identity to re-approve',
    );
    expect((await identityUser(tester.id)).strikes).toBe(1);
    await waitFor(
      async () => (await jobsUser(tester.id))?.approved === true,
      'jobs to learn the approval',
    );
    expect((await jobsUser(tester.id)).strikes).toBe(1);
    const approval = await stack.sql<{ envelope: { data: { reason: string; approved: boolean } } }>(
      `SELECT envelope FROM identity.outbox WHERE type = 'TesterApprovalChanged' AND subject = $1 ORDER BY seq DESC LIMIT 1`,
      [tester.id],
    );
    expect(approval[0]?.envelope.data).toMatchObject({ reason: 'appeal', approved: true });
    // The admin's history has it.
    await waitFor(
      async () =>
        (
          await stack.sql(
            `SELECT 1 FROM admin.audit_log WHERE action = 'appeal.overturned' AND target = $1 AND actor_id = $2`,
            [`tester:${tester.id}`, admin.id],
          )
        ).length === 1,
      'the audit entry',
    );
    // The tester is told by e-mail.
    await waitFor(
      async () =>
        (
          await stack.sql(
            `SELECT 1 FROM notifications.messages WHERE kind = 'appeal_decided' AND user_id = $1`,
            [tester.id],
          )
        ).length === 1,
      'the e-mail',
    );
    // And may take jobs again with a fresh token.
    tester.token = await refreshAccess(stack, tester.jar);
    const { jobId } = await postAndPay(stack, poster, {
      title: 'After appeal',
      url: 'https://c.example',
      what_to_test: 'x',
      requirements: ['y'],
      fresh_eyes: false,
    });
    expect((await client(stack, tester.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
  });
});

describe('ratings of 1-2 stars: a reason, one appeal, out of the average when overturned', () => {
  it('requires a reason for 1 star, lets the tester appeal it and an overturn takes it out of the average', async () => {
    const { jobId } = await postAndPay(stack, poster, {
      title: 'Rated job',
      url: 'https://d.example',
      what_to_test: 'x',
      requirements: ['y'],
      fresh_eyes: false,
    });
    expect((await client(stack, other.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
    const png = await sharp({
      create: { width: 64, height: 48, channels: 3, background: '#3366aa' },
    })
      .png()
      .toBuffer();
    const form = new FormData();
    form.set(
      'feedback_text',
      'Ordered a cake: the button is hard to find but checkout works fine.',
    );
    form.set('key_finding_1', 'Order button is below the fold');
    form.set('screenshot', new Blob([png], { type: 'image/png' }), 'shot.png');
    expect(
      (
        await fetch(`${stack.url}/api/jobs/${jobId}/submit-work`, {
          method: 'POST',
          headers: { authorization: `Bearer ${other.token}` },
          body: form,
        })
      ).status,
    ).toBe(201);
    expect(
      (await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, { decision: 'accept' }))
        .status,
    ).toBe(200);

    const noReason = await client(stack, poster.token).post(`/api/jobs/${jobId}/rating`, {
      stars: 1,
    });
    expect(noReason.status).toBe(400);
    expect(noReason.body.errors).toEqual({ comment: [JOB_MESSAGES.lowRatingNeedsReason] });
    expect(
      (
        await client(stack, poster.token).post(`/api/jobs/${jobId}/rating`, {
          stars: 1,
          comment: 'Too short, no screenshots',
        })
      ).status,
    ).toBeLessThan(300);
    await waitFor(
      async () => (await identityUser(other.id))?.rating_count === 1,
      'identity to count the rating',
    );

    const mine = await client(stack, other.token).get('/api/appeals');
    expect((mine.body as unknown as { items: unknown[] }).items).toEqual([
      expect.objectContaining({
        kind: 'rating',
        stars: 1,
        reason: '1 star: Too short, no screenshots',
      }),
    ]);
    const filed = await client(stack, other.token).post('/api/appeals', {
      job_id: jobId,
      kind: 'rating',
      message: 'I attached a screenshot and wrote three findings.',
    });
    expect(filed.status).toBe(201);
    const decided = await client(stack, admin.token).post(
      `/api/admin/appeals/${filed.body.appeal.id}/decision`,
      { decision: 'overturn' },
    );
    expect(decided.body.appeal).toMatchObject({ status: 'overturned', stars: 1 });
    expect(await jobsUser(other.id)).toMatchObject({ rating_sum: 0, rating_count: 0 });
    await waitFor(
      async () => (await identityUser(other.id))?.rating_count === 0,
      'identity to drop the rating',
    );
    const overturned = await client(stack, admin.token).get('/api/admin/appeals?status=overturned');
    expect(
      (overturned.body as unknown as { appeals: Array<{ id: string }> }).appeals.map((a) => a.id),
    ).toContain(filed.body.appeal.id);
  });
});
