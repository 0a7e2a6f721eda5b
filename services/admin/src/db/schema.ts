import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  index,
  jsonb,
  pgSchema,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
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
  (t) => [
    uniqueIndex('waitlist_entries_email_role_uq')
      .on(t.email, t.role)
      .where(sql`${t.kind} <> 'job_request'`),
    index('waitlist_entries_kind_seq_idx').on(t.kind, t.seq),
  ],
);

/** 'Looking for a Developer?' leads. */
export const leads = adminSchema.table('leads', {
  id: uuid('id').primaryKey().defaultRandom(),
  seq: bigserial('seq', { mode: 'number' }).notNull().unique(),
  email: text('email').notNull(),
  message: text('message').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Every admin action, append-only (migration 0003: a trigger refuses UPDATE, DELETE and TRUNCATE).
 * `event_id` is the id of the event that told of the action (unique: a redelivery adds nothing).
 */
export const auditLog = adminSchema.table(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    eventId: text('event_id').notNull().unique(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    actorId: text('actor_id'),
    action: text('action').notNull(),
    target: text('target').notNull(),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    correlationId: text('correlation_id'),
    recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('audit_log_action_idx').on(t.action, t.id)],
);

/** Clear-all confirmations (single use, short-lived, bound to one preview and one admin). */
export const clearConfirmations = adminSchema.table('clear_confirmations', {
  tokenHash: text('token_hash').primaryKey(),
  adminId: text('admin_id').notNull(),
  fingerprint: text('fingerprint').notNull(),
  preview: jsonb('preview').$type<Record<string, unknown>>().notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
