import { and, count, desc, eq, isNull, ne, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import type { AssistiveTech, UserCountry, UserLocation } from '@htm/contracts';
import {
  pendingSignups,
  preApprovedEmails,
  testerRatings,
  testerStrikes,
  users,
  type UserRow,
} from './schema.js';

/**
 * All SQL about users and what other services tell identity about them (pre-approved e-mails,
 * strikes, ratings). One function per state change: every role change goes through `setRole`,
 * every approval change through `setApproval`, whoever decides it (a use case or an event handler).
 */

export type { UserRow };
export type UserType = NonNullable<UserRow['type']>;

// ---- reads ----

export async function findUser(db: Db | Tx, id: string): Promise<UserRow | undefined> {
  const [u] = await db.select().from(users).where(eq(users.id, id));
  return u;
}

/**
 * The user's row for minting an access token (SELECT ... FOR SHARE): a claims change being
 * written is waited for, so the token never carries claims older than an announced change.
 */
export async function readUserForToken(tx: Tx, id: string): Promise<UserRow | undefined> {
  const [u] = await tx.select().from(users).where(eq(users.id, id)).for('share');
  return u;
}

/** The user's row, locked until the transaction ends (SELECT ... FOR UPDATE). */
export async function lockUser(tx: Tx, id: string): Promise<UserRow | undefined> {
  const [u] = await tx.select().from(users).where(eq(users.id, id)).for('update');
  return u;
}

/** The user with this Google `sub` (dev sign-in: `dev:<email>`), locked. */
export async function lockUserByGoogleSub(tx: Tx, googleSub: string): Promise<UserRow | undefined> {
  const [u] = await tx.select().from(users).where(eq(users.googleSub, googleSub)).for('update');
  return u;
}

/** Testers with this e-mail whose approval is `approved`, locked. */
export function lockTestersByEmail(tx: Tx, email: string, approved: boolean): Promise<UserRow[]> {
  return tx
    .select()
    .from(users)
    .where(and(eq(users.email, email), eq(users.type, 'tester'), eq(users.approved, approved)))
    .for('update');
}

/**
 * Accounts whose admin role disagrees with ADMIN_EMAIL, locked: admins with another e-mail (all
 * admins when none is named) and the named account when it is not admin yet.
 */
export async function lockAdminMismatches(
  tx: Tx,
  adminEmail: string | undefined,
): Promise<{ demote: UserRow[]; promote: UserRow[] }> {
  const demote = await tx
    .select()
    .from(users)
    .where(and(eq(users.type, 'admin'), adminEmail ? ne(users.email, adminEmail) : undefined))
    .for('update');
  const promote = adminEmail
    ? await tx
        .select()
        .from(users)
        .where(and(eq(users.email, adminEmail), or(isNull(users.type), ne(users.type, 'admin'))))
        .for('update')
    : [];
  return { demote, promote };
}

/** Testers, newest first; optionally approved ones only and those using one assistive technology. */
export function listTesters(
  db: Db | Tx,
  opts: { approvedOnly: boolean; assistiveTech?: AssistiveTech },
): Promise<UserRow[]> {
  const where = and(
    eq(users.type, 'tester'),
    opts.approvedOnly ? eq(users.approved, true) : undefined,
    opts.assistiveTech
      ? sql`${users.assistiveTech} @> ${JSON.stringify([opts.assistiveTech])}::jsonb`
      : undefined,
  );
  return db.select().from(users).where(where).orderBy(desc(users.createdAt));
}

// ---- state changes of users ----

/** A first sign-in; undefined when another sign-in with the same `sub` created the row first. */
export async function insertUser(
  tx: Db | Tx,
  values: {
    googleSub: string;
    email: string;
    name: string;
    type: UserType | null;
    approved: boolean;
  },
): Promise<UserRow | undefined> {
  const [row] = await tx
    .insert(users)
    .values(values)
    .onConflictDoNothing({ target: users.googleSub })
    .returning();
  return row;
}

/** Name and e-mail as Google gives them at sign-in. */
export async function updateAccount(
  tx: Db | Tx,
  id: string,
  patch: { email?: string; name?: string },
): Promise<UserRow> {
  const [row] = await tx
    .update(users)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(users.id, id))
    .returning();
  return row;
}

/**
 * The user's role (type) and the approval that goes with it; a role choice also sets location
 * and country (left as they are when not given).
 */
export async function setRole(
  tx: Db | Tx,
  id: string,
  role: {
    type: UserType | null;
    approved: boolean;
    location?: UserLocation | null;
    country?: UserCountry | null;
  },
): Promise<UserRow> {
  const [row] = await tx
    .update(users)
    .set({
      type: role.type,
      ...(role.location !== undefined ? { location: role.location } : {}),
      ...(role.country !== undefined ? { country: role.country } : {}),
      approved: role.approved,
      updatedAt: new Date(),
    })
    .where(eq(users.id, id))
    .returning();
  return row;
}

/** A tester's approval (admin toggle, signup decision, strike limit). */
export async function setApproval(tx: Db | Tx, id: string, approved: boolean): Promise<UserRow> {
  const [row] = await tx
    .update(users)
    .set({ approved, updatedAt: new Date() })
    .where(eq(users.id, id))
    .returning();
  return row;
}

/** A tester's profile: country and the location that follows it, and the assistive technology (kept when not given). */
export async function updateTesterProfile(
  tx: Db | Tx,
  id: string,
  profile: {
    country: UserCountry | null;
    location: UserLocation | null;
    assistiveTech?: AssistiveTech[];
  },
): Promise<UserRow> {
  const [row] = await tx
    .update(users)
    .set({
      country: profile.country,
      location: profile.location,
      ...(profile.assistiveTech !== undefined ? { assistiveTech: profile.assistiveTech } : {}),
      updatedAt: new Date(),
    })
    .where(eq(users.id, id))
    .returning();
  return row;
}

/** The tester's strike count as counted in `tester_strikes`. */
export async function setStrikes(tx: Db | Tx, id: string, strikes: number): Promise<UserRow> {
  const [row] = await tx
    .update(users)
    .set({ strikes, updatedAt: new Date() })
    .where(eq(users.id, id))
    .returning();
  return row;
}

/** Adds one rated job's stars to the tester's rating_sum / rating_count. */
export async function addRating(tx: Db | Tx, id: string, stars: number): Promise<void> {
  await tx
    .update(users)
    .set({
      ratingSum: sql`${users.ratingSum} + ${stars}`,
      ratingCount: sql`${users.ratingCount} + 1`,
      updatedAt: new Date(),
    })
    .where(eq(users.id, id));
}

// ---- pre-approved e-mails (admin's SignupApproved) ----

export async function isPreApproved(db: Db | Tx, email: string): Promise<boolean> {
  const [pre] = await db.select().from(preApprovedEmails).where(eq(preApprovedEmails.email, email));
  return Boolean(pre);
}

export async function addPreApprovedEmail(
  tx: Db | Tx,
  email: string,
  entryId: string,
): Promise<void> {
  await tx
    .insert(preApprovedEmails)
    .values({ email, entryId })
    .onConflictDoUpdate({
      target: preApprovedEmails.email,
      set: { entryId, approvedAt: new Date() },
    });
}

export async function removePreApprovedEmail(tx: Db | Tx, email: string): Promise<void> {
  await tx.delete(preApprovedEmails).where(eq(preApprovedEmails.email, email));
}

// ---- pending tester signups (admin's WaitlistJoined, until SignupApproved) ----

export async function isSignupPending(db: Db | Tx, email: string): Promise<boolean> {
  const [row] = await db
    .select({ email: pendingSignups.email })
    .from(pendingSignups)
    .where(eq(pendingSignups.email, email));
  return Boolean(row);
}

export async function addPendingSignup(
  tx: Db | Tx,
  email: string,
  entryId: string,
  at: Date,
): Promise<void> {
  await tx
    .insert(pendingSignups)
    .values({ email, entryId, signedUpAt: at })
    .onConflictDoNothing({ target: pendingSignups.email });
}

export async function removePendingSignup(tx: Db | Tx, email: string): Promise<void> {
  await tx.delete(pendingSignups).where(eq(pendingSignups.email, email));
}

// ---- strikes and ratings (jobs' TesterStrikeRecorded, TesterRated) ----

/** Stores a strike once per event id; answers how many strikes the tester has now. */
export async function recordStrike(
  tx: Db | Tx,
  strike: { testerId: string; jobId: string; reason: string; eventId: string },
): Promise<number> {
  await tx.insert(testerStrikes).values(strike).onConflictDoNothing();
  const [{ n }] = await tx
    .select({ n: count() })
    .from(testerStrikes)
    .where(eq(testerStrikes.testerId, strike.testerId));
  return Number(n);
}

/** An overturned strike (jobs' AppealDecided): the tester's latest strike for the job goes; answers the new count. */
export async function removeStrike(tx: Db | Tx, testerId: string, jobId: string): Promise<number> {
  await tx.execute(sql`DELETE FROM identity.tester_strikes WHERE id = (
    SELECT id FROM identity.tester_strikes WHERE tester_id = ${testerId} AND job_id = ${jobId} ORDER BY created_at DESC LIMIT 1)`);
  const [{ n }] = await tx
    .select({ n: count() })
    .from(testerStrikes)
    .where(eq(testerStrikes.testerId, testerId));
  return Number(n);
}

/** An overturned rating: it leaves the tester's rating_sum / rating_count (once: the row goes). */
export async function removeRating(tx: Db | Tx, jobId: string): Promise<void> {
  const [gone] = await tx.delete(testerRatings).where(eq(testerRatings.jobId, jobId)).returning();
  if (!gone) return;
  await tx
    .update(users)
    .set({
      ratingSum: sql`GREATEST(${users.ratingSum} - ${gone.stars}, 0)`,
      ratingCount: sql`GREATEST(${users.ratingCount} - 1, 0)`,
      updatedAt: new Date(),
    })
    .where(eq(users.id, gone.testerId));
}

/** Stores a job's rating; false when that job was rated before (nothing to add). */
export async function recordRating(
  tx: Db | Tx,
  rating: { jobId: string; testerId: string; stars: number; ratedAt: Date },
): Promise<boolean> {
  const inserted = await tx.insert(testerRatings).values(rating).onConflictDoNothing().returning();
  return inserted.length > 0;
}
