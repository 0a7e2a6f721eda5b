import { and, desc, eq, gt, inArray, lt, lte, ne, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { eraseUser, type ErasedUser } from '@htm/service-kit/erasure';
import {
  accountDeletions,
  dataExports,
  exportChunks,
  pendingSignups,
  refreshFamilies,
  refreshTokens,
  signinSessions,
  testerRatings,
  testerStrikes,
  type AccountDeletionRow,
  type DataExportRow,
  users,
} from './schema.js';

/** All SQL of "Download my data" and "Delete my account" in identity. */

export type { AccountDeletionRow, DataExportRow };

// ---- exports ----

export async function latestExport(
  db: Db | Tx,
  userId: string,
): Promise<DataExportRow | undefined> {
  const [row] = await db
    .select()
    .from(dataExports)
    .where(eq(dataExports.userId, userId))
    .orderBy(desc(dataExports.requestedAt))
    .limit(1);
  return row;
}

export async function findExport(db: Db | Tx, id: string): Promise<DataExportRow | undefined> {
  const [row] = await db.select().from(dataExports).where(eq(dataExports.id, id));
  return row;
}

/** The user's exports, locked (one request at a time per user decides the daily limit). */
export async function lockUserExports(tx: Tx, userId: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`data-export:${userId}`}))`);
}

export async function insertExport(
  tx: Tx,
  row: { userId: string; partsTotal: number; requestedBy: string | null },
): Promise<DataExportRow> {
  const [created] = await tx.insert(dataExports).values(row).returning();
  return created;
}

/**
 * Takes one export to build: a pending one (after a failed try, once `attempts` minutes have
 * passed: a service down for a while is waited for), or one whose builder stopped (building for
 * longer than `staleMs`, e.g. a restart). The conditional UPDATE makes one replica win it.
 */
export async function claimExport(db: Db, staleMs: number): Promise<DataExportRow | undefined> {
  const [row] = await db
    .update(dataExports)
    .set({
      status: 'building',
      startedAt: new Date(),
      partsDone: [],
      attempts: sql`${dataExports.attempts} + 1`,
    })
    .where(
      eq(
        dataExports.id,
        sql`(SELECT id FROM ${dataExports} WHERE (status = 'pending' AND (started_at IS NULL OR started_at < now() - attempts * interval '1 minute')) OR (status = 'building' AND started_at < ${new Date(Date.now() - staleMs)}) ORDER BY requested_at LIMIT 1 FOR UPDATE SKIP LOCKED)`,
      ),
    )
    .returning();
  return row;
}

export async function setExportProgress(db: Db, id: string, partsDone: string[]): Promise<void> {
  await db
    .update(dataExports)
    .set({ partsDone })
    .where(and(eq(dataExports.id, id), eq(dataExports.status, 'building')));
}

export async function markExportReady(
  tx: Tx | Db,
  id: string,
  v: { sizeBytes: number; expiresAt: Date },
): Promise<DataExportRow | undefined> {
  const [row] = await tx
    .update(dataExports)
    .set({
      status: 'ready',
      readyAt: new Date(),
      expiresAt: v.expiresAt,
      sizeBytes: v.sizeBytes,
      error: null,
    })
    .where(and(eq(dataExports.id, id), eq(dataExports.status, 'building')))
    .returning();
  return row;
}

/** A failed build goes back to pending (tried again by the next sweep) until `maxAttempts`, then failed. */
export async function markExportFailed(
  db: Db,
  id: string,
  error: string,
  maxAttempts: number,
): Promise<void> {
  await db
    .update(dataExports)
    .set({
      status: sql`CASE WHEN ${dataExports.attempts} >= ${maxAttempts} THEN 'failed' ELSE 'pending' END`,
      error: error.slice(0, 500),
    })
    .where(and(eq(dataExports.id, id), eq(dataExports.status, 'building')));
}

/** Ready exports past their link's expiry: marked expired (the caller deletes the files). */
export async function expireExports(db: Db, now: Date): Promise<string[]> {
  const rows = await db
    .update(dataExports)
    .set({ status: 'expired' })
    .where(and(eq(dataExports.status, 'ready'), lt(dataExports.expiresAt, now)))
    .returning({ id: dataExports.id });
  return rows.map((r) => r.id);
}

/** The user's exports not expired yet (their files are deleted with the account). */
export async function endUserExports(tx: Tx, userId: string): Promise<string[]> {
  const rows = await tx
    .update(dataExports)
    .set({ status: 'expired' })
    .where(and(eq(dataExports.userId, userId), ne(dataExports.status, 'expired')))
    .returning({ id: dataExports.id });
  return rows.map((r) => r.id);
}

export function listOpenExports(
  db: Db,
  since: Date,
): Promise<Array<DataExportRow & { email: string | null }>> {
  return db
    .select({ ...exportColumns(), email: users.email })
    .from(dataExports)
    .leftJoin(users, eq(users.id, dataExports.userId))
    .where(
      or(inArray(dataExports.status, ['pending', 'building']), gt(dataExports.requestedAt, since)),
    )
    .orderBy(desc(dataExports.requestedAt))
    .limit(200);
}

function exportColumns() {
  const {
    id,
    userId,
    status,
    partsDone,
    partsTotal,
    requestedBy,
    sizeBytes,
    error,
    attempts,
    requestedAt,
    startedAt,
    readyAt,
    expiresAt,
  } = dataExports;
  return {
    id,
    userId,
    status,
    partsDone,
    partsTotal,
    requestedBy,
    sizeBytes,
    error,
    attempts,
    requestedAt,
    startedAt,
    readyAt,
    expiresAt,
  };
}

// ---- deletions ----

export async function openDeletion(
  db: Db | Tx,
  userId: string,
): Promise<AccountDeletionRow | undefined> {
  const [row] = await db
    .select()
    .from(accountDeletions)
    .where(
      and(
        eq(accountDeletions.userId, userId),
        inArray(accountDeletions.status, ['scheduled', 'erasing']),
      ),
    );
  return row;
}

export async function latestDeletion(
  db: Db | Tx,
  userId: string,
): Promise<AccountDeletionRow | undefined> {
  const [row] = await db
    .select()
    .from(accountDeletions)
    .where(eq(accountDeletions.userId, userId))
    .orderBy(desc(accountDeletions.requestedAt))
    .limit(1);
  return row;
}

/** Schedules a deletion; undefined when one is already open (the unique index). */
export async function insertDeletion(
  tx: Tx,
  row: { userId: string; dueAt: Date; requestedBy: string | null },
): Promise<AccountDeletionRow | undefined> {
  const [created] = await tx.insert(accountDeletions).values(row).onConflictDoNothing().returning();
  return created;
}

/** Cancels the user's scheduled deletion (not one already erasing); answers it, or undefined. */
export async function cancelScheduledDeletion(
  tx: Tx,
  userId: string,
): Promise<AccountDeletionRow | undefined> {
  const [row] = await tx
    .update(accountDeletions)
    .set({ status: 'cancelled', cancelledAt: new Date() })
    .where(and(eq(accountDeletions.userId, userId), eq(accountDeletions.status, 'scheduled')))
    .returning();
  return row;
}

/** One due deletion, locked for this transaction (other replicas skip it). */
export async function lockDueDeletion(tx: Tx, now: Date): Promise<AccountDeletionRow | undefined> {
  const [row] = await tx
    .select()
    .from(accountDeletions)
    .where(and(eq(accountDeletions.status, 'scheduled'), lte(accountDeletions.dueAt, now)))
    .orderBy(accountDeletions.dueAt)
    .limit(1)
    .for('update', { skipLocked: true });
  return row;
}

export async function markDeletionErasing(
  tx: Tx,
  id: string,
  v: { pseudonym: string; eventId: string },
): Promise<void> {
  await tx
    .update(accountDeletions)
    .set({
      status: 'erasing',
      pseudonym: v.pseudonym,
      eventId: v.eventId,
      erasedAt: new Date(),
      servicesDone: ['identity'],
    })
    .where(eq(accountDeletions.id, id));
}

export function listErasingDeletions(db: Db): Promise<AccountDeletionRow[]> {
  return db
    .select()
    .from(accountDeletions)
    .where(eq(accountDeletions.status, 'erasing'))
    .limit(100);
}

export async function setDeletionProgress(
  db: Db,
  id: string,
  servicesDone: string[],
  completed: boolean,
): Promise<void> {
  await db
    .update(accountDeletions)
    .set({
      servicesDone,
      ...(completed ? { status: 'completed' as const, completedAt: new Date() } : {}),
    })
    .where(and(eq(accountDeletions.id, id), eq(accountDeletions.status, 'erasing')));
}

export function listOpenDeletions(
  db: Db,
  since: Date,
): Promise<Array<AccountDeletionRow & { email: string | null }>> {
  const {
    id,
    userId,
    status,
    requestedBy,
    requestedAt,
    dueAt,
    cancelledAt,
    pseudonym,
    eventId,
    servicesDone,
    erasedAt,
    completedAt,
  } = accountDeletions;
  return db
    .select({
      id,
      userId,
      status,
      requestedBy,
      requestedAt,
      dueAt,
      cancelledAt,
      pseudonym,
      eventId,
      servicesDone,
      erasedAt,
      completedAt,
      email: users.email,
    })
    .from(accountDeletions)
    .leftJoin(users, eq(users.id, accountDeletions.userId))
    .where(
      or(
        inArray(accountDeletions.status, ['scheduled', 'erasing']),
        gt(accountDeletions.requestedAt, since),
      ),
    )
    .orderBy(desc(accountDeletions.requestedAt))
    .limit(200);
}

// ---- the user's own data (export and erasure) ----

/** Everything identity stores about the user, for the export (no secrets: token hashes are left out). */
export async function readIdentityPart(
  db: Db | Tx,
  userId: string,
): Promise<Record<string, unknown>> {
  const [profile] = await db.select().from(users).where(eq(users.id, userId));
  const families = await db
    .select({
      id: refreshFamilies.id,
      createdAt: refreshFamilies.createdAt,
      expiresAt: refreshFamilies.expiresAt,
      revokedAt: refreshFamilies.revokedAt,
      revokedReason: refreshFamilies.revokedReason,
      userAgent: refreshFamilies.userAgent,
    })
    .from(refreshFamilies)
    .where(eq(refreshFamilies.userId, userId))
    .orderBy(desc(refreshFamilies.createdAt));
  const strikes = await db
    .select({
      jobId: testerStrikes.jobId,
      reason: testerStrikes.reason,
      createdAt: testerStrikes.createdAt,
    })
    .from(testerStrikes)
    .where(eq(testerStrikes.testerId, userId));
  const ratings = await db.select().from(testerRatings).where(eq(testerRatings.testerId, userId));
  const exportsAsked = await db
    .select(exportColumns())
    .from(dataExports)
    .where(eq(dataExports.userId, userId));
  const deletions = await db
    .select()
    .from(accountDeletions)
    .where(eq(accountDeletions.userId, userId));
  const p = profile ? { ...profile, googleSub: undefined } : null;
  return {
    profile: p,
    sign_in_sessions: families,
    strikes,
    ratings_received: ratings,
    data_exports: exportsAsked,
    account_deletions: deletions,
  };
}

/**
 * Erases the user in identity: the account row keeps its id (other services' records point at
 * it) with every personal field replaced, so the Google account no longer signs into it;
 * sign-ins, sign-in handles and strikes are deleted. Ratings keep only their stars.
 */
export async function eraseIdentityUser(tx: Tx, user: ErasedUser): Promise<void> {
  const { userId, pseudonym } = user;
  // A landing signup still waiting for approval is kept by e-mail: it goes with the account.
  const [before] = await tx.select({ email: users.email }).from(users).where(eq(users.id, userId));
  if (before) await tx.delete(pendingSignups).where(eq(pendingSignups.email, before.email));
  const families = await tx
    .select({ id: refreshFamilies.id })
    .from(refreshFamilies)
    .where(eq(refreshFamilies.userId, userId));
  if (families.length)
    await tx.delete(refreshTokens).where(
      inArray(
        refreshTokens.familyId,
        families.map((f) => f.id),
      ),
    );
  await eraseUser(tx, user, [
    {
      clear: users,
      where: users.id,
      set: {
        googleSub: `deleted:${pseudonym}`,
        email: `deleted-${pseudonym}@deleted.invalid`,
        name: 'Deleted user',
        location: null,
        country: null,
        approved: false,
        assistiveTech: [],
        updatedAt: new Date(),
      },
    },
    { forget: refreshFamilies, where: refreshFamilies.userId },
    { forget: signinSessions, where: signinSessions.userId },
    { forget: testerStrikes, where: testerStrikes.testerId },
  ]);
}

/** True when the row is an erased account (sign-ins of a stale handle are refused). */
export function isErased(u: { googleSub: string }): boolean {
  return u.googleSub.startsWith('deleted:');
}

/** The bytes of finished exports: one row per MiB, read back in order by the download. */
export async function replaceExportChunks(
  db: Db,
  exportId: string,
  chunks: AsyncIterable<Buffer>,
): Promise<number> {
  await db.delete(exportChunks).where(eq(exportChunks.exportId, exportId));
  let seq = 0;
  let size = 0;
  for await (const data of chunks) {
    await db.insert(exportChunks).values({ exportId, seq: seq++, data });
    size += data.length;
  }
  return size;
}

export async function readExportChunk(
  db: Db,
  exportId: string,
  seq: number,
): Promise<Buffer | undefined> {
  const [row] = await db
    .select({ data: exportChunks.data })
    .from(exportChunks)
    .where(and(eq(exportChunks.exportId, exportId), eq(exportChunks.seq, seq)));
  return row?.data;
}

export async function deleteExportChunks(db: Db | Tx, exportIds: readonly string[]): Promise<void> {
  if (exportIds.length)
    await db.delete(exportChunks).where(inArray(exportChunks.exportId, [...exportIds]));
}
