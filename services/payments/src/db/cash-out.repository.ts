import { and, eq, sql } from 'drizzle-orm';
import { rowsOf, type Db, type Tx } from '@htm/service-kit/db';
import { cashOutItems, cashOuts, payoutAccounts } from './schema.js';

type Exec = Db | Tx;
export type CashOutRow = typeof cashOuts.$inferSelect;
export type CashOutItemRow = typeof cashOutItems.$inferSelect;

/**
 * Locks the tester's payout account row until the transaction ends. A cash-out claiming earnings
 * and the admin's payout run starting an earning's transfer both take it first, so the two never
 * pick the same earning.
 */
export async function lockPayoutAccount(tx: Tx, testerId: string): Promise<boolean> {
  const rows = await tx
    .select({ t: payoutAccounts.testerId })
    .from(payoutAccounts)
    .where(eq(payoutAccounts.testerId, testerId))
    .for('update');
  return rows.length > 0;
}

export interface CashableEarning {
  id: string;
  job_id: string;
  amount_cents: number;
}

/**
 * The tester's earnings a cash-out may take now: no payout entry, not in another cash-out, and no
 * unfinished transfer attempt of the admin's payout run (whose outcome may be unknown: that run
 * settles it with its own idempotency key).
 */
export async function listCashableEarnings(db: Exec, testerId: string): Promise<CashableEarning[]> {
  const r = await db.execute(sql`
    SELECT e.id, e.job_id, e.amount_cents
    FROM payments.ledger_entries e
    WHERE e.kind = 'tester_earning' AND e.tester_id = ${testerId}
      AND NOT EXISTS (SELECT 1 FROM payments.ledger_entries p WHERE p.kind = 'payout' AND p.earning_id = e.id)
      AND NOT EXISTS (SELECT 1 FROM payments.cash_out_items i WHERE i.earning_id = e.id)
      AND NOT EXISTS (SELECT 1 FROM payments.payout_attempts a WHERE a.earning_id = e.id AND a.status <> 'succeeded')
    ORDER BY e.occurred_at, e.id`);
  return rowsOf<CashableEarning>(r).map((x) => ({ ...x, amount_cents: Number(x.amount_cents) }));
}

/** Whether an earning is taken by a cash-out (the payout run leaves it alone). */
export async function earningInCashOut(db: Exec, earningId: string): Promise<boolean> {
  const rows = await db
    .select({ id: cashOutItems.earningId })
    .from(cashOutItems)
    .where(eq(cashOutItems.earningId, earningId));
  return rows.length > 0;
}

export async function findProcessingCashOut(
  db: Exec,
  testerId: string,
): Promise<CashOutRow | undefined> {
  const [row] = await db
    .select()
    .from(cashOuts)
    .where(and(eq(cashOuts.testerId, testerId), eq(cashOuts.status, 'processing')));
  return row;
}

export async function findCashOut(db: Exec, id: string): Promise<CashOutRow | undefined> {
  const [row] = await db.select().from(cashOuts).where(eq(cashOuts.id, id));
  return row;
}

/** Every cash-out not settled yet (a crash or an unknown provider answer left it processing). */
export async function listProcessingCashOuts(db: Exec): Promise<CashOutRow[]> {
  return db
    .select()
    .from(cashOuts)
    .where(eq(cashOuts.status, 'processing'))
    .orderBy(cashOuts.createdAt);
}

/**
 * Stores the cash-out and claims its earnings; undefined when the tester already has one
 * processing (the partial unique index decides between two simultaneous requests).
 */
export async function insertCashOut(
  tx: Tx,
  values: {
    id: string;
    testerId: string;
    accountId: string;
    amountCents: number;
    idempotencyKey: string;
  },
  earnings: CashableEarning[],
): Promise<CashOutRow | undefined> {
  const [row] = await tx
    .insert(cashOuts)
    .values(values)
    .onConflictDoNothing({ target: cashOuts.testerId, where: sql`status = 'processing'` })
    .returning();
  if (!row) return undefined;
  await tx.insert(cashOutItems).values(
    earnings.map((e) => ({
      earningId: e.id,
      cashOutId: row.id,
      jobId: e.job_id,
      amountCents: e.amount_cents,
    })),
  );
  return row;
}

export async function listCashOutItems(db: Exec, cashOutId: string): Promise<CashOutItemRow[]> {
  return db
    .select()
    .from(cashOutItems)
    .where(eq(cashOutItems.cashOutId, cashOutId))
    .orderBy(cashOutItems.jobId);
}

/** A transfer is about to be asked for (tries + 1); answers the row as it is now. */
export async function startCashOutTry(db: Exec, id: string): Promise<CashOutRow | undefined> {
  const [row] = await db
    .update(cashOuts)
    .set({ tries: sql`${cashOuts.tries} + 1`, updatedAt: new Date() })
    .where(and(eq(cashOuts.id, id), eq(cashOuts.status, 'processing')))
    .returning();
  return row;
}

/** The provider's outcome is unknown: the cash-out stays processing with the error, to retry with the same key. */
export async function noteCashOutError(db: Exec, id: string, lastError: string): Promise<void> {
  await db.update(cashOuts).set({ lastError, updatedAt: new Date() }).where(eq(cashOuts.id, id));
}

/** The transfer is booked (in the transaction that writes the payout entries); false if it was already settled. */
export async function markCashOutPaid(
  tx: Exec,
  id: string,
  transferId: string,
  at: Date,
): Promise<boolean> {
  const rows = await tx
    .update(cashOuts)
    .set({ status: 'paid', transferId, lastError: null, paidAt: at, updatedAt: at })
    .where(and(eq(cashOuts.id, id), eq(cashOuts.status, 'processing')))
    .returning({ id: cashOuts.id });
  return rows.length > 0;
}

/** The provider refused for certain: the cash-out failed and its earnings are free again. */
export async function failCashOut(tx: Tx, id: string, lastError: string): Promise<void> {
  await tx
    .update(cashOuts)
    .set({ status: 'failed', lastError, updatedAt: new Date() })
    .where(and(eq(cashOuts.id, id), eq(cashOuts.status, 'processing')));
  await tx.delete(cashOutItems).where(eq(cashOutItems.cashOutId, id));
}
