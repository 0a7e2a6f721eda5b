import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { handledEventsTable, outboxTable } from '@htm/events/outbox';

export const notificationsSchema = pgSchema('notifications');
/** Unused (this service publishes nothing), but every hosted service has one. */
export const outbox = outboxTable(notificationsSchema);
export const handledEvents = handledEventsTable(notificationsSchema);

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Projection of identity's users: where to write to. */
export const users = notificationsSchema.table('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull(),
  name: text('name').notNull().default(''),
  /** Tester approval as last announced (the approval e-mail goes out when it turns true). */
  approved: boolean('approved'),
  /** A tester's country and assistive technology as last announced (the job digest's geo and assistive-tech rules). */
  country: text('country'),
  assistiveTech: jsonb('assistive_tech').$type<string[]>().notNull().default([]),
  /** When the last job digest was queued for this tester (at most one an hour). */
  lastDigestAt: ts('last_digest_at'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * Projection of jobs' JobCreated (who posted a job, its title), JobPublished (paid: open to testers,
 * with what decides who may take it), JobClaimed / JobReleased (taken or open again).
 */
export const jobs = notificationsSchema.table('jobs', {
  id: text('id').primaryKey(),
  posterId: text('poster_id').notNull(),
  title: text('title').notNull(),
  url: text('url'),
  expectedCompletionHours: integer('expected_completion_hours'),
  geoRule: text('geo_rule'),
  /** unpaid (not published yet), open (paid, waiting for a tester), taken. */
  status: text('status').notNull().default('unpaid'),
  paidAt: ts('paid_at'),
  assistiveTech: text('assistive_tech'),
  freshEyes: boolean('fresh_eyes').notNull().default(false),
  siteHost: text('site_host'),
  reservedTesterId: text('reserved_tester_id'),
  reservedUntil: ts('reserved_until'),
});

/** Sites a tester has submitted work on (the digest leaves out fresh-eyes jobs of those sites). */
export const testedSites = notificationsSchema.table(
  'tested_sites',
  { testerId: text('tester_id').notNull(), siteHost: text('site_host').notNull() },
  (t) => [primaryKey({ columns: [t.testerId, t.siteHost] })],
);

/** Jobs already announced to a tester in a digest (each job is in at most one digest per tester). */
export const digestJobs = notificationsSchema.table(
  'digest_jobs',
  {
    testerId: text('tester_id').notNull(),
    jobId: text('job_id').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.testerId, t.jobId] })],
);

/** Kinds a user switched off, and opt-in kinds they switched on (absent row: the defaults). */
export const preferences = notificationsSchema.table('preferences', {
  userId: text('user_id').primaryKey(),
  disabled: jsonb('disabled').$type<string[]>().notNull().default([]),
  enabled: jsonb('enabled').$type<string[]>().notNull().default([]),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * One row per e-mail to send: written by the event handlers in the transaction that records the
 * event as handled (so a redelivered event adds none), sent and retried by the mail sender.
 * status: pending -> sent, or suppressed (the user switched the kind off / no address known yet
 * is retried, not suppressed).
 */
export const messages = notificationsSchema.table(
  'messages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    eventId: uuid('event_id').notNull(),
    kind: text('kind').notNull(),
    userId: text('user_id').notNull(),
    /** What the template needs (job id and title, amount...). */
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    /** Of the event that caused it: carried into the sender's log lines. */
    correlationId: text('correlation_id'),
    status: text('status').notNull().default('pending'),
    toEmail: text('to_email'),
    subject: text('subject'),
    text: text('text'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    lastError: text('last_error'),
    createdAt: ts('created_at').notNull().defaultNow(),
    sentAt: ts('sent_at'),
  },
  (t) => [
    uniqueIndex('messages_event_kind_user_uq').on(t.eventId, t.kind, t.userId),
    index('messages_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    index('messages_to_idx').on(t.toEmail, t.sentAt.desc()),
  ],
);

export type MessageRow = typeof messages.$inferSelect;

/**
 * Projection of jobs' ReportSummarized (issue #51): each job's and pack's latest summary, its
 * first problems. A results e-mail lists them; a summary handled before the submission it counts
 * (a pack's comes on the pack's own partition) is found here when that submission arrives.
 */
export const reportSummaries = notificationsSchema.table('report_summaries', {
  scopeId: text('scope_id').primaryKey(),
  jobIds: jsonb('job_ids').$type<string[]>().notNull(),
  problems: jsonb('problems')
    .$type<
      Array<{ title: string; severity: string | null; testersHit: number; testersTotal: number }>
    >()
    .notNull(),
  lastSubmissionAt: ts('last_submission_at').notNull(),
  summarizedAt: ts('summarized_at').notNull(),
});
