import { and, desc, eq, gt, inArray, isNull, lt, max, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { refreshFamilies, refreshTokens, signinSessions } from './schema.js';

/**
 * All SQL about sign-ins: the single-use sign-in handles (`#session_id=`), refresh-token families
 * (one browser sign-in each) and their refresh tokens. Secrets arrive here already hashed.
 */

export type RefreshFamily = typeof refreshFamilies.$inferSelect;

// ---- sign-in handles ----

/** Stores a new sign-in handle and drops handles that expired more than an hour ago. */
export async function createSigninSession(
  tx: Db | Tx,
  handle: { idHash: string; userId: string; expiresAt: Date },
): Promise<void> {
  await tx.insert(signinSessions).values(handle);
  await tx
    .delete(signinSessions)
    .where(lt(signinSessions.expiresAt, sql`now() - interval '1 hour'`));
}

/** Marks an unused, unexpired handle used; answers its user, or undefined (unknown, used or expired). */
export async function spendSigninSession(tx: Db | Tx, idHash: string): Promise<string | undefined> {
  const [used] = await tx
    .update(signinSessions)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(signinSessions.idHash, idHash),
        isNull(signinSessions.usedAt),
        gt(signinSessions.expiresAt, new Date()),
      ),
    )
    .returning({ userId: signinSessions.userId });
  return used?.userId;
}

// ---- refresh families ----

/** At most this much of a User-Agent is kept. */
const USER_AGENT_MAX = 512;
const clip = (ua: string | undefined) => (ua ? ua.slice(0, USER_AGENT_MAX) : null);

/** A new sign-in (refresh family) with its absolute expiry and the browser's User-Agent; answers the family id. */
export async function createRefreshFamily(
  tx: Db | Tx,
  userId: string,
  expiresAt: Date,
  userAgent?: string,
): Promise<string> {
  const [family] = await tx
    .insert(refreshFamilies)
    .values({ userId, expiresAt, userAgent: clip(userAgent) })
    .returning({ id: refreshFamilies.id });
  return family.id;
}

/** The browser of a sign-in as it was at its latest refresh (a browser update changes it). */
export async function setFamilyUserAgent(
  tx: Db | Tx,
  familyId: string,
  userAgent: string | undefined,
): Promise<void> {
  if (!userAgent) return;
  await tx
    .update(refreshFamilies)
    .set({ userAgent: clip(userAgent) })
    .where(eq(refreshFamilies.id, familyId));
}

export interface LiveSignIn {
  id: string;
  userAgent: string | null;
  createdAt: Date;
  expiresAt: Date;
  /** The latest refresh (or the sign-in itself): when the browser was last seen. */
  lastUsedAt: Date;
}

/** A user's sign-ins that are alive (not revoked, not expired, refreshed within `idleMs`), most recently used first. */
export async function listLiveFamilies(
  db: Db | Tx,
  userId: string,
  idleMs: number,
): Promise<LiveSignIn[]> {
  const lastUsed = max(refreshTokens.createdAt);
  const rows = await db
    .select({
      id: refreshFamilies.id,
      userAgent: refreshFamilies.userAgent,
      createdAt: refreshFamilies.createdAt,
      expiresAt: refreshFamilies.expiresAt,
      lastUsedAt: lastUsed,
    })
    .from(refreshFamilies)
    .innerJoin(refreshTokens, eq(refreshTokens.familyId, refreshFamilies.id))
    .where(
      and(
        eq(refreshFamilies.userId, userId),
        isNull(refreshFamilies.revokedAt),
        gt(refreshFamilies.expiresAt, new Date()),
      ),
    )
    .groupBy(refreshFamilies.id)
    .having(gt(lastUsed, new Date(Date.now() - idleMs)))
    .orderBy(desc(lastUsed));
  return rows.map((r) => ({ ...r, lastUsedAt: new Date(r.lastUsedAt!) }));
}

/** The family's row, locked until the transaction ends. */
export async function lockRefreshFamily(tx: Tx, id: string): Promise<RefreshFamily | undefined> {
  const [family] = await tx
    .select()
    .from(refreshFamilies)
    .where(eq(refreshFamilies.id, id))
    .for('update');
  return family;
}

/**
 * The family if its sign-in is alive: not revoked, not past its absolute expiry, and refreshed
 * within `idleMs` (its newest refresh token is the last time the browser was seen).
 */
export async function findLiveFamily(
  db: Db | Tx,
  id: string,
  idleMs: number,
): Promise<RefreshFamily | undefined> {
  const [family] = await db
    .select()
    .from(refreshFamilies)
    .where(
      and(
        eq(refreshFamilies.id, id),
        isNull(refreshFamilies.revokedAt),
        gt(refreshFamilies.expiresAt, new Date()),
        sql`exists (select 1 from ${refreshTokens} where ${refreshTokens.familyId} = ${refreshFamilies.id} and ${refreshTokens.createdAt} > ${new Date(Date.now() - idleMs)})`,
      ),
    );
  return family;
}

/**
 * Ends sign-ins that are not ended yet (one family, or every family of some users) with a reason
 * (`logout`, `idle`, `reuse`, `role_changed`, `signed_out_remotely`, `logout_all`); answers the ids it revoked.
 */
export async function revokeRefreshFamilies(
  tx: Db | Tx,
  which: { familyId: string; userId?: string } | { userIds: string[] },
  reason: string,
): Promise<string[]> {
  const rows = await tx
    .update(refreshFamilies)
    .set({ revokedAt: new Date(), revokedReason: reason })
    .where(
      and(
        'familyId' in which
          ? eq(refreshFamilies.id, which.familyId)
          : inArray(refreshFamilies.userId, which.userIds),
        // Only the user's own sign-in, when a user asks.
        'familyId' in which && which.userId ? eq(refreshFamilies.userId, which.userId) : undefined,
        isNull(refreshFamilies.revokedAt),
      ),
    )
    .returning({ id: refreshFamilies.id });
  return rows.map((r) => r.id);
}

// ---- refresh tokens ----

export async function insertRefreshToken(
  tx: Db | Tx,
  familyId: string,
  tokenHash: string,
): Promise<void> {
  await tx.insert(refreshTokens).values({ familyId, tokenHash });
}

/** The family of a refresh token and when the token was issued (rotated or not). */
export async function findRefreshToken(
  db: Db | Tx,
  tokenHash: string,
): Promise<{ familyId: string; issuedAt: Date } | undefined> {
  const [found] = await db
    .select({ familyId: refreshTokens.familyId, issuedAt: refreshTokens.createdAt })
    .from(refreshTokens)
    .where(eq(refreshTokens.tokenHash, tokenHash));
  return found;
}

/** Marks a token rotated; false when it was rotated before (a reused token). */
export async function markRefreshTokenRotated(tx: Db | Tx, tokenHash: string): Promise<boolean> {
  const [rotated] = await tx
    .update(refreshTokens)
    .set({ rotatedAt: new Date() })
    .where(and(eq(refreshTokens.tokenHash, tokenHash), isNull(refreshTokens.rotatedAt)))
    .returning({ id: refreshTokens.id });
  return Boolean(rotated);
}
