import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { handledEventsTable, outboxTable } from '@htm/events/outbox';

export const identitySchema = pgSchema('identity');
export const outbox = outboxTable(identitySchema);
export const handledEvents = handledEventsTable(identitySchema);

/** People who signed in, keyed by Google's `sub` (dev sign-in uses `dev:<email>`). */
export const users = identitySchema.table(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    googleSub: text('google_sub').notNull().unique(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    type: text('type').$type<'poster' | 'tester' | 'admin'>(),
    location: text('location').$type<'USA' | 'PR'>(),
    country: text('country').$type<'US' | 'PR' | 'CA'>(),
    approved: boolean('approved').notNull().default(false),
    strikes: integer('strikes').notNull().default(0),
    /** Testers: the assistive technology they use (PATCH /api/users/profile). */
    assistiveTech: jsonb('assistive_tech').$type<string[]>().notNull().default([]),
    /** Testers: sum and count of the stars of jobs' TesterRated events (rating_avg = sum / count). */
    ratingSum: integer('rating_sum').notNull().default(0),
    ratingCount: integer('rating_count').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('users_email_idx').on(t.email), index('users_type_idx').on(t.type)],
);

/** E-mails the admin approved as tester signups (admin's SignupApproved events). */
export const preApprovedEmails = identitySchema.table('pre_approved_emails', {
  email: text('email').primaryKey(),
  entryId: text('entry_id').notNull(),
  approvedAt: timestamp('approved_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Tester signups from the landing page the admin has not approved yet (admin's WaitlistJoined;
 * SignupApproved moves them to pre_approved_emails): the Tester Login says they are waiting.
 */
export const pendingSignups = identitySchema.table('pending_signups', {
  email: text('email').primaryKey(),
  entryId: text('entry_id').notNull(),
  signedUpAt: timestamp('signed_up_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Strikes reported by jobs (TesterStrikeRecorded), one row per event. */
export const testerStrikes = identitySchema.table('tester_strikes', {
  id: uuid('id').primaryKey().defaultRandom(),
  testerId: uuid('tester_id').notNull(),
  jobId: text('job_id').notNull(),
  reason: text('reason').notNull(),
  eventId: uuid('event_id').notNull().unique(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Ratings reported by jobs (TesterRated), one row per rated job: a redelivery adds nothing twice. */
export const testerRatings = identitySchema.table('tester_ratings', {
  jobId: text('job_id').primaryKey(),
  testerId: uuid('tester_id').notNull(),
  stars: integer('stars').notNull(),
  ratedAt: timestamp('rated_at', { withTimezone: true }).notNull(),
});

/** One-time sign-in handles (the `#session_id=`), stored as SHA-256 hashes. */
export const signinSessions = identitySchema.table('signin_sessions', {
  idHash: text('id_hash').primaryKey(),
  userId: uuid('user_id').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A refresh-token family: one browser sign-in, with an absolute expiry. */
export const refreshFamilies = identitySchema.table(
  'refresh_families',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    revokedReason: text('revoked_reason'),
    /** The browser's User-Agent at sign-in and at its latest refresh (the "Sign-ins" list names the device from it). */
    userAgent: text('user_agent'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('refresh_families_user_idx').on(t.userId)],
);

/** Refresh tokens (SHA-256 hashed); rotated once, a second use revokes the family. */
export const refreshTokens = identitySchema.table(
  'refresh_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    familyId: uuid('family_id').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    rotatedAt: timestamp('rotated_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('refresh_tokens_family_idx').on(t.familyId)],
);

/** Generated ES256 signing keys (used when JWT_PRIVATE_KEY is not set). Retired keys stay published a while. */
export const signingKeys = identitySchema.table(
  'signing_keys',
  {
    kid: text('kid').primaryKey(),
    privateJwk: jsonb('private_jwk').$type<Record<string, unknown>>(),
    publicJwk: jsonb('public_jwk').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    retiredAt: timestamp('retired_at', { withTimezone: true }),
  },
  (t) => [index('signing_keys_active_idx').on(t.createdAt).where(sql`retired_at IS NULL`)],
);

export type UserRow = typeof users.$inferSelect;
