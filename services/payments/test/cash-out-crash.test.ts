import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '@htm/service-kit';
import { waitFor } from '@htm/service-kit/testing';
import { startPayments } from '../src/main.js';
import { bearer, q, startHarness, type Harness } from './support/harness.js';
import { earn } from './support/earn.js';

/**
 * Cash-outs through Stripe Connect (the official SDK against the local Stripe stand-in): a crash
 * between the transfer and the ledger write, an unknown provider answer and a refusal each pay once.
 */
let h: Harness;
const serviceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

beforeAll(async () => {
  h = await startHarness('cash_out_crash', 'stripe');
});
afterAll(async () => {
  await h?.close();
});

const tester = (id: string) => bearer(h, { id, type: 'tester', approved: true, country: 'US' });

async function cashOut(base: string, id: string) {
  const res = await fetch(`${base}/api/tester/cash-out`, {
    method: 'POST',
    headers: await tester(id),
  });
  return {
    status: res.status,
    body: (await res.json()) as {
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
  return ((await res.json()) as { account_id: string }).account_id;
}

const transfersTo = (accountId: string) =>
  [...h.stripe!.transfers.values()].filter((t) => t.destination === accountId) as Array<{
    id: string;
    amount: number;
    metadata: Record<string, string>;
  }>;
const payoutRows = (testerId: string) =>
  q<{ amount_cents: number; transfer_id: string; cash_out_id: string }>(
    h,
    `SELECT amount_cents, transfer_id, cash_out_id FROM payments.ledger_entries WHERE kind = 'payout' AND tester_id = $1`,
    [testerId],
  );
const cashOutRows = (testerId: string) =>
  q<{ id: string; status: string; transfer_id: string | null; tries: number }>(
    h,
    `SELECT id, status, transfer_id, tries FROM payments.cash_outs WHERE tester_id = $1`,
    [testerId],
  );
const testerPaidCount = async (testerId: string) =>
  (
    await q<{ n: number }>(
      h,
      `SELECT count(*)::int AS n FROM payments.outbox WHERE type = 'TesterPaid' AND subject = $1`,
      [testerId],
    )
  )[0].n;

/** The payments service as its own process (what kill -9 can stop between two lines). */
async function spawnPayments(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: serviceDir,
    env: { ...process.env, ...h.env, PORT: String(port), NODE_OPTIONS: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`payments exited: ${stderr}`);
      return (await fetch(`${url}/readyz`).catch(() => null))?.ok;
    },
    'the payments process to be ready',
    60_000,
  );
  return { child, url };
}

describe('cash-out through Stripe Connect', () => {
  it('pays once when the process is killed (-9) between the transfer and the ledger write, and resumes on restart', async () => {
    const id = randomUUID();
    const account = await connect(id);
    await earn(h, id, 7); // $5.74
    // Only the child process runs from here on (same database, same Redis prefix).
    await h.svc.stop();
    const { child, url } = await spawnPayments();
    try {
      // Stripe makes the transfer, but the answer never reaches the service...
      h.stripe!.transferFault = () => 'hang';
      const pending = cashOut(url, id).catch((err: Error) => err);
      await waitFor(
        async () => h.stripe!.hangingCount === 1,
        'the transfer to be made at Stripe',
        30_000,
      );
      // ...and the process dies before it writes the ledger.
      child.kill('SIGKILL');
      // The tester's request never got an answer.
      expect(String(await pending)).toMatch(/fetch failed/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      h.stripe!.releaseHung();
      h.stripe!.transferFault = () => 'ok';
    }
    // Read with a client of our own: no payments process is running now.
    const { default: pg } = await import('pg');
    const db = new pg.Client({ connectionString: h.env.DATABASE_URL });
    await db.connect();
    try {
      expect(transfersTo(account)).toHaveLength(1);
      expect(
        (
          await db.query(
            `SELECT count(*)::int AS n FROM payments.ledger_entries WHERE kind = 'payout' AND tester_id = $1`,
            [id],
          )
        ).rows,
      ).toEqual([{ n: 0 }]);
      expect(
        (
          await db.query(
            `SELECT status, transfer_id, tries FROM payments.cash_outs WHERE tester_id = $1`,
            [id],
          )
        ).rows,
      ).toEqual([{ status: 'processing', transfer_id: null, tries: 1 }]);
    } finally {
      await db.end();
    }

    // Restart: the service resumes the cash-out with the same idempotency key; Stripe answers the same transfer.
    h.svc = await startPayments(h.env, { port: 0 });
    const [done] = await waitFor(async () => {
      const rows = await cashOutRows(id);
      return rows[0]?.status === 'paid' ? rows : undefined;
    }, 'the cash-out to be paid after the restart');
    const transfers = transfersTo(account);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]).toMatchObject({
      id: done.transfer_id,
      amount: 574,
      metadata: { cash_out_id: done.id, tester_id: id },
    });
    expect(
      new Set(
        h
          .stripe!.seen('POST', '/v1/transfers')
          .filter((r) => r.form.destination === account)
          .map((r) => r.headers['idempotency-key']),
      ),
    ).toEqual(new Set([`cash-out-${done.id}`]));
    const rows = await payoutRows(id);
    expect(rows).toHaveLength(7);
    for (const r of rows)
      expect(r).toEqual({ amount_cents: -82, transfer_id: done.transfer_id, cash_out_id: done.id });
    expect(await testerPaidCount(id)).toBe(1);
    // The tester's retry after the crash finds nothing left to pay.
    expect((await cashOut(h.svc.url, id)).body.code).toBe('below_minimum');
    expect(transfersTo(account)).toHaveLength(1);
  });

  it('keeps a cash-out whose answer was lost processing (202) and settles it once on the next payout run', async () => {
    const id = randomUUID();
    const account = await connect(id);
    await earn(h, id, 7);
    h.stripe!.transferFault = () => 'error500';
    const first = await cashOut(h.svc.url, id);
    h.stripe!.transferFault = () => 'ok';
    expect(first).toEqual({
      status: 202,
      body: { payout: { id: expect.any(String), amount_usd: 5.74, status: 'processing' } },
    });
    const again = await cashOut(h.svc.url, id);
    expect(again).toEqual({
      status: 409,
      body: {
        code: 'payout_in_progress',
        detail:
          'Your cash-out of $5.74 is still being sent. You can cash out again once it has arrived.',
      },
    });
    const earningsRes = await fetch(`${h.svc.url}/api/tester/my-earnings`, {
      headers: await tester(id),
    });
    expect(((await earningsRes.json()) as { cash_out: unknown }).cash_out).toEqual({
      min_usd: 5,
      available_usd: 0,
      in_progress: { id: first.body.payout!.id, amount_usd: 5.74 },
    });

    const run = await fetch(`${h.svc.url}/api/admin/payouts/run`, {
      method: 'POST',
      headers: await bearer(h, { type: 'admin' }),
    });
    expect(run.status).toBe(200);
    expect(await cashOutRows(id)).toEqual([
      expect.objectContaining({ id: first.body.payout!.id, status: 'paid' }),
    ]);
    expect(transfersTo(account)).toHaveLength(1);
    expect(await payoutRows(id)).toHaveLength(7);
  });

  it('frees the earnings when Stripe refuses the transfer, so the next cash-out pays them', async () => {
    const id = randomUUID();
    const account = await connect(id);
    await earn(h, id, 7);
    h.stripe!.transferFault = () => 'refuse400';
    const refused = await cashOut(h.svc.url, id);
    h.stripe!.transferFault = () => 'ok';
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe('transfer_refused');
    expect(refused.body.detail).toMatch(
      /^The payment provider refused the transfer: .+ Nothing was sent; please try again later\.$/,
    );
    expect(await cashOutRows(id)).toEqual([expect.objectContaining({ status: 'failed' })]);
    expect(await payoutRows(id)).toEqual([]);

    const paid = await cashOut(h.svc.url, id);
    expect(paid.body.payout).toMatchObject({ amount_usd: 5.74, status: 'paid' });
    expect(transfersTo(account)).toHaveLength(1);
    expect(await payoutRows(id)).toHaveLength(7);
  });
});
