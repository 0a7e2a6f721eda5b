import type { EarningsResponse, FinancialOverview } from '@htm/contracts';
import type { PaymentsDeps } from '../app.js';
import { listTesterEarnings, overviewTotals, testerTotals } from '../db/ledger.repository.js';
import { centsToDollars } from './money.js';

/** A tester's earnings; every figure comes from the ledger (integer cents, shown as dollars). */
export async function getTesterEarnings(deps: PaymentsDeps, testerId: string, now = new Date()): Promise<EarningsResponse> {
  const [totals, rows] = await Promise.all([testerTotals(deps.db, testerId, now), listTesterEarnings(deps.db, testerId)]);
  return {
    total_usd: centsToDollars(totals.total_cents),
    pending_usd: centsToDollars(totals.pending_cents),
    last_30_days: centsToDollars(totals.last_30_days_cents),
    completed_jobs: totals.completed_jobs,
    pending_jobs: totals.pending_jobs,
    jobs: rows.map((r) => ({
      job_id: r.job_id,
      title: r.title ?? '',
      amount: centsToDollars(r.amount_cents),
      completed_at: new Date(r.occurred_at).toISOString(),
      status: r.payout_id ? 'paid' : r.accepted_by === 'auto' ? 'auto_accepted' : 'accepted',
    })),
  };
}

/** The admin's financial overview: sums and counts over the ledger. */
export async function getFinancialOverview(deps: PaymentsDeps): Promise<FinancialOverview> {
  const t = await overviewTotals(deps.db);
  return {
    total_payments: centsToDollars(t.payments_cents),
    total_payouts: centsToDollars(t.payouts_cents),
    platform_earnings: centsToDollars(t.platform_cents),
    pending_payouts_count: t.pending_payouts_count,
    completed_jobs_count: t.completed_jobs_count,
    total_refunds: centsToDollars(t.refunds_cents),
    pending_refunds_count: t.pending_refunds_count,
  };
}
