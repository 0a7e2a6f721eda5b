/**
 * The money flows across the services on `npm start`'s embedded databases (PGlite, one per
 * service, one connection each) with the local checkout: what every new user runs first. One
 * stack, the flows one after another (issue #48's blocker: the first refund used to jam payments
 * for good). After each flow payments still answers: a new job gets its checkout, the financial
 * overview and the tester's earnings answer. The same flows on PostgreSQL: marketplace-flow,
 * packs, appeals and your-data tests.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ClearJobsPreview, JobView } from '@htm/contracts';
import {
  client,
  postAndPay,
  refreshAccess,
  signIn,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  submitQuickReport,
  waitFor,
  JOB,
  type Actor,
  type Stack,
} from './support/stack.js';
import { endFillWindow } from './support/packs.js';

let stack: Stack;
let admin: Actor;
let poster: Actor;
let tester: Actor;

beforeAll(async () => {
  stack = await startStack({
    label: 'embedded',
    pglite: true,
    env: { CASH_OUT_MIN_CENTS: '50', TESTER_STRIKE_LIMIT: '1', PRIVACY_SWEEP_MS: '200' },
  });
  expect(stack.payments.ctx.dbHandle.kind).toBe('pglite');
  admin = await signInAdmin(stack);
  poster = await signInPoster(stack, 'embedded.poster@gmail.com');
  tester = await signInTester(stack, 'embedded.tester@gmail.com', { admin });
}, 300_000);
afterAll(async () => {
  await stack?.stop();
});

type Sums = { payment: number; refund: number; tester_earning: number; payout: number };

/** The ledger's sums by kind, in cents. */
async function ledger(): Promise<Sums> {
  const rows = await stack.sql<{ kind: keyof Sums; cents: number }>(
    'SELECT kind, SUM(amount_cents)::int AS cents FROM payments.ledger_entries GROUP BY kind',
  );
  const sums: Sums = { payment: 0, refund: 0, tester_earning: 0, payout: 0 };
  for (const r of rows) sums[r.kind] = r.cents;
  return sums;
}

/**
 * Payments answers at once: a new job gets its checkout (the poster's "Post Job & Pay"), the
 * admin's financial overview and the tester's earnings answer. Each call is bounded: a jammed
 * database never answers.
 */
async function paymentsAnswers(): Promise<void> {
  const signal = () => AbortSignal.timeout(15_000);
  const ready = await fetch(`${stack.payments.url}/readyz`, { signal: signal() });
  expect(ready.status).toBe(200);
  const posted = await client(stack, poster.token).call('POST', '/api/jobs', {
    ...JOB,
    title: 'Probe: does checkout answer?',
  });
  expect(posted.status).toBe(201);
  expect(posted.body.checkout_url).toMatch(/^\/api\/payments\/local\/checkout\/cs_local_/);
  for (const [who, path] of [
    [admin, '/api/admin/financial-overview'],
    [tester, '/api/tester/my-earnings'],
  ] as const) {
    const res = await fetch(`${stack.url}${path}`, {
      headers: { authorization: `Bearer ${who.token}` },
      signal: signal(),
    });
    expect([path, res.status]).toEqual([path, 200]);
  }
}

/** Whether identity has the tester approved. */
async function approved(id: string): Promise<boolean | undefined> {
  const [row] = await stack.sql<{ approved: boolean }>(
    'SELECT approved FROM identity.users WHERE id = $1',
    [id],
  );
  return row?.approved;
}

/** Makes the claim deadlines of `ids` due now and has the timer worker act on them. */
async function claimDeadlinePasses(ids: string[]) {
  await stack.sql(
    "UPDATE jobs.jobs SET claim_deadline_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])",
    [ids],
  );
  await stack.jobs.worker!.reconcile();
}

describe('money flows on the embedded database (PGlite, local checkout)', () => {
  it('marketplace: a paid job is claimed, submitted and accepted; the tester earns $0.82', async () => {
    const { jobId } = await postAndPay(stack, poster);
    expect((await client(stack, tester.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
    expect(await submitQuickReport(stack, tester, jobId)).toBe(201);
    const accept = await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, {
      decision: 'accept',
    });
    expect([accept.status, accept.body.payment_processed]).toEqual([200, true]);
    await waitFor(async () => (await ledger()).tester_earning === 82, 'the earning');
    expect(await ledger()).toMatchObject({ payment: 100, tester_earning: 82 });
    await paymentsAnswers();
  });

  it('cash-out: the tester connects a payout account and cashes out the $0.82', async () => {
    expect(
      (await client(stack, tester.token).post('/api/tester/payout-account')).status,
    ).toBeLessThan(300);
    const out = await client(stack, tester.token).post('/api/tester/cash-out', undefined, {
      'idempotency-key': 'embedded-cash-out-1',
    });
    expect(out.status).toBe(202);
    expect(out.body).toMatchObject({ payout: { amount_usd: 0.82 } });
    await waitFor(async () => (await ledger()).payout === -82, 'the payout');
    const earnings = await client(stack, tester.token).get('/api/tester/my-earnings');
    expect(earnings.body).toMatchObject({ total_usd: 0.82, pending_usd: 0 });
    await paymentsAnswers();
  });

  it('packs: a pack of 3 with one claim; the two slots nobody took in the fill window are refunded once', async () => {
    const posted = await client(stack, poster.token).post('/api/jobs', {
      ...JOB,
      title: 'Three testers on my shop',
      url: 'https://shop.example',
      testers: 3,
    });
    expect(posted.status).toBe(201);
    const ids = (posted.body.jobs as JobView[]).map((j) => j.id);
    const pay = await fetch(`${stack.url}${posted.body.checkout_url}/pay`, {
      method: 'POST',
      redirect: 'manual',
    });
    expect(pay.status).toBe(303);
    await waitFor(async () => {
      const listed = (await client(stack, tester.token).get('/api/tester/available-jobs')).body
        .jobs;
      return listed?.some((j) => j.pack_id === posted.body.pack.id);
    }, 'the pack listed for testers');
    const before = await ledger();
    const claim = await client(stack, tester.token).post(`/api/jobs/${ids[0]}/claim`);
    expect(claim.status).toBe(200);
    const claimed = claim.body.job.id;
    const unfilled = ids.filter((id) => id !== claimed);

    await endFillWindow(stack, ids);
    await stack.jobs.worker!.reconcile();
    const refunds = await waitFor(async () => {
      const rows = await stack.sql<{ job_id: string; amount_cents: number }>(
        "SELECT job_id, amount_cents FROM payments.ledger_entries WHERE kind = 'refund' AND job_id = ANY($1::text[]) ORDER BY job_id",
        [ids],
      );
      return rows.length === 2 ? rows : undefined;
    }, 'the two unfilled slots refunded');
    expect(refunds).toEqual(unfilled.sort().map((job_id) => ({ job_id, amount_cents: -100 })));
    expect((await ledger()).refund - before.refund).toBe(-200);
    const pack = await client(stack, poster.token).get(`/api/packs/${posted.body.pack.id}`);
    expect(pack.body.pack).toMatchObject({ size: 3, claimed: 1, closed: 2 });
    await paymentsAnswers();
    // The held slot goes on: submitted and accepted, it earns the tester $0.82.
    expect(await submitQuickReport(stack, tester, claimed)).toBe(201);
    expect(
      (
        await client(stack, poster.token).post(`/api/jobs/${claimed}/review`, {
          decision: 'accept',
        })
      ).status,
    ).toBe(200);
    await waitFor(async () => (await ledger()).tester_earning === 164, 'the second earning');
  });

  it('appeals: a missed claim releases the tester (no cash-out), an overturned appeal lets them cash out again', async () => {
    const { jobId } = await postAndPay(stack, poster, { ...JOB, title: 'Missed claim' });
    expect((await client(stack, tester.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
    await claimDeadlinePasses([jobId]);
    await waitFor(
      async () => (await approved(tester.id)) === false,
      'identity to release the tester at the strike limit',
    );
    const back = await signIn(stack, tester.email, 'tester');
    tester = { ...tester, token: back.token, jar: back.jar };
    const refused = await client(stack, tester.token).post('/api/tester/cash-out', undefined, {
      'idempotency-key': 'embedded-cash-out-2',
    });
    expect(refused.body.code).toBe('tester_not_approved');

    const appeal = await client(stack, tester.token).post('/api/appeals', {
      job_id: jobId,
      kind: 'strike',
      message: 'My connection dropped; I was back within minutes.',
    });
    expect(appeal.status).toBe(201);
    const decided = await client(stack, admin.token).post(
      `/api/admin/appeals/${appeal.body.appeal.id}/decision`,
      { decision: 'overturn', note: 'Fair enough.' },
    );
    expect(decided.status).toBe(200);
    await waitFor(async () => (await approved(tester.id)) === true, 'the tester approved again');
    tester = { ...tester, token: await refreshAccess(stack, tester.jar) };
    const out = await client(stack, tester.token).post('/api/tester/cash-out', undefined, {
      'idempotency-key': 'embedded-cash-out-3',
    });
    expect(out.status).toBe(202);
    expect(out.body).toMatchObject({ payout: { amount_usd: 0.82 } });
    await waitFor(async () => (await ledger()).payout === -164, 'the second payout');
    await paymentsAnswers();
  });

  it("account deletion: a poster's paid job nobody started is refunded and the poster leaves the ledger", async () => {
    const leaving = await signInPoster(stack, 'embedded.leaving@gmail.com');
    const { jobId } = await postAndPay(stack, leaving, { ...JOB, title: 'Leaving soon' });
    const asked = await client(stack, leaving.token).post('/api/me/deletion', {
      email: leaving.email,
    });
    expect(asked.status).toBe(202);
    await stack.sql(
      "UPDATE identity.account_deletions SET due_at = now() - interval '1 second' WHERE user_id = $1",
      [leaving.id],
    );
    const [refund] = await waitFor(
      async () => {
        const rows = await stack.sql<{ amount_cents: number; poster_id: string }>(
          "SELECT amount_cents, poster_id FROM payments.ledger_entries WHERE kind = 'refund' AND job_id = $1",
          [jobId],
        );
        return rows.length ? rows : undefined;
      },
      'the refund of the withdrawn job',
      60_000,
    );
    expect(refund.amount_cents).toBe(-100);
    expect(refund.poster_id).not.toBe(leaving.id);
    await waitFor(
      async () =>
        (
          await stack.sql('SELECT 1 FROM payments.ledger_entries WHERE poster_id = $1', [
            leaving.id,
          ])
        ).length === 0,
      'the poster erased from the ledger',
    );
    await paymentsAnswers();
  });

  it("clear-all: the admin's clear-all refunds every paid job nobody finished, once, as its preview said", async () => {
    const preview = await client(stack, admin.token).post('/api/admin/clear-jobs/preview');
    expect(preview.status).toBe(200);
    const p = preview.body as unknown as ClearJobsPreview;
    expect(p.paid_unfinished).toBeGreaterThan(0);
    const before = await ledger();
    const cleared = await client(stack, admin.token).post('/api/admin/clear-jobs', {
      confirmation: p.confirmation,
    });
    expect(cleared.status).toBe(200);
    // The preview's sum is what is refunded (the pack's closed slots were refunded before).
    expect(cleared.body).toMatchObject({ refunded_jobs: p.paid_unfinished });
    await waitFor(
      async () => (await ledger()).refund === before.refund - p.paid_unfinished_cents,
      'the refunds of the cleared jobs',
    );
    await paymentsAnswers();
    // Nothing was dead-lettered along the way (a refund the guard refused would be).
    const dead = await client(stack, admin.token).get('/api/admin/dead-letters');
    expect(dead.body).toMatchObject({ total: 0 });
  });
});
