import { z } from 'zod';
import { PACK_SIZE } from './marketplace.js';

/** POST /internal/checkout-sessions (jobs -> payments): a $1 checkout for one job. */
export const createCheckoutSessionBodySchema = z.object({
  job_id: z
    .string({ error: 'job_id is required' })
    .trim()
    .min(1, { error: 'job_id is required' })
    .max(100, { error: 'job_id must be 100 characters or less' }),
  poster_id: z
    .string({ error: 'poster_id is required' })
    .trim()
    .min(1, { error: 'poster_id is required' })
    .max(100, { error: 'poster_id must be 100 characters or less' }),
  title: z
    .string({ error: 'title is required' })
    .trim()
    .min(1, { error: 'title is required' })
    .max(500, { error: 'title must be 500 characters or less' }),
  attempt: z
    .number({ error: 'attempt must be a whole number' })
    .int({ error: 'attempt must be a whole number' })
    .min(0, { error: 'attempt must be 0 or more' })
    .max(1_000_000),
  /**
   * A pack (several testers in one checkout): every job of it, job_id (the session's job) first.
   * The session charges one PRICE_PER_TEST_CENTS unit per job (quantity = job_ids.length) and its
   * payment pays each. Absent: one job.
   */
  job_ids: z
    .array(z.string().trim().min(1).max(100))
    .min(1)
    .max(PACK_SIZE.max, { error: `a pack has at most ${PACK_SIZE.max} jobs` })
    .optional(),
});
export type CreateCheckoutSessionBody = z.infer<typeof createCheckoutSessionBodySchema>;

export const createCheckoutSessionResponseSchema = z.object({
  checkout_url: z.string(),
  session_id: z.string(),
});
export type CreateCheckoutSessionResponse = z.infer<typeof createCheckoutSessionResponseSchema>;

/** A checkout session id in a URL: Stripe's `cs_...` or the local provider's `cs_local_...`. */
export const checkoutSessionIdSchema = z
  .string()
  .regex(/^cs_[A-Za-z0-9_]{1,250}$/, { error: 'Unknown checkout session.' });

/**
 * GET /api/payments/checkout/status/:session_id. `refunded` / `refund_pending`: this session was
 * paid after the job had already been paid through another session, so its payment is given back.
 */
export const checkoutStatusResponseSchema = z.object({
  payment_status: z.enum(['paid', 'unpaid', 'expired', 'refunded', 'refund_pending']),
  job_id: z.string(),
});
export type CheckoutStatusResponse = z.infer<typeof checkoutStatusResponseSchema>;

/** What the poster's payment page says for a duplicate payment (the web app shows the same words). */
export const DUPLICATE_PAYMENT_MESSAGES = {
  refunded: 'This job was already paid. This second payment has been refunded.',
  refundPending: 'This job was already paid. This second payment will be refunded automatically.',
} as const;

/** Earnings row status: accepted by the poster/admin, auto-accepted, or already paid out. */
export const earningStatusSchema = z.enum(['accepted', 'auto_accepted', 'paid']);

/** GET /api/tester/my-earnings (dollars as numbers, computed from integer cents). */
export const earningsResponseSchema = z.object({
  total_usd: z.number(),
  pending_usd: z.number(),
  last_30_days: z.number(),
  completed_jobs: z.number().int(),
  pending_jobs: z.number().int(),
  /** USD per hour over accepted jobs with minutes_spent (two decimals), null without any. */
  effective_hourly_rate: z.number().nullable(),
  /** Median minutes_spent over those jobs, null without any. */
  median_minutes: z.number().nullable(),
  jobs: z.array(
    z.object({
      job_id: z.string(),
      title: z.string(),
      amount: z.number(),
      completed_at: z.string(),
      status: earningStatusSchema,
    }),
  ),
  /** What POST /api/tester/cash-out would pay now, the minimum in force, and a cash-out still being sent. */
  cash_out: z
    .object({
      min_usd: z.number(),
      available_usd: z.number(),
      in_progress: z.object({ id: z.string(), amount_usd: z.number() }).nullable(),
    })
    .optional(),
});
export type EarningsResponse = z.infer<typeof earningsResponseSchema>;

/**
 * GET /api/admin/financial-overview (dollars and counts). `total_payments` counts each job's $1
 * once; duplicate payments are refunded: `total_refunds` is what was given back,
 * `pending_refunds_count` the duplicates not refunded yet.
 */
export const financialOverviewSchema = z.object({
  total_payments: z.number(),
  total_payouts: z.number(),
  platform_earnings: z.number(),
  pending_payouts_count: z.number().int(),
  completed_jobs_count: z.number().int(),
  total_refunds: z.number(),
  pending_refunds_count: z.number().int(),
  /**
   * What the platform paid testers itself (not from an owner's payment): a failed session
   * released by an upheld appeal after its job went to another tester (PLATFORM_FUNDED_EARNING).
   * `platform_earnings` less this is what the platform kept.
   */
  platform_funded_earnings: z.number(),
  platform_funded_count: z.number().int(),
  /**
   * Paid checkouts whose amount or currency was not what the session asked for: not booked
   * (the job stays unpaid), listed here for the admin to look into. Newest first, at most 50.
   */
  amount_mismatches: z
    .array(
      z.object({
        session_id: z.string(),
        job_id: z.string(),
        expected_cents: z.number().int(),
        expected_currency: z.string(),
        received_cents: z.number().int().nullable(),
        received_currency: z.string().nullable(),
        recorded_at: z.string(),
      }),
    )
    .optional(),
  /**
   * Acceptances the ledger refused to pay: the job has no booked payment (a forged or misrouted
   * event). Nobody was paid; newest first, at most 50.
   */
  earning_mismatches: z
    .array(
      z.object({
        job_id: z.string(),
        tester_id: z.string(),
        poster_id: z.string(),
        title: z.string().nullable(),
        event_id: z.string(),
        reason: z.enum(['no_payment']),
        recorded_at: z.string(),
      }),
    )
    .optional(),
});
export type FinancialOverview = z.infer<typeof financialOverviewSchema>;

/** GET/POST /api/tester/payout-account */
export const payoutAccountResponseSchema = z.object({
  connected: z.boolean(),
  account_id: z.string().nullable(),
  onboarding_url: z.string().nullable(),
});
export type PayoutAccountResponse = z.infer<typeof payoutAccountResponseSchema>;

/** A cash-out's state: being sent (claimed, transfer not booked yet), paid, or refused by the provider. */
export const cashOutStatusSchema = z.enum(['processing', 'paid', 'failed']);

/** POST /api/tester/cash-out → 202 */
export const cashOutResponseSchema = z.object({
  payout: z.object({ id: z.string(), amount_usd: z.number(), status: cashOutStatusSchema }),
});
export type CashOutResponse = z.infer<typeof cashOutResponseSchema>;

/** POST /api/admin/payouts/run */
export const payoutRunResponseSchema = z.object({
  paid: z.array(
    z.object({
      tester_id: z.string(),
      amount: z.number(),
      payout_id: z.string(),
      job_id: z.string(),
      transfer_id: z.string(),
    }),
  ),
  failed: z.array(
    z.object({ tester_id: z.string(), amount: z.number(), error: z.string(), job_id: z.string() }),
  ),
  skipped_unconnected: z.number().int(),
});
export type PayoutRunResponse = z.infer<typeof payoutRunResponseSchema>;

/** POST /api/payments/webhook: received, and whether it changed anything (a duplicate or an unknown type does not). */
export const providerWebhookResponseSchema = z.object({
  received: z.literal(true),
  outcome: z.enum(['applied', 'duplicate', 'ignored']),
});
