import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  pgSchema,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import { handledEventsTable, outboxTable } from '@htm/events/outbox';

export const analyticsSchema = pgSchema('analytics');
/** Unused (this service publishes nothing), but every hosted service has one. */
export const outbox = outboxTable(analyticsSchema);
export const handledEvents = handledEventsTable(analyticsSchema);

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const n = (name: string) => integer(name).notNull().default(0);
const cents = (name: string) => bigint(name, { mode: 'number' }).notNull().default(0);

/**
 * Facts per UTC day, each a counter the event handlers add to (once per event id). The insights
 * read at most 366 of these rows, however long the history.
 */
export const daily = analyticsSchema.table('daily', {
  day: date('day', { mode: 'string' }).primaryKey(),
  posted: n('posted'),
  paid: n('paid'),
  /** Jobs claimed for the first time that day (re-claims after a release are not counted again). */
  claimed: n('claimed'),
  /** First submissions (resubmissions after a revision are counted in `resubmitted`). */
  submitted: n('submitted'),
  resubmitted: n('resubmitted'),
  completedPoster: n('completed_poster'),
  completedAdmin: n('completed_admin'),
  completedAuto: n('completed_auto'),
  revisions: n('revisions'),
  releases: n('releases'),
  refunds: n('refunds'),
  /** Packs ordered (PackCreated), the testers ordered in them, and their unfilled slots refunded. */
  packs: n('packs'),
  packTesters: n('pack_testers'),
  packSlotsRefunded: n('pack_slots_refunded'),
  /** Session checks finished (SessionChecked), those borderline and failed, and free replacements (ReplacementRequested). */
  sessionsChecked: n('sessions_checked'),
  sessionsBorderline: n('sessions_borderline'),
  sessionsFailed: n('sessions_failed'),
  replacements: n('replacements'),
  revenueCents: cents('revenue_cents'),
  earningsCents: cents('earnings_cents'),
  platformFeeCents: cents('platform_fee_cents'),
  payoutsCents: cents('payouts_cents'),
  refundsCents: cents('refunds_cents'),
});
export type DailyRow = typeof daily.$inferSelect;
export type DailyCounter = Exclude<keyof DailyRow, 'day'>;

/** Jobs paid (published) per day and geo rule: the demand side of supply vs demand. */
export const dailyDemand = analyticsSchema.table(
  'daily_demand',
  {
    day: date('day', { mode: 'string' }).notNull(),
    geoRule: text('geo_rule').notNull(),
    count: n('count'),
  },
  (t) => [primaryKey({ columns: [t.day, t.geoRule] })],
);

/**
 * Durations as histograms per day (the day the duration ended): metric `claim` (paid -> first
 * claim), `submit` (first claim -> first submission), `result` (paid -> first submission),
 * `summary` (a job's or a pack's last submission -> its summary, ReportSummarized); bucket
 * b holds durations in (1.05^(b-1), 1.05^b] ms, so percentiles read from it are at most 5% high.
 */
export const durations = analyticsSchema.table(
  'durations',
  {
    day: date('day', { mode: 'string' }).notNull(),
    metric: text('metric').notNull(),
    bucket: integer('bucket').notNull(),
    count: n('count'),
  },
  (t) => [primaryKey({ columns: [t.day, t.metric, t.bucket] })],
);

/**
 * What is known about each job, from whichever stream told it first: times only move to the
 * earliest (first_*) or latest (last_*) value seen, so events may arrive in any order.
 */
export const jobs = analyticsSchema.table(
  'jobs',
  {
    jobId: text('job_id').primaryKey(),
    geoRule: text('geo_rule'),
    postedAt: ts('posted_at'),
    paidAt: ts('paid_at'),
    firstClaimedAt: ts('first_claimed_at'),
    lastClaimedAt: ts('last_claimed_at'),
    lastReleasedAt: ts('last_released_at'),
    firstSubmittedAt: ts('first_submitted_at'),
    completedAt: ts('completed_at'),
    claimRecorded: boolean('claim_recorded').notNull().default(false),
    submitRecorded: boolean('submit_recorded').notNull().default(false),
    resultRecorded: boolean('result_recorded').notNull().default(false),
  },
  // The waiting-jobs count reads only paid, unfinished jobs (a small set, however long the history).
  (t) => [
    index('jobs_open_idx')
      .on(t.paidAt)
      .where(sql`completed_at IS NULL AND paid_at IS NOT NULL`),
  ],
);
export type JobFacts = typeof jobs.$inferSelect;

/**
 * Report summaries (ReportSummarized): the last submission whose time to summary was recorded,
 * per job or pack, so a summary computed again for the same reports (an acceptance, an owner's
 * merge) is not measured again.
 */
export const summaries = analyticsSchema.table('summaries', {
  scopeId: text('scope_id').primaryKey(),
  lastSubmissionAt: ts('last_submission_at').notNull(),
});

/** Testers: approval and country as last announced by identity, and their last activity. */
export const testers = analyticsSchema.table(
  'testers',
  {
    userId: text('user_id').primaryKey(),
    approved: boolean('approved').notNull().default(false),
    country: text('country'),
    /** occurredAt of the identity event the approval came from (an older one changes nothing). */
    approvalAsOf: ts('approval_as_of'),
    lastActiveAt: ts('last_active_at'),
  },
  (t) => [index('testers_active_idx').on(t.lastActiveAt)],
);
