import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, q, startHarness, type Harness } from './support/harness.js';
import { earn } from './support/earn.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('cash_out', 'local');
});
afterAll(async () => {
  await h?.close();
});

const tester = (id: string, approved = true) =>
  bearer(h, { id, type: 'tester', approved, country: 'US' });

async function cashOut(id: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${h.svc.url}/api/tester/cash-out`, {
    method: 'POST',
    headers: { ...(await tester(id)), ...headers },
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown> & {
      payout?: { id: string; amount_usd: number; status: string };
      code?: string;
      detail?: string;
    },
  };
}

async function connect(id: string) {
  const res = await fetch(`${h.svc.url}/api/tester/payout-account`, {
    method: 'POST',
    headers: await tester(id),
  });
  expect(res.status).toBe(200);
}

async function earnings(id: string) {
  const res = await fetch(`${h.svc.url}/api/tester/my-earnings`, { headers: await tester(id) });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    pending_usd: number;
    total_usd: number;
    jobs: Array<{ job_id: string; status: string }>;
    cash_out: {
      min_usd: number;
      available_usd: number;
      in_progress: { id: string; amount_usd: number } | null;
    };
  };
}

const transfersTo = async (testerId: string) =>
  q<{ id: string; amount_cents: number; idempotency_key: string }>(
    h,
    `SELECT t.id, t.amount_cents, t.idempotency_key FROM payments.local_provider_transfers t JOIN payments.payout_accounts a ON a.account_id = t.account_id WHERE a.tester_id = $1`,
    [testerId],
  );
const payoutRows = (testerId: string) =>
  q<{ earning_id: string; amount_cents: number; transfer_id: string; cash_out_id: string | null }>(
    h,
    `SELECT earning_id, amount_cents, transfer_id, cash_out_id FROM payments.ledger_entries WHERE kind = 'payout' AND tester_id = $1`,
    [testerId],
  );
const testerPaid = (testerId: string) =>
  q<{ envelope: { data: { payoutId: string; amountCents: number; jobIds: string[] } } }>(
    h,
    `SELECT envelope FROM payments.outbox WHERE type = 'TesterPaid' AND subject = $1`,
    [testerId],
  );

async function overview() {
  const res = await fetch(`${h.svc.url}/api/admin/financial-overview`, {
    headers: await bearer(h, { type: 'admin' }),
  });
  return (await res.json()) as { total_payouts: number; pending_payouts_count: number };
}

describe('POST /api/tester/cash-out: refusals', () => {
  it('needs a token and the tester role, and an approved tester', async () => {
    expect((await fetch(`${h.svc.url}/api/tester/cash-out`, { method: 'POST' })).status).toBe(401);
    const poster = await fetch(`${h.svc.url}/api/tester/cash-out`, {
      method: 'POST',
      headers: await bearer(h, { type: 'poster' }),
    });
    expect(poster.status).toBe(403);
    const unapproved = await fetch(`${h.svc.url}/api/tester/cash-out`, {
      method: 'POST',
      headers: await tester(randomUUID(), false),
    });
    expect(unapproved.status).toBe(403);
    expect(await unapproved.json()).toMatchObject({
      code: 'tester_not_approved',
      detail: 'Only approved testers can cash out.',
    });
  });

  it('answers 409 no_payout_account, saying what is missing, to a tester without a payout account', async () => {
    const id = randomUUID();
    await earn(h, id, 7);
    const r = await cashOut(id);
    expect(r.status).toBe(409);
    expect(r.body).toEqual({
      code: 'no_payout_account',
      detail: 'Connect a payout account first: your earnings are sent there.',
    });
    expect(await transfersTo(id)).toEqual([]);
  });

  it('answers 409 below_minimum with the amount and the $5 minimum until pending earnings reach it', async () => {
    const id = randomUUID();
    await connect(id);
    expect(await cashOut(id)).toEqual({
      status: 409,
      body: {
        code: 'below_minimum',
        detail: 'You have nothing to cash out yet; you can cash out from $5.00.',
      },
    });
    await earn(h, id, 6); // 6 x $0.82 = $4.92
    expect(await cashOut(id)).toEqual({
      status: 409,
      body: {
        code: 'below_minimum',
        detail: 'You have $4.92 to cash out; you can cash out from $5.00.',
      },
    });
    expect((await earnings(id)).cash_out).toEqual({
      min_usd: 5,
      available_usd: 4.92,
      in_progress: null,
    });
    expect(await transfersTo(id)).toEqual([]);
    expect(await payoutRows(id)).toEqual([]);
  });
});

describe('POST /api/tester/cash-out: pays once', () => {
  it('pays every pending earning in one transfer at $5 and the ledger, earnings and overview show it', async () => {
    const id = randomUUID();
    await connect(id);
    const earned = await earn(h, id, 7); // $5.74
    const before = await overview();
    expect((await earnings(id)).cash_out).toEqual({
      min_usd: 5,
      available_usd: 5.74,
      in_progress: null,
    });

    const r = await cashOut(id);
    expect(r.status).toBe(202);
    expect(r.body.payout).toEqual({ id: expect.any(String), amount_usd: 5.74, status: 'paid' });

    const transfers = await transfersTo(id);
    expect(transfers).toEqual([
      {
        id: expect.stringMatching(/^tr_local_/),
        amount_cents: 574,
        idempotency_key: `cash-out-${r.body.payout!.id}`,
      },
    ]);
    const rows = await payoutRows(id);
    expect(rows).toHaveLength(7);
    expect(rows.map((p) => p.earning_id).sort()).toEqual(earned.map((e) => e.earningId).sort());
    for (const p of rows)
      expect(p).toMatchObject({
        amount_cents: -82,
        transfer_id: transfers[0].id,
        cash_out_id: r.body.payout!.id,
      });

    const after = await earnings(id);
    expect(after).toMatchObject({
      pending_usd: 0,
      total_usd: 5.74,
      cash_out: { min_usd: 5, available_usd: 0, in_progress: null },
    });
    expect(after.jobs.every((j) => j.status === 'paid')).toBe(true);
    const o = await overview();
    expect(Math.round((o.total_payouts - before.total_payouts) * 100)).toBe(574);
    expect(before.pending_payouts_count - o.pending_payouts_count).toBe(7);

    const paid = await testerPaid(id);
    expect(paid).toHaveLength(1);
    expect(paid[0].envelope.data).toMatchObject({ payoutId: r.body.payout!.id, amountCents: 574 });
    expect(paid[0].envelope.data.jobIds.sort()).toEqual(earned.map((e) => e.jobId).sort());

    // Nothing left: a second click is refused and pays nothing.
    expect(await cashOut(id)).toEqual({
      status: 409,
      body: {
        code: 'below_minimum',
        detail: 'You have nothing to cash out yet; you can cash out from $5.00.',
      },
    });
    expect(await transfersTo(id)).toHaveLength(1);
  });

  it('pays once for a double click (two simultaneous requests)', async () => {
    const id = randomUUID();
    await connect(id);
    await earn(h, id, 8); // $6.56
    const answers = await Promise.all([cashOut(id), cashOut(id), cashOut(id)]);
    const ok = answers.filter((a) => a.status === 202);
    expect(ok).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 202)) {
      expect(a.status).toBe(409);
      expect(['payout_in_progress', 'below_minimum']).toContain(a.body.code);
    }
    expect(await transfersTo(id)).toEqual([expect.objectContaining({ amount_cents: 656 })]);
    const rows = await payoutRows(id);
    expect(rows).toHaveLength(8);
    expect(rows.reduce((s, p) => s + p.amount_cents, 0)).toBe(-656);
    expect(await testerPaid(id)).toHaveLength(1);
  });

  it('answers a retry with the same Idempotency-Key with the first answer, paying once', async () => {
    const id = randomUUID();
    await connect(id);
    await earn(h, id, 7);
    const key = randomUUID();
    const first = await cashOut(id, { 'idempotency-key': key });
    const retry = await cashOut(id, { 'idempotency-key': key });
    expect(first.status).toBe(202);
    expect(retry).toEqual(first);
    expect(await transfersTo(id)).toHaveLength(1);
    expect(await payoutRows(id)).toHaveLength(7);
    // A new attempt (new key) is a new request: nothing is left to pay.
    expect((await cashOut(id, { 'idempotency-key': randomUUID() })).body.code).toBe(
      'below_minimum',
    );
  });

  it("leaves cashed-out earnings to the tester while the admin's payout run pays everyone else", async () => {
    const a = randomUUID();
    const b = randomUUID();
    await connect(a);
    await connect(b);
    await earn(h, a, 7);
    const bEarned = await earn(h, b, 2);
    expect((await cashOut(a)).status).toBe(202);
    const run = await fetch(`${h.svc.url}/api/admin/payouts/run`, {
      method: 'POST',
      headers: await bearer(h, { type: 'admin' }),
    });
    const result = (await run.json()) as { paid: Array<{ tester_id: string; job_id: string }> };
    expect(result.paid.filter((p) => p.tester_id === a)).toEqual([]);
    expect(
      result.paid
        .filter((p) => p.tester_id === b)
        .map((p) => p.job_id)
        .sort(),
    ).toEqual(bEarned.map((e) => e.jobId).sort());
    expect(await payoutRows(a)).toHaveLength(7);
    expect(await transfersTo(a)).toHaveLength(1);
    expect(await transfersTo(b)).toHaveLength(2);
  });

  it('pays each earning once when a cash-out and the payout run happen at the same moment', async () => {
    const id = randomUUID();
    await connect(id);
    const earned = await earn(h, id, 9);
    const [mine] = await Promise.all([
      cashOut(id),
      fetch(`${h.svc.url}/api/admin/payouts/run`, {
        method: 'POST',
        headers: await bearer(h, { type: 'admin' }),
      }),
    ]);
    expect([202, 409]).toContain(mine.status);
    const rows = await payoutRows(id);
    expect(rows.map((p) => p.earning_id).sort()).toEqual(earned.map((e) => e.earningId).sort());
    const transfers = await transfersTo(id);
    expect(transfers.reduce((s, t) => s + t.amount_cents, 0)).toBe(9 * 82);
  });
});
