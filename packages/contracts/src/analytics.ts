import { z } from 'zod';

/** The longest range GET /api/admin/insights answers (days, both ends included). */
export const INSIGHTS_MAX_DAYS = 366;

export const INSIGHTS_MESSAGES = {
  badDate: 'Use a date like 2026-01-31 (YYYY-MM-DD)',
  toBeforeFrom: 'Must not be before from',
  tooLong: `The range can be at most ${INSIGHTS_MAX_DAYS} days`,
};

/** A real calendar day written YYYY-MM-DD (2026-02-30 is refused). */
export const isoDaySchema = z
  .string({ error: INSIGHTS_MESSAGES.badDate })
  .regex(/^\d{4}-\d{2}-\d{2}$/, INSIGHTS_MESSAGES.badDate)
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
  }, INSIGHTS_MESSAGES.badDate);

const dayMs = 86_400_000;
/** Days from `from` to `to`, both included. */
export function daysInRange(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / dayMs) + 1;
}

/** GET /api/admin/insights?from=YYYY-MM-DD&to=YYYY-MM-DD (UTC days, both included; at most 366). */
export const insightsQuerySchema = z
  .object({ from: isoDaySchema, to: isoDaySchema })
  .superRefine((q, ctx) => {
    const n = daysInRange(q.from, q.to);
    if (n < 1)
      ctx.addIssue({ code: 'custom', path: ['to'], message: INSIGHTS_MESSAGES.toBeforeFrom });
    else if (n > INSIGHTS_MAX_DAYS)
      ctx.addIssue({ code: 'custom', path: ['to'], message: INSIGHTS_MESSAGES.tooLong });
  });
export type InsightsQuery = z.infer<typeof insightsQuerySchema>;

const count = z.number().int().min(0);
const cents = z.number().int();
const percentiles = z.object({
  p50: z.number().int().nullable(),
  p90: z.number().int().nullable(),
});

export const insightsDaySchema = z.object({
  date: z.string(),
  posted: count,
  paid: count,
  claimed: count,
  submitted: count,
  completed: count,
  /** Money paid in by posters that day (the financial overview's total_payments, in cents). */
  revenue_cents: cents,
  /** Testers' earnings booked that day. */
  earnings_cents: cents,
  /** Paid out to testers that day. */
  payouts_cents: cents,
});
export type InsightsDay = z.infer<typeof insightsDaySchema>;

/** The answer of GET /api/admin/insights (issue "Analytics consumes the event stream"). */
export const insightsResponseSchema = z.object({
  days: z.array(insightsDaySchema),
  funnel: z.object({
    posted: count,
    paid: count,
    claimed: count,
    submitted: count,
    completed: count,
  }),
  /** Paid -> first claim, of the jobs first claimed in the range (milliseconds). */
  time_to_claim_ms: percentiles,
  /** Paid -> first result (first submission), of the jobs first submitted in the range. */
  time_to_result_ms: percentiles,
  /**
   * A report's last submission -> its summary ready (ReportSummarized, the first summary of a job's
   * or a pack's reports as they were), of the summaries made in the range.
   */
  time_to_summary_ms: percentiles,
  /** Completed / submitted (first submissions) in the range; null when nothing was submitted. */
  acceptance_rate: z.number().nullable(),
  /** Revisions requested / submitted in the range; null when nothing was submitted. */
  revision_rate: z.number().nullable(),
  /** Paid jobs waiting for a tester now, counted by how long they have waited: more than N hours. */
  waiting_jobs: z.array(z.object({ older_than_hours: count, count })),
  testers: z.object({
    /** Approved testers now, per country (`unknown` when the tester chose none). */
    approved_by_country: z.record(z.string(), count),
    /** Testers who claimed or submitted in the last 7 days. */
    active_7d: count,
  }),
  /**
   * Beyond the issue's shape, for the charts: paid jobs posted in the range each country's testers
   * may take (by geo rule), and the time-to-first-result histogram (jobs per bucket, up to `upto_ms`;
   * the last bucket's `upto_ms` is null: longer).
   */
  demand_by_country: z.record(z.string(), count),
  time_to_result_histogram: z.array(z.object({ upto_ms: z.number().int().nullable(), count })),
  /** Money in the range beyond the day rows: the platform's fee and refunds given back. */
  totals: z.object({
    revenue_cents: cents,
    earnings_cents: cents,
    platform_fee_cents: cents,
    payouts_cents: cents,
    refunds_cents: cents,
  }),
  /** Packs ("Five testers for $5") in the range: ordered, testers ordered in them, unfilled slots refunded. */
  packs: z.object({ ordered: count, testers: count, slots_refunded: count }),
  /**
   * Session checks ("Every session checked") in the range: sessions checked, borderline, failed,
   * and the free replacements (a failed check's, or the owner's of a borderline one), with the
   * replacement rate (replaced / checked; null before any check) per week (weeks start on Monday,
   * UTC; the first and last may be cut by the range).
   */
  session_checks: z.object({
    checked: count,
    borderline: count,
    failed: count,
    replaced: count,
    replacement_rate: z.number().nullable(),
    weeks: z.array(
      z.object({
        week_start: z.string(),
        checked: count,
        replaced: count,
        replacement_rate: z.number().nullable(),
      }),
    ),
  }),
});
export type InsightsResponse = z.infer<typeof insightsResponseSchema>;

/**
 * The landing page's live proof is shown only from this many delivered tests (and as many
 * measured first results) on: fewer would not be an honest median.
 */
export const PROOF_MIN_TESTS = 10;

/**
 * GET /api/public/proof: `proof` is null while there is too little data to be honest, else the
 * tests delivered (accepted, by the poster, the admin or automatically) and the median time from
 * payment to the first result, in hours (one decimal).
 */
export const publicProofResponseSchema = z.object({
  proof: z
    .object({
      tests_delivered: z.number().int().nonnegative(),
      median_hours_to_first_result: z.number().nonnegative(),
    })
    .nullable(),
});
export type PublicProofResponse = z.infer<typeof publicProofResponseSchema>;
