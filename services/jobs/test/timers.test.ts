import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  api,
  outboxEvents,
  paidJob,
  poster,
  startHarness,
  tester,
  waitFor,
  type Harness,
  type Person,
} from './helpers.js';
import { startJobsWorker, timerIds, type JobsWorker } from '../src/workers/timers.js';
import { startWorkerProcess } from '../src/worker-main.js';
import { Redis } from 'ioredis';

let h: Harness;
let worker: JobsWorker | undefined;

// Short timers: claims 1.5 s, auto-accept 1.2 s, revision window 0.3 s.
beforeAll(async () => {
  h = await startHarness('timers', {
    CLAIM_TIMEOUT_MS: '1500',
    AUTO_ACCEPT_AFTER_MS: '1200',
    REVISION_WINDOW_MS: '300',
  });
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
});
afterAll(async () => {
  await worker?.stop();
  await h?.close();
});

const startWorker = () =>
  startJobsWorker({
    config: h.svc.ctx.config,
    db: h.svc.ctx.db,
    bus: h.svc.ctx.bus,
    logger: h.svc.ctx.logger,
    events: h.svc.ctx.events,
  });

async function jobRow(id: string) {
  const [row] = await h.svc.ctx.dbHandle.query<{
    status: string;
    tester_id: string | null;
    accepted_by: string | null;
  }>('SELECT status, tester_id, accepted_by FROM jobs.jobs WHERE id = $1', [id]);
  return row;
}
async function strikes(id: string) {
  const [row] = await h.svc.ctx.dbHandle.query<{ strikes: number; approved: boolean | null }>(
    'SELECT strikes, approved FROM jobs.users WHERE id = $1',
    [id],
  );
  return row;
}
function form(text = 'The signup button is hidden below the fold.') {
  const f = new FormData();
  f.append('feedback_text', text);
  f.append('key_finding_1', 'Signup button hidden');
  return f;
}
async function claimed(t?: Person) {
  const p = await poster(h);
  const tt = t ?? (await tester(h));
  const job = await paidJob(h, p);
  const r = await api(h, 'POST', `/api/jobs/${job.id}/claim`, tt.token);
  expect(r.status).toBe(200);
  return { job: r.body.job, p, t: tt };
}
async function timerJob(id: string) {
  return waitFor(
    async () => (await worker!.queue.getJob(id)) ?? undefined,
    `timer ${id} scheduled`,
  );
}

describe('claim timeout', () => {
  it('releases an unsubmitted claim, gives the tester a strike and records JobReleased + TesterStrikeRecorded', async () => {
    worker = await startWorker();
    const { job, t, p } = await claimed();
    await waitFor(async () => (await jobRow(job.id)).status === 'open', 'job released');
    expect(await jobRow(job.id)).toMatchObject({ status: 'open', tester_id: null });
    expect((await strikes(t.id)).strikes).toBe(1);
    await waitFor(
      async () => (await outboxEvents(h, 'TesterStrikeRecorded', t.id)).length === 1,
      'strike event',
    );
    expect((await outboxEvents(h, 'JobReleased', job.id))[0].data).toEqual({
      jobId: job.id,
      testerId: t.id,
      reason: 'claim_timeout',
      posterId: p.id,
      geoRule: job.geo_rule,
      // #50: every event of the transition table carries the job as it is after the change.
      job: expect.objectContaining({ id: job.id, status: 'open', tester_id: null }),
    });
    expect((await outboxEvents(h, 'TesterStrikeRecorded', t.id))[0].data).toMatchObject({
      testerId: t.id,
      jobId: job.id,
      strikes: 1,
    });
    // the job is live again for another tester
    const other = await tester(h);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, other.token)).status).toBe(200);
  });

  it('tells a tester whose claim expired why their late submission is refused (403), and nobody else', async () => {
    worker = await startWorker();
    const { job, t } = await claimed();
    await waitFor(async () => (await jobRow(job.id)).status === 'open', 'job released');
    const expired = {
      detail: 'Your claim on this job expired, so it went back to the available jobs.',
      code: 'claim_expired',
    };
    // The reason is the job's own record: it holds after the relay has deleted the published JobReleased.
    await h.svc.ctx.dbHandle.query("DELETE FROM jobs.outbox WHERE type = 'JobReleased'");
    const late = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, form());
    expect({ status: late.status, body: late.body }).toEqual({ status: 403, body: expired });
    // still so once someone else holds the job
    const next = await tester(h);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, next.token)).status).toBe(200);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, form())).body).toEqual(
      expired,
    );
    // a tester who never held it hears the general rule
    const stranger = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submit-work`,
      (await tester(h)).token,
      form(),
    );
    expect({ status: stranger.status, body: stranger.body }).toEqual({
      status: 403,
      body: {
        detail: 'Only the tester holding this job can submit work for it.',
        code: 'not_job_tester',
      },
    });
  });

  it('does nothing when the work was submitted in time, and the claim timer leaves Redis', async () => {
    worker = await startWorker();
    // Timers held back (the events are still consumed): on a busy machine the 1.5 s claim timer
    // could otherwise fire before the worker reads WorkSubmitted, and there would be nothing to remove.
    await worker.worker.pause(true);
    const { job, t } = await claimed();
    const claimEvent = (await outboxEvents(h, 'JobClaimed', job.id))[0];
    const id = timerIds.claimTimeout(job.id, claimEvent.data.deadlineAt);
    await timerJob(id);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, form())).status).toBe(
      201,
    );
    const submitted = (await outboxEvents(h, 'WorkSubmitted', job.id))[0];
    expect(submitted.data.heldUntil).toBe(claimEvent.data.deadlineAt);
    // Removed at once instead of waiting in Redis until the claim's deadline (days, in production).
    await waitFor(async () => !(await worker!.queue.getJob(id)), 'claim timer removed');
    worker.worker.resume();
    await new Promise((r) =>
      setTimeout(r, Math.max(0, Date.parse(claimEvent.data.deadlineAt) - Date.now()) + 300),
    );
    expect(await outboxEvents(h, 'JobReleased', job.id)).toHaveLength(0);
    expect(await strikes(t.id)).toMatchObject({ strikes: 0 });
    expect((await jobRow(job.id)).status).not.toBe('open');
  });

  it("a stale timer still does nothing: the claim's timer run after the submission finds the job moved on", async () => {
    worker = await startWorker();
    await worker.worker.pause(true);
    const { job, t } = await claimed();
    const claimEvent = (await outboxEvents(h, 'JobClaimed', job.id))[0];
    expect((await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, form())).status).toBe(
      201,
    );
    const sub = (await outboxEvents(h, 'WorkSubmitted', job.id))[0];
    const id = timerIds.claimTimeout(job.id, claimEvent.data.deadlineAt);
    // WorkSubmitted handled: its auto-accept timer is there and the claim's is gone.
    await waitFor(
      async () =>
        !!(await worker!.queue.getJob(timerIds.autoAccept(job.id, sub.data.submissionId))) &&
        !(await worker!.queue.getJob(id)),
      'WorkSubmitted handled by the worker',
    );
    // As after a redelivered JobClaimed: the timer is scheduled again and fires.
    await worker.schedule(claimEvent);
    worker.worker.resume();
    await waitFor(
      async () => (await worker!.queue.getJob(id))?.returnvalue === 'stale',
      'the claim timer ran and found the job submitted',
      60_000,
    );
    expect(await outboxEvents(h, 'JobReleased', job.id)).toHaveLength(0);
    expect(await strikes(t.id)).toMatchObject({ strikes: 0 });
  });

  it('survives a worker restart: the delayed timer stays in Redis and fires once on the new worker', async () => {
    worker = await startWorker();
    const { job, t } = await claimed();
    const claimEvent = (await outboxEvents(h, 'JobClaimed', job.id))[0];
    const id = timerIds.claimTimeout(job.id, claimEvent.data.deadlineAt);
    const timer = await timerJob(id);
    expect(await timer.getState()).toBe('delayed');
    await worker.stop();
    const queue = (await import('bullmq')).Queue;
    const { createRedis } = await import('@htm/service-kit');
    const conn = createRedis(h.svc.ctx.config.REDIS_URL);
    const q = new queue('jobs-timers', { connection: conn, prefix: `${h.prefix}bull` });
    try {
      // past the deadline with no worker running: still delayed in Redis, job still claimed
      await new Promise((r) =>
        setTimeout(r, Math.max(0, Date.parse(claimEvent.data.deadlineAt) - Date.now()) + 300),
      );
      expect(await (await q.getJob(id))!.getState()).toBe('delayed');
      expect((await jobRow(job.id)).status).toBe('claimed');
    } finally {
      await q.close();
      conn.disconnect();
    }
    worker = await startWorker();
    await waitFor(
      async () => (await jobRow(job.id)).status === 'open',
      'released by the new worker',
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(await outboxEvents(h, 'JobReleased', job.id)).toHaveLength(1);
    expect((await strikes(t.id)).strikes).toBe(1);
  });

  it('marks a tester unapproved in the projection at three strikes', async () => {
    worker = await startWorker();
    const t = await tester(h);
    for (let i = 1; i <= 3; i++) {
      const { job } = await claimed(t);
      await waitFor(async () => (await jobRow(job.id)).status === 'open', `release ${i}`);
    }
    expect(await strikes(t.id)).toEqual({ strikes: 3, approved: false });
    const p = await poster(h);
    const job = await paidJob(h, p);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)).status).toBe(403);
  });
});

describe('auto-accept and revision window', () => {
  it('auto-accepts a submission after AUTO_ACCEPT_AFTER_MS and unlocks it for the poster', async () => {
    worker = await startWorker();
    const { job, p, t } = await claimed();
    expect((await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, form())).status).toBe(
      201,
    );
    expect((await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token)).body.locked).toBe(true);
    await waitFor(async () => (await jobRow(job.id)).status === 'completed', 'auto-accepted');
    expect((await jobRow(job.id)).accepted_by).toBe('auto');
    const accepted = await outboxEvents(h, 'SubmissionAccepted', job.id);
    expect(accepted).toHaveLength(1);
    expect(accepted[0].data).toMatchObject({
      acceptedBy: 'auto',
      posterId: p.id,
      testerId: t.id,
      title: job.title,
    });
    expect((await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token)).body.locked).toBe(
      false,
    );

    // the same WorkSubmitted envelope delivered again schedules nothing new and changes nothing
    const submittedEvent = (await outboxEvents(h, 'WorkSubmitted', job.id))[0];
    await h.svc.ctx.bus.publish([submittedEvent]);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await outboxEvents(h, 'SubmissionAccepted', job.id)).toHaveLength(1);
    expect((await jobRow(job.id)).status).toBe('completed');
  });

  it("the poster's acceptance removes the waiting auto-accept timer; the job is completed by the poster, not the timer", async () => {
    worker = await startWorker();
    // Timers held back, so the 1.2 s auto-accept cannot beat the poster on a busy machine.
    await worker.worker.pause(true);
    const { job, p, t } = await claimed();
    expect((await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, form())).status).toBe(
      201,
    );
    const sub = (await outboxEvents(h, 'WorkSubmitted', job.id))[0];
    const id = timerIds.autoAccept(job.id, sub.data.submissionId);
    await timerJob(id);
    const review = await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, {
      decision: 'accept',
    });
    expect(review.status).toBe(200);
    const accepted = await outboxEvents(h, 'SubmissionAccepted', job.id);
    expect(accepted.map((e) => e.data)).toEqual([
      expect.objectContaining({
        acceptedBy: 'poster',
        testerId: t.id,
        submissionId: sub.data.submissionId,
      }),
    ]);
    await waitFor(async () => !(await worker!.queue.getJob(id)), 'auto-accept timer removed');
    worker.worker.resume();
    expect(await jobRow(job.id)).toMatchObject({ status: 'completed', accepted_by: 'poster' });
  });

  it('reopens the job when the revision window expires: first tester unpaid and struck; the pending auto-accept does nothing', async () => {
    worker = await startWorker();
    const { job, p, t } = await claimed();
    expect((await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, form())).status).toBe(
      201,
    );
    const rev = await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, {
      decision: 'request_revision',
      reason: 'Please add more detail',
    });
    expect(rev.status).toBe(200);
    await waitFor(async () => (await jobRow(job.id)).status === 'open', 'revision expired');
    expect(await jobRow(job.id)).toMatchObject({ status: 'open', tester_id: null });
    expect((await outboxEvents(h, 'JobReleased', job.id))[0].data.reason).toBe('revision_expired');
    expect((await strikes(t.id)).strikes).toBe(1);
    const late = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, form());
    expect({ status: late.status, body: late.body }).toEqual({
      status: 403,
      body: {
        detail: 'Your revision window for this job ended, so it went back to the available jobs.',
        code: 'revision_expired',
      },
    });
    // the auto-accept timer of the first submission fires later and finds nothing to do
    const sub = (await outboxEvents(h, 'WorkSubmitted', job.id))[0];
    const timer = await timerJob(timerIds.autoAccept(job.id, sub.data.submissionId));
    await waitFor(async () => (await timer.getState()) === 'completed', 'auto-accept timer ran');
    expect((await worker.queue.getJob(timer.id!))!.returnvalue).toBe('stale');
    expect(await outboxEvents(h, 'SubmissionAccepted', job.id)).toHaveLength(0);
    expect((await jobRow(job.id)).status).toBe('open');
  });
});

describe('timers run only when the database says their job is due', () => {
  it('a timer of each kind added to Redis by hand before its job is due changes nothing, and waits for the due time', async () => {
    worker = await startWorker();
    // Held back while the jobs are set up: nothing fires before the deadlines are moved.
    await worker.worker.pause(true);
    const p = await poster(h);
    const days = new Date(Date.now() + 3 * 86_400_000);
    const sql = (q: string, v: unknown[]) => h.svc.ctx.dbHandle.query(q, v);
    // A claim (claim timeout), a submission (auto-accept), a revision (revision window) and a
    // pack's open slot (fill deadline), each due days from now, as with the production defaults.
    const { job: claimedJob, t } = await claimed();
    await sql('UPDATE jobs.jobs SET claim_deadline_at = $2 WHERE id = $1', [claimedJob.id, days]);
    const { job: submittedJob, t: t2 } = await claimed();
    expect(
      (await api(h, 'POST', `/api/jobs/${submittedJob.id}/submit-work`, t2.token, form())).status,
    ).toBe(201);
    await sql('UPDATE jobs.jobs SET auto_accept_at = $2 WHERE id = $1', [submittedJob.id, days]);
    const { job: revisedJob, p: revisedPoster, t: t3 } = await claimed();
    expect(
      (await api(h, 'POST', `/api/jobs/${revisedJob.id}/submit-work`, t3.token, form())).status,
    ).toBe(201);
    const rev = await api(h, 'POST', `/api/jobs/${revisedJob.id}/review`, revisedPoster.token, {
      decision: 'request_revision',
      reason: 'Please add the steps you took',
    });
    expect(rev.status).toBe(200);
    await sql('UPDATE jobs.jobs SET revision_deadline_at = $2 WHERE id = $1', [
      revisedJob.id,
      days,
    ]);
    const slot = await paidJob(h, p, { testers: 2 });
    const [row] = await h.svc.ctx.dbHandle.query<{ pack_id: string | null; fill: Date }>(
      'SELECT pack_id, fill_deadline_at AS fill FROM jobs.jobs WHERE id = $1',
      [slot.id],
    );
    expect(row.pack_id).not.toBeNull();
    const submissionId = (await outboxEvents(h, 'WorkSubmitted', submittedJob.id))[0].data
      .submissionId;
    // What someone with write access to the timer queue would add: due now, the right data.
    const forged = [
      ['claim-timeout', { jobId: claimedJob.id, testerId: t.id, deadlineAt: days.toISOString() }],
      ['auto-accept', { jobId: submittedJob.id, submissionId }],
      [
        'revision-window',
        { jobId: revisedJob.id, testerId: t3.id, deadlineAt: days.toISOString() },
      ],
      ['pack-fill', { jobId: slot.id }],
    ] as const;
    for (const [name, data] of forged)
      await worker.queue.add(name, data, { jobId: `by-hand-${name}-${data.jobId}` });
    worker.worker.resume();
    for (const [name, data] of forged) {
      const id = `by-hand-${name}-${data.jobId}`;
      // Run once and put back until the job's own deadline (not completed, not failed).
      const state = await waitFor(async () => {
        const s = await worker!.queue.getJobState(id);
        return ['delayed', 'completed', 'failed'].includes(s) ? s : undefined;
      }, `the ${name} timer added by hand to run`);
      expect([name, state]).toEqual([name, 'delayed']);
      const job = (await worker.queue.getJob(id))!;
      expect([name, job.attemptsStarted]).toEqual([name, 1]);
      const dueAt = name === 'pack-fill' ? new Date(row.fill).getTime() : days.getTime();
      const runsAt = Date.now() + job.delay;
      expect([name, runsAt >= dueAt && runsAt < dueAt + 60_000]).toEqual([name, true]);
    }
    const statusOf = async (id: string) => (await jobRow(id)).status;
    expect({
      claimed: await statusOf(claimedJob.id),
      submitted: await statusOf(submittedJob.id),
      revision: await statusOf(revisedJob.id),
      slot: await statusOf(slot.id),
    }).toEqual({
      claimed: 'claimed',
      submitted: 'submitted',
      revision: 'revision_requested',
      slot: 'open',
    });
    for (const j of [claimedJob, submittedJob, revisedJob, slot]) {
      expect(await outboxEvents(h, 'SubmissionAccepted', j.id)).toEqual([]);
      expect(await outboxEvents(h, 'JobReleased', j.id)).toEqual([]);
      expect(await outboxEvents(h, 'PackSlotClosed', j.id)).toEqual([]);
    }
    for (const x of [t, t2, t3]) expect((await strikes(x.id)).strikes).toBe(0);
  });
});

describe('worker-main (the worker as its own process)', () => {
  it('opens its own database and bus and fires timers', async () => {
    const standalone = await startWorkerProcess(h.env, { port: 0 });
    try {
      const ready = await fetch(`${standalone.health.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ checks: { database: 'ok', redis: 'ok' } });
      expect(await (await fetch(`${standalone.health.url}/metrics`)).text()).toContain(
        'timer_queue_delayed',
      );
      const { job } = await claimed();
      await waitFor(
        async () => (await jobRow(job.id)).status === 'open',
        'released by the standalone worker',
      );
      expect(await outboxEvents(h, 'JobReleased', job.id)).toHaveLength(1);
    } finally {
      await standalone.stop();
    }
  });
});

describe('the jobs service and its own stream (#50)', () => {
  it('never consumes its own stream: timers and webhooks follow from its own changes', async () => {
    // The API (its consumer), the worker beside it and a worker alone, each through a whole claim's life.
    worker = await startWorker();
    const standalone = await startWorkerProcess(h.env, { port: 0 });
    const redis = new Redis(h.svc.ctx.config.REDIS_URL);
    try {
      const { job } = await claimed();
      await waitFor(async () => (await jobRow(job.id)).status === 'open', 'claim timed out');
      expect(await outboxEvents(h, 'JobReleased', job.id)).toHaveLength(1);
      // What the consumer of the API reads: other services' streams only.
      expect(h.svc.ctx.events.consumedSources).not.toContain('jobs');
      // And in Redis, no group of the jobs service on the jobs stream (the worker used to read it
      // as `jobs-worker`, the webhooks as `jobs-webhooks`).
      const streams = (await redis.keys(`${h.prefix}events:jobs:*`)).filter((k) => /:\d+$/.test(k));
      expect(streams.length).toBeGreaterThan(0);
      const groups: string[] = [];
      for (const key of streams)
        for (const g of (await redis.xinfo('GROUPS', key)) as unknown[][])
          groups.push(String(g[g.indexOf('name') + 1]));
      expect(groups.filter((g) => g === 'jobs' || g.startsWith('jobs-'))).toEqual([]);
    } finally {
      redis.disconnect();
      await standalone.stop();
    }
  });
});
