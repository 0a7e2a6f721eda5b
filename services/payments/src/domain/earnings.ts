import { median, type EarningsResponse, type FinancialOverview } from '@htm/contracts';
import type { PaymentsDeps } from '../deps.js';
import { listTesterEarnings, overviewTotals, testerTotals } from '../db/ledger.repository.js';
import { listEarningMismatches, listMismatches } from '../db/mismatch.repository.js';
import { centsToDollars } from './money.js';
import { earningStatus } from './payout-rules.js';
import { cashOutSummary } from './cash-out.js';

/** A tester's earnings; every figure comes from the ledger (integer cents, shown as dollars). */
export async function getTesterEarnings(
  deps: PaymentsDeps,
  testerId: string,
  now = new Date(),
): Promise<EarningsResponse> {
  // One snapshot: an earning booked between two reads would show beside totals that miss it.
  const { totals, rows, cashOut } = await deps.db.transaction(
    async (tx) => ({
      totals: await testerTotals(tx, testerId, now),
      rows: await listTesterEarnings(tx, testerId),
      cashOut: await cashOutSummary(deps, tx, testerId),
    }),
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
  return {
    total_usd: centsToDollars(totals.total_cents),
    pending_usd: centsToDollars(totals.pending_cents),
    last_30_days: centsToDollars(totals.last_30_days_cents),
    completed_jobs: totals.completed_jobs,
    pending_jobs: totals.pending_jobs,
    ...timeOnTask(rows),
    jobs: rows.map((r) => ({
      job_id: r.job_id,
      title: r.title ?? '',
      amount: centsToDollars(r.amount_cents),
      completed_at: new Date(r.occurred_at).toISOString(),
      status: earningStatus(r),
    })),
    cash_out: cashOut,
  };
}

/**
 * The effective hourly rate: what the tester earned on accepted jobs that say how long they took,
 * per hour of those minutes (USD, two decimals), and the median of those minutes.
 */
export function timeOnTask(rows: Array<{ amount_cents: number; minutes_spent: number | null }>): {
  effective_hourly_rate: number | null;
  median_minutes: number | null;
} {
  const timed = rows.filter(
    (r) => r.minutes_spent !== null && r.minutes_spent !== undefined && Number(r.minutes_spent) > 0,
  );
  if (!timed.length) return { effective_hourly_rate: null, median_minutes: null };
  const cents = timed.reduce((sum, r) => sum + Number(r.amount_cents), 0);
  const minutes = timed.map((r) => Number(r.minutes_spent));
  const totalMinutes = minutes.reduce((a, b) => a + b, 0);
  return {
    effective_hourly_rate: Math.round((cents * 60) / totalMinutes) / 100,
    median_minutes: median(minutes),
  };
}

/** The admin's financial overview: sums and counts over the ledger, and the lists, in one snapshot. */
export async function getFinancialOverview(deps: PaymentsDeps): Promise<FinancialOverview> {
  const { t, mismatches, refused } = await deps.db.transaction(
    async (tx) => ({
      t: await overviewTotals(tx),
      mismatches: await listMismatches(tx),
      refused: await listEarningMismatches(tx),
    }),
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
  return {
    total_payments: centsToDollars(t.payments_cents),
    total_payouts: centsToDollars(t.payouts_cents),
    platform_earnings: centsToDollars(t.platform_cents),
    pending_payouts_count: t.pending_payouts_count,
    completed_jobs_count: t.completed_jobs_count,
    total_refunds: centsToDollars(t.refunds_cents),
    pending_refunds_count: t.pending_refunds_count,
    platform_funded_earnings: centsToDollars(t.platform_funded_cents),
    platform_funded_count: t.platform_funded_count,
    amount_mismatches: mismatches.map((m) => ({
      session_id: m.sessionId,
      job_id: m.jobId,
      expected_cents: m.expectedCents,
      expected_currency: m.expectedCurrency,
      received_cents: m.receivedCents,
      received_currency: m.receivedCurrency,
      recorded_at: m.recordedAt.toISOString(),
    })),
    earning_mismatches: refused.map((m) => ({
      job_id: m.jobId,
      tester_id: m.testerId,
      poster_id: m.posterId,
      title: m.title,
      event_id: m.eventId,
      reason: m.reason as 'no_payment',
      recorded_at: m.recordedAt.toISOString(),
    })),
  };
}
