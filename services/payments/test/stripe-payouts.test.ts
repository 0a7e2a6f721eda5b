import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createEvent, type EventBus } from '@htm/events';
import { bearer, eventually, q, startHarness, type Harness } from './support/harness.js';
import type { Fault } from './support/stripe-stand-in.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('stripe_payouts', 'stripe');
});
afterAll(async () => {
  await h?.close();
});

interface RunResult {
  paid: Array<{
    tester_id: string;
    amount: number;
    payout_id: string;
    job_id: string;
    transfer_id: string;
  }>;
  failed: Array<{ tester_id: string; amount: number; error: string; job_id: string }>;
  skipped_unconnected: number;
}

let clock = Date.now() - 3600_000;
/** Accepted submissions (published as jobs would) -> earnings, in order. */
async function earn(
  testerId: string,
  n: number,
): Promise<Array<{ jobId: string; earningId: string }>> {
  const out = [];
  for (let i = 0; i < n; i++) {
    const jobId = randomUUID();
    clock += 1000;
    // The job's $1 is in the ledger (earnings are booked only for paid jobs).
    await q(
      h,
      `INSERT INTO payments.ledger_entries (kind, job_id, amount_cents, poster_id, session_id) VALUES ('payment', $1, 100, 'p', $2)`,
      [jobId, `cs_${jobId}`],
    );
    await (h.svc.ctx.bus as EventBus).publish([
      createEvent('SubmissionAccepted', jobId, {
        jobId,
        testerId,
        posterId: randomUUID(),
        title: 'T',
        acceptedBy: 'poster',
        acceptedAt: new Date(clock).toISOString(),
      }),
    ]);
    const [row] = await eventually(async () => {
      const r = await q<{ id: string }>(
        h,
        `SELECT id FROM payments.ledger_entries WHERE kind = 'tester_earning' AND job_id = $1`,
        [jobId],
      );
      return r.length ? r : undefined;
    });
    out.push({ jobId, earningId: row.id });
  }
  return out;
}

async function connect(testerId: string) {
  const res = await fetch(`${h.svc.url}/api/tester/payout-account`, {
    method: 'POST',
    headers: await bearer(h, { id: testerId, type: 'tester', country: 'US' }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    connected: boolean;
    account_id: string;
    onboarding_url: string | null;
  };
}

async function runPayouts(): Promise<RunResult> {
  const res = await fetch(`${h.svc.url}/api/admin/payouts/run`, {
    method: 'POST',
    headers: await bearer(h, { type: 'admin' }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as RunResult;
}

const transferKeys = () =>
  h.stripe!.seen('POST', '/v1/transfers').map((r) => String(r.headers['idempotency-key']));
const transfersFor = (earningId: string) =>
  [...h.stripe!.transfers.values()].filter(
    (t) => (t.metadata as Record<string, string>).earning_id === earningId,
  );
const payoutsFor = (earningId: string) =>
  q<{ amount_cents: number; transfer_id: string }>(
    h,
    `SELECT amount_cents, transfer_id FROM payments.ledger_entries WHERE kind = 'payout' AND earning_id = $1`,
    [earningId],
  );

describe('payout accounts (Stripe Connect Express through the SDK)', () => {
  it('creates an Express account and answers an onboarding link until the account can receive transfers', async () => {
    const tester = randomUUID();
    h.stripe!.accountsReady = false;
    const first = await connect(tester);
    expect(first.connected).toBe(false);
    expect(first.account_id).toMatch(/^acct_/);
    expect(first.onboarding_url).toMatch(/^https:\/\/connect\.stripe\.com\/setup\//);
    const [create] = h.stripe!.seen('POST', '/v1/accounts');
    expect(create.form).toMatchObject({
      type: 'express',
      'capabilities[transfers][requested]': 'true',
      'metadata[tester_id]': tester,
      country: 'US',
    });
    expect(create.headers['idempotency-key']).toBe(`connect-account-${tester}`);
    const [link] = h.stripe!.seen('POST', '/v1/account_links');
    expect(link.form).toMatchObject({
      account: first.account_id,
      type: 'account_onboarding',
      return_url: 'http://localhost:8080/?payout_onboarding=return',
    });

    // Connecting again reuses the account.
    expect((await connect(tester)).account_id).toBe(first.account_id);
    expect(h.stripe!.seen('POST', '/v1/accounts').length).toBe(1);

    // Onboarding finished at Stripe: the account reads as connected.
    h.stripe!.accountsReady = true;
    const after = await fetch(`${h.svc.url}/api/tester/payout-account`, {
      headers: await bearer(h, { id: tester, type: 'tester' }),
    });
    expect(await after.json()).toEqual({
      connected: true,
      account_id: first.account_id,
      onboarding_url: null,
    });
  });
});

describe('POST /api/admin/payouts/run (stripe transfers through the SDK)', () => {
  it('a failed 2nd transfer stays pending and is reported; the re-run pays it with the same idempotency key and nobody twice', async () => {
    const t1 = randomUUID();
    const t2 = randomUUID();
    const a1 = await connect(t1);
    const a2 = await connect(t2);
    const [e1, e2] = await earn(t1, 2);
    const [e3] = await earn(t2, 1);
    const keysBefore = transferKeys().length;

    let failing = true;
    const seenKeys: string[] = [];
    h.stripe!.transferFault = (_form, key): Fault => {
      if (key && !seenKeys.includes(key)) seenKeys.push(key);
      return failing && key === seenKeys[1] ? 'error500' : 'ok';
    };
    const run1 = await runPayouts();
    expect(run1.paid.map((p) => p.job_id)).toEqual([e1.jobId, e3.jobId]);
    expect(run1.failed).toEqual([
      { tester_id: t1, amount: 0.82, job_id: e2.jobId, error: expect.any(String) },
    ]);
    expect(await payoutsFor(e2.earningId)).toEqual([]);
    const run1Keys = transferKeys().slice(keysBefore);
    expect(run1Keys).toEqual([
      `payout-${e1.earningId}`,
      `payout-${e2.earningId}`,
      `payout-${e2.earningId}`,
      `payout-${e3.earningId}`,
    ]); // the SDK retried once, same key
    const [firstTransfer] = h.stripe!.seen('POST', '/v1/transfers').slice(keysBefore);
    expect(firstTransfer.form).toMatchObject({
      amount: '82',
      currency: 'usd',
      destination: a1.account_id,
      transfer_group: `job_${e1.jobId}`,
      'metadata[earning_id]': e1.earningId,
    });
    expect(h.stripe!.seen('POST', '/v1/transfers').at(-1)!.form.destination).toBe(a2.account_id);

    failing = false;
    const run2 = await runPayouts();
    expect(run2.paid.map((p) => p.job_id)).toEqual([e2.jobId]);
    expect(run2.failed).toEqual([]);
    expect(transferKeys().slice(keysBefore + run1Keys.length)).toEqual([`payout-${e2.earningId}`]);

    const run3 = await runPayouts();
    expect(run3.paid).toEqual([]);
    for (const e of [e1, e2, e3]) {
      expect(transfersFor(e.earningId)).toHaveLength(1);
      expect(await payoutsFor(e.earningId)).toEqual([
        { amount_cents: -82, transfer_id: transfersFor(e.earningId)[0].id },
      ]);
    }
    expect(
      await q(
        h,
        `SELECT count(*)::int AS n FROM payments.outbox WHERE type = 'TesterPaid' AND subject IN ($1, $2)`,
        [t1, t2],
      ),
    ).toEqual([{ n: 3 }]);
    h.stripe!.transferFault = () => 'ok';
  });

  it('a transfer made at Stripe whose answer was lost is recorded on the re-run with the same transfer (no second transfer)', async () => {
    const t = randomUUID();
    await connect(t);
    const [e1, e2] = await earn(t, 2);
    let dropping = true;
    h.stripe!.transferFault = (form): Fault =>
      dropping && form['metadata[earning_id]'] === e1.earningId ? 'drop-after-create' : 'ok';
    const run1 = await runPayouts();
    expect(run1.failed.map((f) => f.job_id)).toEqual([e1.jobId]);
    expect(run1.paid.map((p) => p.job_id)).toEqual([e2.jobId]);
    expect(transfersFor(e1.earningId)).toHaveLength(1); // Stripe did transfer
    expect(await payoutsFor(e1.earningId)).toEqual([]); // but we never heard: still pending

    dropping = false;
    const run2 = await runPayouts();
    expect(run2.paid).toEqual([
      expect.objectContaining({ job_id: e1.jobId, transfer_id: transfersFor(e1.earningId)[0].id }),
    ]);
    expect(transfersFor(e1.earningId)).toHaveLength(1);
    expect(await payoutsFor(e1.earningId)).toEqual([
      { amount_cents: -82, transfer_id: transfersFor(e1.earningId)[0].id },
    ]);
    expect(
      new Set(
        h
          .stripe!.seen('POST', '/v1/transfers')
          .filter((r) => r.form['metadata[earning_id]'] === e1.earningId)
          .map((r) => r.headers['idempotency-key']),
      ),
    ).toEqual(new Set([`payout-${e1.earningId}`]));
    h.stripe!.transferFault = () => 'ok';
  });

  it('a process crash mid-transfer leaves the attempt on record; a new process re-runs with the same key and pays once', async () => {
    const t = randomUUID();
    await connect(t);
    const [e] = await earn(t, 1);
    h.stripe!.transferFault = (form): Fault =>
      form['metadata[earning_id]'] === e.earningId ? 'hang' : 'ok';
    const admin = await bearer(h, { type: 'admin' });
    const inFlight = fetch(`${h.svc.url}/api/admin/payouts/run`, {
      method: 'POST',
      headers: admin,
    }).catch(() => undefined);
    await eventually(async () => h.stripe!.hangingCount > 0);
    // The attempt (with its key) was committed before Stripe was called.
    expect(
      await q(
        h,
        'SELECT idempotency_key, status FROM payments.payout_attempts WHERE earning_id = $1',
        [e.earningId],
      ),
    ).toEqual([{ idempotency_key: `payout-${e.earningId}`, status: 'started' }]);

    // "Crash": the process goes away while Stripe is still answering.
    await h.svc.stop();
    h.stripe!.releaseHung();
    await inFlight;
    expect(transfersFor(e.earningId)).toHaveLength(1);
    expect(
      await q(
        h,
        `SELECT count(*)::int AS n FROM payments.ledger_entries WHERE kind = 'payout' AND earning_id = $1`,
        [e.earningId],
      ).catch(() => 'db closed'),
    ).toBe('db closed');

    h.stripe!.transferFault = () => 'ok';
    await h.restart();
    expect(await payoutsFor(e.earningId)).toEqual([]);
    const run = await runPayouts();
    expect(run.paid).toEqual([
      expect.objectContaining({ job_id: e.jobId, transfer_id: transfersFor(e.earningId)[0].id }),
    ]);
    expect(transfersFor(e.earningId)).toHaveLength(1);
    expect(
      new Set(
        h
          .stripe!.seen('POST', '/v1/transfers')
          .filter((r) => r.form['metadata[earning_id]'] === e.earningId)
          .map((r) => r.headers['idempotency-key']),
      ),
    ).toEqual(new Set([`payout-${e.earningId}`]));
    expect(await payoutsFor(e.earningId)).toEqual([
      { amount_cents: -82, transfer_id: transfersFor(e.earningId)[0].id },
    ]);
  });

  it('a definite refusal (400) is reported; the next run may use a fresh key and still pays once', async () => {
    const t = randomUUID();
    await connect(t);
    const [e] = await earn(t, 1);
    let refusing = true;
    h.stripe!.transferFault = (form): Fault =>
      refusing && form['metadata[earning_id]'] === e.earningId ? 'refuse400' : 'ok';
    const run1 = await runPayouts();
    expect(run1.failed).toEqual([
      {
        tester_id: t,
        amount: 0.82,
        job_id: e.jobId,
        error: 'Stand-in: insufficient available balance',
      },
    ]);
    refusing = false;
    const run2 = await runPayouts();
    expect(run2.paid.map((p) => p.job_id)).toEqual([e.jobId]);
    expect(
      h
        .stripe!.seen('POST', '/v1/transfers')
        .filter((r) => r.form['metadata[earning_id]'] === e.earningId)
        .map((r) => r.headers['idempotency-key']),
    ).toEqual([`payout-${e.earningId}`, `payout-${e.earningId}-r1`]);
    expect(transfersFor(e.earningId)).toHaveLength(1);
    expect(await payoutsFor(e.earningId)).toHaveLength(1);
    h.stripe!.transferFault = () => 'ok';
  });

  it('a retry after Stripe forgot the key (> 24 h) finds the transfer already made instead of paying again', async () => {
    const t = randomUUID();
    await connect(t);
    const [e] = await earn(t, 1);
    let dropping = true;
    h.stripe!.transferFault = (form): Fault =>
      dropping && form['metadata[earning_id]'] === e.earningId ? 'drop-after-create' : 'ok';
    expect((await runPayouts()).failed.map((f) => f.job_id)).toEqual([e.jobId]);
    expect(transfersFor(e.earningId)).toHaveLength(1);
    dropping = false;

    // A day passes: the key is gone at Stripe.
    h.stripe!.forgetIdempotencyKeys();
    await q(
      h,
      `UPDATE payments.payout_attempts SET key_created_at = now() - interval '25 hours' WHERE earning_id = $1`,
      [e.earningId],
    );
    const posts = h.stripe!.seen('POST', '/v1/transfers').length;
    const run = await runPayouts();
    expect(run.paid).toEqual([
      expect.objectContaining({ job_id: e.jobId, transfer_id: transfersFor(e.earningId)[0].id }),
    ]);
    expect(h.stripe!.seen('GET', '/v1/transfers').at(-1)!.query.transfer_group).toBe(
      `job_${e.jobId}`,
    );
    expect(h.stripe!.seen('POST', '/v1/transfers').length).toBe(posts);
    expect(transfersFor(e.earningId)).toHaveLength(1);
    expect(await payoutsFor(e.earningId)).toHaveLength(1);
    h.stripe!.transferFault = () => 'ok';
  });

  it('skips testers without a connected account and keeps their earnings pending', async () => {
    const t = randomUUID();
    const [e] = await earn(t, 1);
    const run = await runPayouts();
    expect(run.skipped_unconnected).toBe(1);
    expect(run.paid).toEqual([]);
    expect(await payoutsFor(e.earningId)).toEqual([]);
  });
});
