import { and, eq, inArray, sql } from 'drizzle-orm';
import { rowsOf, type Db, type Tx } from '@htm/service-kit/db';
import { ledgerEntries } from './schema.js';

type Exec = Db | Tx;
export type LedgerEntry = typeof ledgerEntries.$inferSelect;
export type NewLedgerEntry = typeof ledgerEntries.$inferInsert;

/** Appends an entry unless one of that kind exists for the job; returns it when inserted. */
export async function appendOnce(
  tx: Exec,
  entry: NewLedgerEntry,
): Promise<LedgerEntry | undefined> {
  const [row] = await tx.insert(ledgerEntries).values(entry).onConflictDoNothing().returning();
  return row;
}

/** The job's payment entry (one per job), with the session that paid it. */
export async function findJobPayment(
  db: Exec,
  jobId: string,
): Promise<{ id: string; sessionId: string | null } | undefined> {
  const [row] = await db
    .select({ id: ledgerEntries.id, sessionId: ledgerEntries.sessionId })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.kind, 'payment'), eq(ledgerEntries.jobId, jobId)));
  return row;
}

/** The job's whole payment entry (one per job), or undefined. */
export async function findJobPaymentEntry(
  db: Exec,
  jobId: string,
): Promise<LedgerEntry | undefined> {
  const [row] = await db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.kind, 'payment'), eq(ledgerEntries.jobId, jobId)));
  return row;
}

/** A session's duplicate_payment entry (money to give back) and its refund entry, those that exist. */
export async function listDuplicateAndRefund(db: Exec, sessionId: string): Promise<LedgerEntry[]> {
  return db
    .select()
    .from(ledgerEntries)
    .where(
      and(
        inArray(ledgerEntries.kind, ['duplicate_payment', 'refund']),
        eq(ledgerEntries.sessionId, sessionId),
      ),
    );
}

export interface TesterEarningRow {
  id: string;
  job_id: string;
  title: string | null;
  amount_cents: number;
  accepted_by: string | null;
  minutes_spent: number | null;
  occurred_at: Date | string;
  payout_id: string | null;
}

/** A tester's earnings, each with its payout entry (if any), newest first. */
export async function listTesterEarnings(db: Exec, testerId: string): Promise<TesterEarningRow[]> {
  const r = await db.execute(sql`
    SELECT e.id, e.job_id, e.title, e.amount_cents, e.accepted_by, e.minutes_spent, e.occurred_at, p.id AS payout_id
    FROM payments.ledger_entries e
    LEFT JOIN payments.ledger_entries p ON p.kind = 'payout' AND p.earning_id = e.id
    WHERE e.kind = 'tester_earning' AND e.tester_id = ${testerId}
    ORDER BY e.occurred_at DESC, e.id`);
  return rowsOf<TesterEarningRow>(r);
}

export interface TesterTotals {
  total_cents: number;
  pending_cents: number;
  last_30_days_cents: number;
  completed_jobs: number;
  pending_jobs: number;
}

/** A tester's figures, each a SQL sum/count over the ledger. */
export async function testerTotals(db: Exec, testerId: string, now: Date): Promise<TesterTotals> {
  const since = new Date(now.getTime() - 30 * 24 * 3600_000).toISOString();
  const r = await db.execute(sql`
    SELECT
      COALESCE(SUM(e.amount_cents), 0)::bigint AS total_cents,
      COALESCE(SUM(e.amount_cents) FILTER (WHERE p.id IS NULL), 0)::bigint AS pending_cents,
      COALESCE(SUM(e.amount_cents) FILTER (WHERE e.occurred_at >= ${since}::timestamptz), 0)::bigint AS last_30_days_cents,
      COUNT(*)::int AS completed_jobs,
      (COUNT(*) FILTER (WHERE p.id IS NULL))::int AS pending_jobs
    FROM payments.ledger_entries e
    LEFT JOIN payments.ledger_entries p ON p.kind = 'payout' AND p.earning_id = e.id
    WHERE e.kind = 'tester_earning' AND e.tester_id = ${testerId}`);
  const row = rowsOf<Record<string, string | number>>(r)[0];
  return {
    total_cents: Number(row.total_cents),
    pending_cents: Number(row.pending_cents),
    last_30_days_cents: Number(row.last_30_days_cents),
    completed_jobs: Number(row.completed_jobs),
    pending_jobs: Number(row.pending_jobs),
  };
}

export interface OverviewTotals {
  payments_cents: number;
  payouts_cents: number;
  platform_cents: number;
  pending_payouts_count: number;
  completed_jobs_count: number;
  refunds_cents: number;
  pending_refunds_count: number;
  /** Tester earnings the platform paid (source set: an upheld appeal of a replaced session). */
  platform_funded_cents: number;
  platform_funded_count: number;
}

/** The financial overview, every figure a SQL sum/count over the ledger. */
export async function overviewTotals(db: Exec): Promise<OverviewTotals> {
  const r = await db.execute(sql`
    SELECT
      COALESCE(SUM(amount_cents) FILTER (WHERE kind = 'payment'), 0)::bigint AS payments_cents,
      COALESCE(-SUM(amount_cents) FILTER (WHERE kind = 'payout'), 0)::bigint AS payouts_cents,
      COALESCE(SUM(amount_cents) FILTER (WHERE kind = 'platform_fee'), 0)::bigint AS platform_cents,
      (COUNT(*) FILTER (WHERE kind = 'tester_earning'
         AND NOT EXISTS (SELECT 1 FROM payments.ledger_entries p WHERE p.kind = 'payout' AND p.earning_id = l.id)))::int AS pending_payouts_count,
      (COUNT(*) FILTER (WHERE kind = 'tester_earning' AND source IS NULL))::int AS completed_jobs_count,
      COALESCE(SUM(amount_cents) FILTER (WHERE kind = 'tester_earning' AND source IS NOT NULL), 0)::bigint AS platform_funded_cents,
      (COUNT(*) FILTER (WHERE kind = 'tester_earning' AND source IS NOT NULL))::int AS platform_funded_count,
      COALESCE(-SUM(amount_cents) FILTER (WHERE kind = 'refund'), 0)::bigint AS refunds_cents,
      (COUNT(*) FILTER (WHERE kind = 'duplicate_payment'
         AND NOT EXISTS (SELECT 1 FROM payments.ledger_entries r WHERE r.kind = 'refund' AND r.session_id = l.session_id)))::int AS pending_refunds_count
    FROM payments.ledger_entries l`);
  const row = rowsOf<Record<string, string | number>>(r)[0];
  return {
    payments_cents: Number(row.payments_cents),
    payouts_cents: Number(row.payouts_cents),
    platform_cents: Number(row.platform_cents),
    pending_payouts_count: Number(row.pending_payouts_count),
    completed_jobs_count: Number(row.completed_jobs_count),
    refunds_cents: Number(row.refunds_cents),
    pending_refunds_count: Number(row.pending_refunds_count),
    platform_funded_cents: Number(row.platform_funded_cents),
    platform_funded_count: Number(row.platform_funded_count),
  };
}

export interface PendingEarning {
  id: string;
  job_id: string;
  tester_id: string;
  amount_cents: number;
  account_id: string | null;
  account_status: string | null;
}

/** Earnings without a payout entry and not taken by a cash-out, with the tester's payout account (if any). */
export async function listPendingEarnings(db: Exec): Promise<PendingEarning[]> {
  const r = await db.execute(sql`
    SELECT e.id, e.job_id, e.tester_id, e.amount_cents, a.account_id, a.status AS account_status
    FROM payments.ledger_entries e
    LEFT JOIN payments.payout_accounts a ON a.tester_id = e.tester_id
    WHERE e.kind = 'tester_earning'
      AND NOT EXISTS (SELECT 1 FROM payments.ledger_entries p WHERE p.kind = 'payout' AND p.earning_id = e.id)
      AND NOT EXISTS (SELECT 1 FROM payments.cash_out_items i WHERE i.earning_id = e.id)
    ORDER BY e.occurred_at, e.id`);
  return rowsOf<PendingEarning>(r).map((x) => ({ ...x, amount_cents: Number(x.amount_cents) }));
}
