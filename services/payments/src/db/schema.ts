import { sql } from 'drizzle-orm';
import {
  check,
  index,
  integer,
  jsonb,
  pgSchema,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { handledEventsTable, outboxTable } from '@htm/events/outbox';

export const paymentsSchema = pgSchema('payments');
export const outbox = outboxTable(paymentsSchema);
export const handledEvents = handledEventsTable(paymentsSchema);

/**
 * Checkout sessions this service created. At most one OPEN session per job (partial unique
 * index): a second checkout request answers the open one, and of two simultaneous requests the
 * loser's freshly created session is stored closed and expired at the provider.
 */
export const checkoutSessions = paymentsSchema.table(
  'checkout_sessions',
  {
    id: text('id').primaryKey(),
    provider: text('provider').notNull(),
    jobId: text('job_id').notNull(),
    posterId: text('poster_id').notNull(),
    title: text('title').notNull(),
    attempt: integer('attempt').notNull(),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull(),
    checkoutUrl: text('checkout_url').notNull(),
    /** A pack's session: every job it pays (job_id first), one unit each; null for one job. */
    jobIds: jsonb('job_ids').$type<string[]>(),
    /** open | paid | expired | cancelled */
    status: text('status').notNull().default('open'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    closedAt: timestamp('closed_at', { withTimezone: true }),
  },
  (t) => [
    index('checkout_sessions_job_idx').on(t.jobId),
    uniqueIndex('checkout_sessions_one_open_per_job')
      .on(t.jobId)
      .where(sql`status = 'open'`),
    check(
      'checkout_sessions_status_check',
      sql`${t.status} IN ('open', 'paid', 'expired', 'cancelled')`,
    ),
  ],
);

/**
 * A paid checkout whose amount or currency differs from the session we created (a forged or
 * tampered webhook, or a provider-side change): nothing is booked, the admin sees it here.
 */
export const paymentMismatches = paymentsSchema.table(
  'payment_mismatches',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sessionId: text('session_id').notNull(),
    jobId: text('job_id').notNull(),
    expectedCents: integer('expected_cents').notNull(),
    expectedCurrency: text('expected_currency').notNull(),
    receivedCents: integer('received_cents'),
    receivedCurrency: text('received_currency'),
    recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('payment_mismatches_once').on(t.sessionId, t.receivedCents, t.receivedCurrency),
  ],
);

/**
 * An earning the ledger refused: a SubmissionAccepted for a job with no booked payment (a forged
 * or misrouted event, or a payment lost). Nobody is paid; the admin sees it in the financial
 * overview's `earning_mismatches`. One row per job.
 */
export const earningMismatches = paymentsSchema.table('earning_mismatches', {
  jobId: text('job_id').primaryKey(),
  testerId: text('tester_id').notNull(),
  posterId: text('poster_id').notNull(),
  title: text('title'),
  eventId: text('event_id').notNull(),
  reason: text('reason').notNull(),
  recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Provider (Stripe or local) webhook event ids already handled: each is applied once. */
export const providerEvents = paymentsSchema.table('provider_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  objectId: text('object_id'),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The money ledger: immutable entries in integer cents. payment +100 (poster), tester_earning
 * +82 (pending until a payout entry points at it), platform_fee +18, payout -82,
 * duplicate_payment +100 (a second paid session for an already paid job) and refund -100 (that
 * duplicate given back, a cleared job's or a pack's unfilled slot's payment given back; pending
 * until it exists). The unique (kind, job_id) of payment, platform_fee and the job's own
 * tester_earning makes "once per job" structural; a tester_earning the platform funds (`source`,
 * an upheld appeal of a failed session whose job another tester completes) is once per tester; duplicates and refunds are once per session and job. Nothing
 * ever UPDATEs or DELETEs a row.
 */
export const ledgerEntries = paymentsSchema.table(
  'ledger_entries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind').notNull(),
    jobId: text('job_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull().default('usd'),
    testerId: text('tester_id'),
    posterId: text('poster_id'),
    title: text('title'),
    /**
     * tester_earning: who pays it when not the job's own $1 (null): the platform
     * ('platform: upheld session appeal', PLATFORM_FUNDED_EARNING in the rules module).
     */
    source: text('source'),
    /** payment: the checkout session; earning: how it was accepted (poster | admin | auto). */
    sessionId: text('session_id'),
    acceptedBy: text('accepted_by'),
    /** tester_earning: minutes the tester said the accepted work took (SubmissionAccepted), or null. */
    minutesSpent: integer('minutes_spent'),
    /** payout: the earning it pays and the provider transfer. */
    earningId: uuid('earning_id'),
    transferId: text('transfer_id'),
    /** refund: the provider's refund id. */
    refundId: text('refund_id'),
    /** payout: the tester's cash-out it was part of (null for the admin's payout run). */
    cashOutId: uuid('cash_out_id'),
    /** When the fact happened (payment time, acceptance time, transfer time). */
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // Once per job: the job's payment, its fee and the earning its $1 pays (a payout is once per
    // earning: ledger_payout_earning_unique). An earning the platform funds is once per tester.
    uniqueIndex('ledger_kind_job_unique')
      .on(t.kind, t.jobId)
      .where(
        sql`kind IN ('payment', 'platform_fee') OR (kind = 'tester_earning' AND source IS NULL)`,
      ),
    uniqueIndex('ledger_platform_earning_unique')
      .on(t.jobId, t.testerId)
      .where(sql`kind = 'tester_earning' AND source IS NOT NULL`),
    // Once per session and job: a pack's session pays several jobs, each refundable on its own.
    uniqueIndex('ledger_kind_session_job_unique')
      .on(t.kind, t.sessionId, t.jobId)
      .where(sql`kind IN ('duplicate_payment', 'refund')`),
    unique('ledger_payout_earning_unique').on(t.earningId),
    index('ledger_tester_idx').on(t.testerId),
    check(
      'ledger_kind_check',
      sql`${t.kind} IN ('payment', 'tester_earning', 'platform_fee', 'payout', 'duplicate_payment', 'refund')`,
    ),
    check(
      'ledger_sign_check',
      sql`(${t.kind} = 'payout' AND ${t.amountCents} < 0 AND ${t.earningId} IS NOT NULL) OR (${t.kind} = 'refund' AND ${t.amountCents} < 0 AND ${t.sessionId} IS NOT NULL AND ${t.refundId} IS NOT NULL) OR (${t.kind} NOT IN ('payout', 'refund') AND ${t.amountCents} > 0)`,
    ),
    check(
      'ledger_session_check',
      sql`${t.kind} NOT IN ('duplicate_payment', 'refund') OR ${t.sessionId} IS NOT NULL`,
    ),
    check(
      'ledger_source_check',
      sql`${t.source} IS NULL OR (${t.kind} = 'tester_earning' AND ${t.source} LIKE 'platform:%')`,
    ),
    check(
      'ledger_tester_check',
      sql`${t.kind} NOT IN ('tester_earning', 'payout') OR ${t.testerId} IS NOT NULL`,
    ),
  ],
);

/** A tester's connected (payout) account at the provider. */
export const payoutAccounts = paymentsSchema.table('payout_accounts', {
  testerId: text('tester_id').primaryKey(),
  provider: text('provider').notNull(),
  accountId: text('account_id').notNull().unique(),
  /** pending (onboarding not finished) | ready (transfers possible) */
  status: text('status').notNull().default('pending'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One row per earning being paid out, written BEFORE the provider is called, with the
 * idempotency key every retry reuses (so a crash midway and a re-run get the same transfer).
 */
export const payoutAttempts = paymentsSchema.table('payout_attempts', {
  id: uuid('id').primaryKey().defaultRandom(),
  earningId: uuid('earning_id').notNull().unique(),
  testerId: text('tester_id').notNull(),
  jobId: text('job_id').notNull(),
  amountCents: integer('amount_cents').notNull(),
  accountId: text('account_id').notNull(),
  idempotencyKey: text('idempotency_key').notNull().unique(),
  /** When the current key was first used (providers forget keys after a while: Stripe 24 h). */
  keyCreatedAt: timestamp('key_created_at', { withTimezone: true }).notNull().defaultNow(),
  /** started | succeeded | failed */
  status: text('status').notNull().default('started'),
  transferId: text('transfer_id'),
  lastError: text('last_error'),
  tries: integer('tries').notNull().default(1),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** The local provider's own state (it plays Stripe's part): its sessions... */
export const localProviderSessions = paymentsSchema.table('local_provider_sessions', {
  id: text('id').primaryKey(),
  idempotencyKey: text('idempotency_key').notNull().unique(),
  jobId: text('job_id').notNull(),
  posterId: text('poster_id').notNull(),
  title: text('title').notNull(),
  amountCents: integer('amount_cents').notNull(),
  /** Units on the line item (a pack: one per tester); amount_cents is the total. */
  quantity: integer('quantity').notNull().default(1),
  currency: text('currency').notNull(),
  successUrl: text('success_url').notNull(),
  cancelUrl: text('cancel_url').notNull(),
  /** Stripe's vocabulary: status open | complete | expired; payment_status unpaid | paid */
  status: text('status').notNull().default('open'),
  paymentStatus: text('payment_status').notNull().default('unpaid'),
  cancelledByUser: text('cancelled_by_user'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** ...its simulated refunds of paid sessions (idempotent by key, like Stripe's)... */
export const localProviderRefunds = paymentsSchema.table('local_provider_refunds', {
  id: text('id').primaryKey(),
  idempotencyKey: text('idempotency_key').notNull().unique(),
  sessionId: text('session_id').notNull(),
  amountCents: integer('amount_cents').notNull(),
  reason: text('reason'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** ...and its simulated transfers (idempotent by key, like Stripe's). */
export const localProviderTransfers = paymentsSchema.table('local_provider_transfers', {
  id: text('id').primaryKey(),
  idempotencyKey: text('idempotency_key').notNull().unique(),
  accountId: text('account_id').notNull(),
  amountCents: integer('amount_cents').notNull(),
  transferGroup: text('transfer_group'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A tester's cash-out (POST /api/tester/cash-out): all their pending earnings in ONE transfer.
 * The row and its items are committed BEFORE the provider is called, with the idempotency key
 * every retry reuses, so a double click, a retry or a crash between the transfer and the ledger
 * write pays once. At most one `processing` cash-out per tester (partial unique index).
 */
export const cashOuts = paymentsSchema.table(
  'cash_outs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    testerId: text('tester_id').notNull(),
    accountId: text('account_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    idempotencyKey: text('idempotency_key').notNull().unique(),
    /** processing (claimed, transfer not booked yet) | paid | failed (the provider refused; earnings released) */
    status: text('status').notNull().default('processing'),
    transferId: text('transfer_id'),
    lastError: text('last_error'),
    tries: integer('tries').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    paidAt: timestamp('paid_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('cash_outs_one_processing_per_tester')
      .on(t.testerId)
      .where(sql`status = 'processing'`),
    index('cash_outs_tester_idx').on(t.testerId),
    check('cash_outs_status_check', sql`${t.status} IN ('processing', 'paid', 'failed')`),
    check('cash_outs_amount_check', sql`${t.amountCents} > 0`),
  ],
);

/**
 * The earnings a cash-out pays: an earning belongs to at most one live cash-out (primary key);
 * a refused cash-out deletes its items, so the earnings can be cashed out again.
 */
export const cashOutItems = paymentsSchema.table('cash_out_items', {
  earningId: uuid('earning_id').primaryKey(),
  cashOutId: uuid('cash_out_id').notNull(),
  jobId: text('job_id').notNull(),
  amountCents: integer('amount_cents').notNull(),
});
