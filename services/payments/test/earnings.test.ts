import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createEvent, type EventBus } from '@htm/events';
import {
  bearer,
  createCheckout,
  eventually,
  q,
  startHarness,
  type Harness,
} from './support/harness.js';

let h: Harness;
const day = 24 * 3600_000;

beforeAll(async () => {
  h = await startHarness('earnings', 'local');
});
afterAll(async () => {
  await h?.close();
});

async function payJob(jobId: string, posterId: string) {
  const res = await createCheckout(h, {
    job_id: jobId,
    poster_id: posterId,
    title: `Job ${jobId.slice(0, 8)}`,
    attempt: 1,
  });
  const { session_id } = (await res.json()) as { session_id: string };
  const pay = await fetch(`${h.svc.url}/api/payments/local/checkout/${session_id}/pay`, {
    method: 'POST',
    redirect: 'manual',
  });
  expect(pay.status).toBe(303);
}

/** jobs' SubmissionAccepted, published onto the bus as the jobs service would. */
async function accept(
  jobId: string,
  testerId: string,
  posterId: string,
  acceptedBy: 'poster' | 'admin' | 'auto',
  acceptedAt: Date,
  id?: string,
) {
  const event = createEvent(
    'SubmissionAccepted',
    jobId,
    {
      jobId,
      testerId,
      posterId,
      title: `Job ${jobId.slice(0, 8)}`,
      acceptedBy,
      acceptedAt: acceptedAt.toISOString(),
    },
    { id },
  );
  await (h.svc.ctx.bus as EventBus).publish([event]);
  return event;
}

const earningCount = (jobId: string) =>
  q<{ n: number }>(
    h,
    `SELECT count(*)::int AS n FROM payments.ledger_entries WHERE kind = 'tester_earning' AND job_id = $1`,
    [jobId],
  );

describe('earnings, payouts (local) and the financial overview', () => {
  const testerA = randomUUID();
  const testerB = randomUUID();
  const poster = randomUUID();
  const jobs = Array.from({ length: 7 }, () => randomUUID());
  const now = Date.now();

  it('figures equal the ledger to the cent after accepted, auto-accepted and paid-out jobs', async () => {
    for (const j of jobs) await payJob(j, poster);
    const [j1, j2, j3, j4, j5, , j7] = jobs; // j6 is paid but never completed

    const first = await accept(j1, testerA, poster, 'poster', new Date(now - 2 * day));
    await accept(j2, testerA, poster, 'auto', new Date(now - 1 * day));
    await accept(j3, testerA, poster, 'admin', new Date(now - 40 * day));
    await accept(j4, testerA, poster, 'poster', new Date(now - 1000));
    await accept(j5, testerB, poster, 'auto', new Date(now - 3 * day));
    // Redelivery of the same event, and a second (different) event for the same job: no double earning.
    await (h.svc.ctx.bus as EventBus).publish([first]);
    await accept(j1, testerA, poster, 'admin', new Date(now));
    await eventually(
      async () =>
        (
          await q<{ n: number }>(
            h,
            `SELECT count(*)::int AS n FROM payments.handled_events WHERE type = 'SubmissionAccepted'`,
          )
        )[0].n >= 6,
    );
    expect(await earningCount(j1)).toEqual([{ n: 1 }]);

    // Tester A connects a (simulated) payout account; B does not. The admin runs payouts.
    const tA = await bearer(h, { id: testerA, type: 'tester' });
    const admin = await bearer(h, { type: 'admin' });
    const connect = await fetch(`${h.svc.url}/api/tester/payout-account`, {
      method: 'POST',
      headers: tA,
    });
    const account = (await connect.json()) as {
      connected: boolean;
      account_id: string;
      onboarding_url: null;
    };
    expect(account).toMatchObject({ connected: true, onboarding_url: null });
    expect(account.account_id).toMatch(/^acct_local_/);
    expect(
      await (await fetch(`${h.svc.url}/api/tester/payout-account`, { headers: tA })).json(),
    ).toEqual(account);

    const run = await fetch(`${h.svc.url}/api/admin/payouts/run`, {
      method: 'POST',
      headers: admin,
    });
    expect(run.status).toBe(200);
    const result = (await run.json()) as {
      paid: Array<{ tester_id: string; amount: number; job_id: string }>;
      failed: unknown[];
      skipped_unconnected: number;
    };
    expect(result.paid.map((p) => p.job_id).sort()).toEqual([j1, j2, j3, j4].sort());
    expect(result.paid.every((p) => p.tester_id === testerA && p.amount === 0.82)).toBe(true);
    expect(result.failed).toEqual([]);
    expect(result.skipped_unconnected).toBe(1);
    const rerun = (await (
      await fetch(`${h.svc.url}/api/admin/payouts/run`, { method: 'POST', headers: admin })
    ).json()) as typeof result;
    expect(rerun.paid).toEqual([]);
    expect(
      await q(
        h,
        `SELECT count(*)::int AS n FROM payments.outbox WHERE type = 'TesterPaid' AND subject = $1`,
        [testerA],
      ),
    ).toEqual([{ n: 4 }]);

    // A later job for A stays pending.
    await accept(j7, testerA, poster, 'poster', new Date(now));
    await eventually(async () => (await earningCount(j7))[0].n === 1);

    const earnings = (await (
      await fetch(`${h.svc.url}/api/tester/my-earnings`, { headers: tA })
    ).json()) as {
      total_usd: number;
      pending_usd: number;
      last_30_days: number;
      completed_jobs: number;
      pending_jobs: number;
      jobs: Array<{
        job_id: string;
        title: string;
        amount: number;
        completed_at: string;
        status: string;
      }>;
    };
    expect(earnings).toMatchObject({
      total_usd: 4.1,
      pending_usd: 0.82,
      last_30_days: 3.28,
      completed_jobs: 5,
      pending_jobs: 1,
    });
    const status = Object.fromEntries(earnings.jobs.map((j) => [j.job_id, j.status]));
    expect(status).toEqual({
      [j1]: 'paid',
      [j2]: 'paid',
      [j3]: 'paid',
      [j4]: 'paid',
      [j7]: 'accepted',
    });
    expect(earnings.jobs.find((j) => j.job_id === j3)).toEqual({
      job_id: j3,
      title: `Job ${j3.slice(0, 8)}`,
      amount: 0.82,
      completed_at: new Date(now - 40 * day).toISOString(),
      status: 'paid',
    });

    const tB = await bearer(h, { id: testerB, type: 'tester' });
    const eB = (await (
      await fetch(`${h.svc.url}/api/tester/my-earnings`, { headers: tB })
    ).json()) as typeof earnings;
    expect(eB).toMatchObject({
      total_usd: 0.82,
      pending_usd: 0.82,
      completed_jobs: 1,
      pending_jobs: 1,
    });
    expect(eB.jobs.map((j) => j.status)).toEqual(['auto_accepted']);

    // The same figures computed independently from the ledger rows, in cents.
    const ledger = await q<{
      kind: string;
      job_id: string;
      tester_id: string | null;
      amount_cents: number;
      earning_id: string | null;
      occurred_at: Date;
      id: string;
    }>(
      h,
      'SELECT id, kind, job_id, tester_id, amount_cents, earning_id, occurred_at FROM payments.ledger_entries',
    );
    const sum = (rows: typeof ledger) => rows.reduce((s, r) => s + r.amount_cents, 0);
    const paidOut = new Set(ledger.filter((r) => r.kind === 'payout').map((r) => r.earning_id));
    const aEarnings = ledger.filter((r) => r.kind === 'tester_earning' && r.tester_id === testerA);
    expect(Math.round(earnings.total_usd * 100)).toBe(sum(aEarnings));
    expect(Math.round(earnings.pending_usd * 100)).toBe(
      sum(aEarnings.filter((r) => !paidOut.has(r.id))),
    );
    expect(Math.round(earnings.last_30_days * 100)).toBe(
      sum(aEarnings.filter((r) => new Date(r.occurred_at).getTime() >= Date.now() - 30 * day)),
    );

    const overview = await fetch(`${h.svc.url}/api/admin/financial-overview`, { headers: admin });
    expect(overview.status).toBe(200);
    const o = (await overview.json()) as Record<string, number>;
    expect(o).toEqual({
      total_payments: 7,
      total_payouts: 3.28,
      platform_earnings: 1.08,
      pending_payouts_count: 2,
      completed_jobs_count: 6,
      total_refunds: 0,
      pending_refunds_count: 0,
      platform_funded_earnings: 0,
      platform_funded_count: 0,
      amount_mismatches: [],
      earning_mismatches: [],
    });
    expect(Math.round(o.total_payments * 100)).toBe(
      sum(ledger.filter((r) => r.kind === 'payment')),
    );
    expect(Math.round(o.total_payouts * 100)).toBe(-sum(ledger.filter((r) => r.kind === 'payout')));
    expect(Math.round(o.platform_earnings * 100)).toBe(
      sum(ledger.filter((r) => r.kind === 'platform_fee')),
    );
    expect(o.pending_payouts_count).toBe(
      ledger.filter((r) => r.kind === 'tester_earning' && !paidOut.has(r.id)).length,
    );
    // Money balances: every payment is split into earning + fee for completed jobs.
    const completed = new Set(
      ledger.filter((r) => r.kind === 'tester_earning').map((r) => r.job_id),
    );
    expect(sum(ledger.filter((r) => r.kind === 'payment' && completed.has(r.job_id)))).toBe(
      sum(ledger.filter((r) => r.kind === 'tester_earning' || r.kind === 'platform_fee')),
    );
  });

  it('refunds the paid jobs nobody finished when the admin clears all jobs, once, and keeps the rest of the money history', async () => {
    const admin = await bearer(h, { type: 'admin' });
    const overview = async () =>
      (await (
        await fetch(`${h.svc.url}/api/admin/financial-overview`, { headers: admin })
      ).json()) as Record<string, number>;
    const unfinished = randomUUID();
    const unpaid = randomUUID();
    await payJob(unfinished, poster);
    const before = await overview();
    const ledgerBefore = await q<{ n: number }>(
      h,
      'SELECT count(*)::int AS n FROM payments.ledger_entries',
    );
    // jobs[0] was completed above (its earning stays); `unpaid` has no payment here: skipped.
    const cleared = createEvent('JobsCleared', 'all-jobs', {
      jobsDeleted: 9,
      submissionsDeleted: 7,
      refundJobIds: [unfinished, unpaid],
      actorId: randomUUID(),
    });
    await (h.svc.ctx.bus as EventBus).publish([cleared]);
    await (h.svc.ctx.bus as EventBus).publish([cleared]); // redelivered
    await eventually(
      async () =>
        (
          await q<{ n: number }>(
            h,
            `SELECT count(*)::int AS n FROM payments.ledger_entries WHERE kind = 'refund' AND job_id = $1`,
            [unfinished],
          )
        )[0].n === 1,
    );
    const refunds = await q<{ job_id: string; amount_cents: number; refund_id: string }>(
      h,
      `SELECT job_id, amount_cents, refund_id FROM payments.ledger_entries WHERE kind = 'refund' AND job_id = ANY($1)`,
      [[unfinished, unpaid, jobs[0]]],
    );
    expect(refunds).toEqual([
      { job_id: unfinished, amount_cents: -100, refund_id: expect.stringMatching(/./) },
    ]);
    const after = await overview();
    expect(after.total_refunds).toBeCloseTo(before.total_refunds + 1, 5);
    expect(after.total_payments).toBe(before.total_payments);
    expect(after.total_payouts).toBe(before.total_payouts);
    // Nothing else was written or removed: one refund entry more.
    expect(
      (await q<{ n: number }>(h, 'SELECT count(*)::int AS n FROM payments.ledger_entries'))[0].n,
    ).toBe(ledgerBefore[0].n + 1);
  });

  it('checks roles: testers cannot read the overview, others cannot read tester earnings or run payouts', async () => {
    const tester = await bearer(h, { type: 'tester' });
    const poster = await bearer(h, { type: 'poster' });
    const admin = await bearer(h, { type: 'admin' });
    const matrix: Array<[string, string, Record<string, string> | undefined, number]> = [
      ['GET', '/api/admin/financial-overview', tester, 403],
      ['GET', '/api/admin/financial-overview', poster, 403],
      ['GET', '/api/admin/financial-overview', undefined, 401],
      ['GET', '/api/tester/my-earnings', poster, 403],
      ['GET', '/api/tester/my-earnings', admin, 403],
      ['GET', '/api/tester/my-earnings', undefined, 401],
      ['POST', '/api/admin/payouts/run', tester, 403],
      ['POST', '/api/admin/payouts/run', poster, 403],
      ['GET', '/api/tester/payout-account', poster, 403],
      ['POST', '/api/tester/payout-account', admin, 403],
    ];
    for (const [method, path, headers, expected] of matrix) {
      const res = await fetch(`${h.svc.url}${path}`, { method, headers });
      expect(`${method} ${path} -> ${res.status}`).toBe(`${method} ${path} -> ${expected}`);
      expect(await res.json()).toHaveProperty('code');
    }
    const empty = await fetch(`${h.svc.url}/api/tester/my-earnings`, { headers: tester });
    expect(await empty.json()).toEqual({
      total_usd: 0,
      pending_usd: 0,
      last_30_days: 0,
      completed_jobs: 0,
      pending_jobs: 0,
      effective_hourly_rate: null,
      median_minutes: null,
      jobs: [],
      cash_out: { min_usd: 5, available_usd: 0, in_progress: null },
    });
  });
  it('pays nobody for an acceptance of a job with no booked payment, and shows the admin a mismatch', async () => {
    const job = randomUUID();
    const tester = randomUUID();
    const posterId = randomUUID();
    const event = await accept(job, tester, posterId, 'poster', new Date());
    const admin = await bearer(h, { type: 'admin' });
    const overview = await eventually(async () => {
      const o = (await (
        await fetch(`${h.svc.url}/api/admin/financial-overview`, { headers: admin })
      ).json()) as { earning_mismatches: Array<Record<string, unknown>> };
      return o.earning_mismatches.some((m) => m.job_id === job) && o;
    });
    expect(overview.earning_mismatches.find((m) => m.job_id === job)).toEqual({
      job_id: job,
      tester_id: tester,
      poster_id: posterId,
      title: `Job ${job.slice(0, 8)}`,
      event_id: event.id,
      reason: 'no_payment',
      recorded_at: expect.any(String),
    });
    expect(await q(h, `SELECT kind FROM payments.ledger_entries WHERE job_id = $1`, [job])).toEqual(
      [],
    );
    expect(
      await q(
        h,
        `SELECT count(*)::int AS n FROM payments.outbox WHERE type = 'EarningRecorded' AND subject = $1`,
        [job],
      ),
    ).toEqual([{ n: 0 }]);
    const t = await bearer(h, { id: tester, type: 'tester' });
    expect(
      await (await fetch(`${h.svc.url}/api/tester/my-earnings`, { headers: t })).json(),
    ).toMatchObject({ total_usd: 0, completed_jobs: 0, jobs: [] });
  });

  it('reads totals and rows in one snapshot: earnings booked while reading never disagree with them', async () => {
    const tester = randomUUID();
    const t = await bearer(h, { id: tester, type: 'tester' });
    const admin = await bearer(h, { type: 'admin' });
    let booking = true;
    const book = (async () => {
      for (let i = 0; i < 60; i++) {
        await q(
          h,
          `INSERT INTO payments.ledger_entries (kind, job_id, amount_cents, tester_id, poster_id, title) VALUES ('tester_earning', $1, 82, $2, 'p', 't')`,
          [randomUUID(), tester],
        );
      }
      booking = false;
    })();
    let reads = 0;
    while (booking || reads < 5) {
      const [e, o] = await Promise.all([
        fetch(`${h.svc.url}/api/tester/my-earnings`, { headers: t }).then(
          (r) =>
            r.json() as Promise<{
              total_usd: number;
              pending_usd: number;
              completed_jobs: number;
              pending_jobs: number;
              jobs: Array<{ amount: number }>;
            }>,
        ),
        fetch(`${h.svc.url}/api/admin/financial-overview`, { headers: admin }).then(
          (r) =>
            r.json() as Promise<{ completed_jobs_count: number; pending_payouts_count: number }>,
        ),
      ]);
      expect({
        total: Math.round(e.total_usd * 100),
        pending: Math.round(e.pending_usd * 100),
        jobs: e.completed_jobs,
        pending_jobs: e.pending_jobs,
      }).toEqual({
        total: e.jobs.length * 82,
        pending: e.jobs.length * 82,
        jobs: e.jobs.length,
        pending_jobs: e.jobs.length,
      });
      expect(o.pending_payouts_count).toBeLessThanOrEqual(o.completed_jobs_count);
      reads++;
    }
    await book;
    expect(reads).toBeGreaterThan(5);
  });
});
