import { sql } from 'drizzle-orm';
import {
  boolean,
  customType,
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

/**
 * One-time sign-in handles (the `#session_id=`), stored as SHA-256 hashes. Every sign-in drops
 * the long-expired ones: by `expires_at`'s index, so that costs the rows it drops, not a scan of
 * an hour's sign-ins.
 */
export const signinSessions = identitySchema.table(
  'signin_sessions',
  {
    idHash: text('id_hash').primaryKey(),
    userId: uuid('user_id').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('signin_sessions_expires_idx').on(t.expiresAt)],
);

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
  (t) => [
    index('signing_keys_active_idx')
      .on(t.createdAt)
      .where(sql`retired_at IS NULL`),
  ],
);

export type UserRow = typeof users.$inferSelect;

/**
 * "Download my data": one row per export asked for (by the user, or by the admin for them). The
 * privacy sweep builds `pending` ones (each service's part over /internal/privacy, the user's files
 * from jobs), writes the zip under EXPORT_DIR and marks it `ready` until `expires_at`.
 */
export const dataExports = identitySchema.table(
  'data_exports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id').notNull(),
    /** pending | building | ready | failed | expired */
    status: text('status')
      .$type<'pending' | 'building' | 'ready' | 'failed' | 'expired'>()
      .notNull()
      .default('pending'),
    /** Services whose part is in the archive so far (the progress shown). */
    partsDone: jsonb('parts_done').$type<string[]>().notNull().default([]),
    partsTotal: integer('parts_total').notNull(),
    /** The admin who ran it for the user (a request by e-mail), or null. */
    requestedBy: uuid('requested_by'),
    sizeBytes: integer('size_bytes'),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    readyAt: timestamp('ready_at', { withTimezone: true }),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
  },
  (t) => [
    index('data_exports_user_idx').on(t.userId, t.requestedAt.desc()),
    index('data_exports_status_idx').on(t.status),
  ],
);

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/**
 * A finished export's zip, in 1 MiB pieces: in the database, not on the disk of the replica that
 * built it, so the e-mailed link works on whichever identity replica answers it. Deleted when the
 * link expires or the account is erased.
 */
export const exportChunks = identitySchema.table(
  'export_chunks',
  {
    exportId: uuid('export_id').notNull(),
    seq: integer('seq').notNull(),
    data: bytea('data').notNull(),
  },
  (t) => [primaryKey({ columns: [t.exportId, t.seq] })],
);

/**
 * "Delete my account": `scheduled` until `due_at` (signing in again cancels it), then `erasing`
 * (identity erased its part and published UserDeleted) until every service answered that it
 * handled that event, then `completed`. One open (scheduled or erasing) deletion per user.
 */
export const accountDeletions = identitySchema.table(
  'account_deletions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id').notNull(),
    /** scheduled | cancelled | erasing | completed */
    status: text('status')
      .$type<'scheduled' | 'cancelled' | 'erasing' | 'completed'>()
      .notNull()
      .default('scheduled'),
    requestedBy: uuid('requested_by'),
    requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    cancelledAt: timestamp('cancelled_at', { withTimezone: true }),
    /** What the person is called from now on in records that are kept (the ledger). */
    pseudonym: uuid('pseudonym'),
    /** The UserDeleted event: services answer whether they handled it. */
    eventId: uuid('event_id'),
    servicesDone: jsonb('services_done').$type<string[]>().notNull().default([]),
    erasedAt: timestamp('erased_at', { withTimezone: true }),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('account_deletions_open_uq')
      .on(t.userId)
      .where(sql`status IN ('scheduled', 'erasing')`),
    index('account_deletions_due_idx')
      .on(t.dueAt)
      .where(sql`status = 'scheduled'`),
  ],
);
export type DataExportRow = typeof dataExports.$inferSelect;
export type AccountDeletionRow = typeof accountDeletions.$inferSelect;
