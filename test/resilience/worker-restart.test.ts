/**
 * The jobs timer worker restarted while timers are pending, across the whole stack: a claim
 * timeout already scheduled in Redis and an auto-accept whose WorkSubmitted arrived while no
 * worker ran both fire once on the new worker, and the money follows (one earning, one fee).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startJobsWorker, type JobsWorker } from '@htm/jobs';
import {
  client,
  postAndPay,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  waitFor,
  JOB,
  type Actor,
  type Stack,
} from '../support/stack.js';
import { count, sleep } from './helpers.js';

const CLAIM_TIMEOUT_MS = 2500;
const AUTO_ACCEPT_AFTER_MS = 1500;

let stack: Stack;
let poster: Actor;
let slow: Actor;
let quick: Actor;
let worker: JobsWorker | undefined;
beforeAll(async () => {
  stack = await startStack({
    label: 'worker-restart',
    env: {
      CLAIM_TIMEOUT_MS: String(CLAIM_TIMEOUT_MS),
      AUTO_ACCEPT_AFTER_MS: String(AUTO_ACCEPT_AFTER_MS),
    },
  });
  const admin = await signInAdmin(stack);
  poster = await signInPoster(stack, 'worker.poster@gmail.com');
  slow = await signInTester(stack, 'worker.slow@gmail.com', { admin });
  quick = await signInTester(stack, 'worker.quick@gmail.com', { admin });
});
afterAll(async () => {
  await worker?.stop();
  await stack?.stop();
});

const status = async (id: string) =>
  (
    await stack.sql<{ status: string; accepted_by: string | null }>(
      'SELECT status, accepted_by FROM jobs.jobs WHERE id = $1',
      [id],
    )
  )[0];
const outboxCount = (type: string, jobId: string) =>
  count(stack, `SELECT count(*) AS n FROM jobs.outbox WHERE type = $1 AND subject = $2`, [
    type,
    jobId,
  ]);

describe('the jobs worker restarted while timers are pending', () => {
  it('fires a claim timeout and an auto-accept once each on the new worker', async () => {
    const { jobId: abandoned } = await postAndPay(stack, poster, {
      ...JOB,
      title: 'Abandoned claim',
    });
    const { jobId: finished } = await postAndPay(stack, poster, { ...JOB, title: 'Finished work' });

    // Claim timer scheduled (delayed in Redis) before the worker goes away.
    expect((await client(stack, slow.token).post(`/api/jobs/${abandoned}/claim`)).status).toBe(200);
    expect((await client(stack, quick.token).post(`/api/jobs/${finished}/claim`)).status).toBe(200);
    const old = stack.jobs.worker!;
    await waitFor(
      async () => (await old.queue.getDelayedCount()) >= 2,
      'both claim timers scheduled',
    );
    await old.stop();

    // Work submitted while no worker runs: its WorkSubmitted waits in the stream for the worker's group.
    const form = new FormData();
    form.set('feedback_text', 'Checked the whole order flow; it works on a phone.');
    form.set('key_finding_1', 'Order button below the fold');
    const sub = await fetch(`${stack.url}/api/jobs/${finished}/submit-work`, {
      method: 'POST',
      headers: { authorization: `Bearer ${quick.token}` },
      body: form,
    });
    expect(sub.status).toBe(201);

    // Past both deadlines with no worker: nothing happened.
    await sleep(CLAIM_TIMEOUT_MS + 500);
    expect((await status(abandoned)).status).toBe('claimed');
    expect((await status(finished)).status).toBe('submitted');

    worker = await startJobsWorker({
      config: stack.jobs.ctx.config,
      db: stack.jobs.ctx.db,
      bus: stack.jobs.ctx.bus,
      logger: stack.jobs.ctx.logger,
      events: stack.jobs.ctx.events,
    });
    await waitFor(
      async () => (await status(abandoned)).status === 'open',
      'the abandoned claim released',
      30_000,
    );
    await waitFor(
      async () => (await status(finished)).status === 'completed',
      'the submission auto-accepted',
      30_000,
    );
    expect((await status(finished)).accepted_by).toBe('auto');

    const earnings = await waitFor(async () => {
      const r = await client(stack, quick.token).get('/api/tester/my-earnings');
      return r.body.jobs?.length ? r.body : undefined;
    }, 'the earning');
    await sleep(1500); // any second firing or redelivery would land by now
    expect(earnings).toMatchObject({ total_usd: 0.82, completed_jobs: 1 });
    expect(await outboxCount('JobReleased', abandoned)).toBe(1);
    expect(await outboxCount('SubmissionAccepted', finished)).toBe(1);
    expect(
      await count(
        stack,
        `SELECT count(*) AS n FROM jobs.outbox WHERE type = 'TesterStrikeRecorded' AND subject = $1`,
        [slow.id],
      ),
    ).toBe(1);
    expect(
      (
        await stack.sql<{ strikes: number }>('SELECT strikes FROM jobs.users WHERE id = $1', [
          slow.id,
        ])
      )[0].strikes,
    ).toBe(1);
    expect(
      (
        await stack.sql<{ strikes: number }>('SELECT strikes FROM jobs.users WHERE id = $1', [
          quick.id,
        ])
      )[0].strikes,
    ).toBe(0);
    const ledger = await stack.sql<{ kind: string; n: string }>(
      `SELECT kind, count(*) AS n FROM payments.ledger_entries WHERE job_id = $1 GROUP BY kind ORDER BY kind`,
      [finished],
    );
    expect(ledger.map((r) => [r.kind, Number(r.n)])).toEqual([
      ['payment', 1],
      ['platform_fee', 1],
      ['tester_earning', 1],
    ]);
    // The released job is back on the list for testers.
    const list = await client(stack, quick.token).get('/api/tester/available-jobs');
    expect(list.body.jobs.map((j: { id: string }) => j.id)).toContain(abandoned);
  }, 60_000);
});
