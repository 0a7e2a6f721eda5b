import type { InsightsQuery, InsightsResponse } from '@htm/contracts';
import type { Db } from '@htm/service-kit/db';
import {
  activeTesters,
  approvedTestersByCountry,
  dayRows,
  demandByGeoRule,
  histogram,
  waitingCounts,
} from '../db/insights.repository.js';
import { demandByCountry, eachDay, rate, weekOf } from './facts.js';
import { coarseBins, percentile } from './histogram.js';

/** Waiting jobs are counted as waiting longer than each of these (hours). */
export const WAITING_THRESHOLDS_HOURS = [0, 1, 4, 12, 24, 48] as const;

/**
 * The admin's insights for a range of UTC days (both included): facts per day, the funnel,
 * time to claim and to a first result, and the state now (waiting jobs, testers). Every figure is
 * read from the per-day projection, so the cost grows with the days asked for, not the history.
 */
export async function getInsights(
  db: Db,
  q: InsightsQuery,
  now = new Date(),
): Promise<InsightsResponse> {
  const [rows, claimHist, resultHist, summaryHist, demand, waiting, approved, active] =
    await Promise.all([
      dayRows(db, q.from, q.to),
      histogram(db, 'claim', q.from, q.to),
      histogram(db, 'result', q.from, q.to),
      histogram(db, 'summary', q.from, q.to),
      demandByGeoRule(db, q.from, q.to),
      waitingCounts(db, WAITING_THRESHOLDS_HOURS, now),
      approvedTestersByCountry(db),
      activeTesters(db, new Date(now.getTime() - 7 * 86_400_000)),
    ]);
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const days = eachDay(q.from, q.to).map((date) => {
    const r = byDay.get(date);
    return {
      date,
      posted: r?.posted ?? 0,
      paid: r?.paid ?? 0,
      claimed: r?.claimed ?? 0,
      submitted: r?.submitted ?? 0,
      completed: r ? r.completedPoster + r.completedAdmin + r.completedAuto : 0,
      revenue_cents: r?.revenueCents ?? 0,
      earnings_cents: r?.earningsCents ?? 0,
      payouts_cents: r?.payoutsCents ?? 0,
    };
  });
  const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((s, r) => s + f(r), 0);
  const funnel = {
    posted: sum((r) => r.posted),
    paid: sum((r) => r.paid),
    claimed: sum((r) => r.claimed),
    submitted: sum((r) => r.submitted),
    completed: sum((r) => r.completedPoster + r.completedAdmin + r.completedAuto),
  };
  return {
    days,
    funnel,
    time_to_claim_ms: { p50: percentile(claimHist, 0.5), p90: percentile(claimHist, 0.9) },
    time_to_result_ms: { p50: percentile(resultHist, 0.5), p90: percentile(resultHist, 0.9) },
    time_to_summary_ms: {
      p50: percentile(summaryHist, 0.5),
      p90: percentile(summaryHist, 0.9),
    },
    acceptance_rate: rate(funnel.completed, funnel.submitted),
    revision_rate: rate(
      sum((r) => r.revisions),
      funnel.submitted,
    ),
    waiting_jobs: WAITING_THRESHOLDS_HOURS.map((h, i) => ({
      older_than_hours: h,
      count: waiting[i] ?? 0,
    })),
    testers: { approved_by_country: approved, active_7d: active },
    demand_by_country: demandByCountry(demand),
    time_to_result_histogram: coarseBins(resultHist),
    totals: {
      revenue_cents: sum((r) => r.revenueCents),
      earnings_cents: sum((r) => r.earningsCents),
      platform_fee_cents: sum((r) => r.platformFeeCents),
      payouts_cents: sum((r) => r.payoutsCents),
      refunds_cents: sum((r) => r.refundsCents),
    },
    packs: {
      ordered: sum((r) => r.packs),
      testers: sum((r) => r.packTesters),
      slots_refunded: sum((r) => r.packSlotsRefunded),
    },
    session_checks: sessionChecks(rows, q),
  };
}

/** The session checks of the range, and the replacement rate of each week in it. */
function sessionChecks(
  rows: Awaited<ReturnType<typeof dayRows>>,
  q: InsightsQuery,
): InsightsResponse['session_checks'] {
  const weeks = new Map<string, { checked: number; replaced: number }>(
    eachDay(q.from, q.to).map((d) => [weekOf(d), { checked: 0, replaced: 0 }]),
  );
  for (const r of rows) {
    const w = weeks.get(weekOf(r.day));
    if (!w) continue;
    w.checked += r.sessionsChecked;
    w.replaced += r.replacements;
  }
  const total = (f: (r: (typeof rows)[number]) => number) => rows.reduce((s, r) => s + f(r), 0);
  const checked = total((r) => r.sessionsChecked);
  const replaced = total((r) => r.replacements);
  return {
    checked,
    borderline: total((r) => r.sessionsBorderline),
    failed: total((r) => r.sessionsFailed),
    replaced,
    replacement_rate: rate(replaced, checked),
    weeks: [...weeks].map(([week_start, w]) => ({
      week_start,
      checked: w.checked,
      replaced: w.replaced,
      replacement_rate: rate(w.replaced, w.checked),
    })),
  };
}
