import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, pgSchema, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { handledEventsTable, outboxTable } from '@htm/events/outbox';

export const adminSchema = pgSchema('admin');
export const outbox = outboxTable(adminSchema);
export const handledEvents = handledEventsTable(adminSchema);

export const feedback = adminSchema.table('feedback', {
  id: uuid('id').primaryKey().defaultRandom(),
  email: text('email').notNull(),
  message: text('message').notNull(),
  pageUrl: text('page_url'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Waitlist entries: tester signups (kind 'signup'), job requests (role 'Site owner', kind
 * 'job_request') and the no-Gmail waitlist (role 'tester', kind 'waitlist'). One signup or
 * waitlist entry per e-mail and role; job requests are not signups, so every request is stored
 * (the unique index leaves them out). `seq` gives a stable newest-first order for pages and
 * streamed exports.
 */
export const waitlistEntries = adminSchema.table(
  'waitlist_entries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    seq: bigserial('seq', { mode: 'number' }).notNull().unique(),
    email: text('email').notNull(),
    role: text('role').notNull(),
    kind: text('kind', { enum: ['signup', 'job_request', 'waitlist'] }).notNull(),
    name: text('name'),
    url: text('url'),
    note: text('note'),
    approved: boolean('approved').notNull().default(false),
    /** The signed-in caller who sent it (job requests always; others when a token came along). */
    userId: uuid('user_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('waitlist_entries_email_role_uq').on(t.email, t.role).where(sql`${t.kind} <> 'job_request'`), index('waitlist_entries_kind_seq_idx').on(t.kind, t.seq)],
);

/** 'Looking for a Developer?' leads. */
export const leads = adminSchema.table('leads', {
  id: uuid('id').primaryKey().defaultRandom(),
  seq: bigserial('seq', { mode: 'number' }).notNull().unique(),
  email: text('email').notNull(),
  message: text('message').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
