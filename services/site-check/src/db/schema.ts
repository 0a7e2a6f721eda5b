import { index, integer, jsonb, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { SiteCheckSummary } from '@htm/contracts';
import { handledEventsTable, outboxTable } from '@htm/events/outbox';
import type { StoredSizeDetail } from '../domain/check-result.js';

export const siteCheckSchema = pgSchema('site_check');
export const outbox = outboxTable(siteCheckSchema);
export const handledEvents = handledEventsTable(siteCheckSchema);

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * What the service knows of each job, from the jobs and payments streams: its poster and URL
 * (JobCreated), its checkout (JobPaid: the jobs of a pack share one and one check), and the tester
 * holding it (JobClaimed, JobReleased). Rows appear with whichever event comes first.
 */
export const jobs = siteCheckSchema.table(
  'jobs',
  {
    jobId: text('job_id').primaryKey(),
    posterId: text('poster_id'),
    url: text('url'),
    /** The checkout that paid it: the key of its check. */
    sessionId: text('session_id'),
    paidAt: ts('paid_at'),
    testerId: text('tester_id'),
    /** When SiteChecked / SiteCheckFailed was announced for this job (once). */
    announcedAt: ts('announced_at'),
  },
  (t) => [index('jobs_session_idx').on(t.sessionId)],
);

/** One check per checkout (a pack is one site, checked once): the work queue and its result. */
export const checks = siteCheckSchema.table(
  'checks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sessionId: text('session_id').notNull().unique(),
    url: text('url').notNull(),
    /** pending, running, done, failed */
    state: text('state').notNull().default('pending'),
    /** Times a worker took it (a worker that died mid-check leaves it to be taken again, at most twice). */
    attempts: integer('attempts').notNull().default(0),
    leaseUntil: ts('lease_until'),
    createdAt: ts('created_at').notNull().defaultNow(),
    startedAt: ts('started_at'),
    finishedAt: ts('finished_at'),
    /** complete or partial (done only). */
    status: text('status'),
    summary: jsonb('summary').$type<SiteCheckSummary>(),
    details: jsonb('details').$type<StoredSizeDetail[]>(),
    links: jsonb('links').$type<{
      checked: number;
      broken: Array<{ url: string; status: number | null }>;
    }>(),
    blocked: jsonb('blocked').$type<Array<{ url: string; reason: string }>>(),
    failureReason: text('failure_reason'),
    failureDetail: text('failure_detail'),
  },
  (t) => [index('checks_state_idx').on(t.state, t.createdAt)],
);

/** The screenshot of each size of a done check (JPEG data: URLs, a few tens of KB each). */
export const screenshots = siteCheckSchema.table(
  'screenshots',
  {
    checkId: uuid('check_id').notNull(),
    size: text('size').notNull(),
    dataUrl: text('data_url').notNull(),
  },
  (t) => [index('screenshots_check_idx').on(t.checkId)],
);

export type JobRow = typeof jobs.$inferSelect;
export type CheckRow = typeof checks.$inferSelect;
