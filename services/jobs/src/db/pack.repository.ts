import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import {
  jobs,
  packMembers,
  packs,
  submissions,
  type JobRow,
  type PackRow,
  type SubmissionRow,
} from './schema.js';
import { isUuid } from './job.repository.js';

type Q = Db | Tx;

export async function insertPack(
  tx: Tx,
  values: { posterId: string; size: number; createdAt: Date },
): Promise<PackRow> {
  const [row] = await tx.insert(packs).values(values).returning();
  return row;
}

export async function findPack(db: Q, id: string): Promise<PackRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await db.select().from(packs).where(eq(packs.id, id)).limit(1);
  return row;
}

/** The pack's jobs in slot order (by id: the first is the one the checkout session is for). */
export async function listPackJobs(db: Q, packId: string): Promise<JobRow[]> {
  return db.select().from(jobs).where(eq(jobs.packId, packId)).orderBy(asc(jobs.id));
}

/**
 * Records that the tester holds a slot of the pack (in the claim's transaction). False when they
 * hold or held one already: the primary key (pack, tester) decides, races included.
 */
export async function joinPack(
  tx: Tx,
  m: { packId: string; testerId: string; jobId: string },
): Promise<boolean> {
  const rows = await tx
    .insert(packMembers)
    .values(m)
    .onConflictDoNothing()
    .returning({ jobId: packMembers.jobId });
  return rows.length > 0;
}

/** Packs this tester holds or held a slot of (left out of their available jobs). */
export async function packsOfTester(db: Q, testerId: string): Promise<string[]> {
  const rows = await db
    .select({ packId: packMembers.packId })
    .from(packMembers)
    .where(eq(packMembers.testerId, testerId));
  return rows.map((r) => r.packId);
}

/** Another paid open slot of the pack (a claim of a slot just taken moves to it), or undefined. */
export async function findOpenSlot(
  db: Q,
  packId: string,
  exceptJobId: string,
): Promise<string | undefined> {
  const [row] = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(
      and(
        eq(jobs.packId, packId),
        eq(jobs.status, 'open'),
        eq(jobs.paymentStatus, 'paid'),
        sql`${jobs.id} <> ${exceptJobId}`,
      ),
    )
    .orderBy(asc(jobs.id))
    .limit(1);
  return row?.id;
}

/** The current submission of each job that has one. */
export async function currentSubmissions(db: Q, list: JobRow[]): Promise<SubmissionRow[]> {
  const ids = list.map((j) => j.currentSubmissionId).filter((id): id is string => !!id);
  if (!ids.length) return [];
  // A report held by its session check stays out of the pack's grouping until it is released.
  return db
    .select()
    .from(submissions)
    .where(and(inArray(submissions.id, ids), eq(submissions.held, false)));
}

/** Marks every unpaid, open, not yet deleted job of the pack deleted; how many. */
export async function markUnpaidPackDeleted(db: Q, packId: string): Promise<number> {
  const rows = await db
    .update(jobs)
    .set({ deletedAt: new Date() })
    .where(
      and(
        eq(jobs.packId, packId),
        eq(jobs.paymentStatus, 'unpaid'),
        eq(jobs.status, 'open'),
        isNull(jobs.deletedAt),
      ),
    )
    .returning({ id: jobs.id });
  return rows.length;
}

/** Remembers the pack's latest checkout session on each of its jobs. */
export async function setPackCheckoutSession(
  db: Q,
  packId: string,
  sessionId: string,
): Promise<void> {
  await db.update(jobs).set({ checkoutSessionId: sessionId }).where(eq(jobs.packId, packId));
}

/** Clear-all: every pack and membership goes with the jobs. */
export async function deleteAllPacks(tx: Tx): Promise<void> {
  await tx.delete(packMembers);
  await tx.delete(packs);
}
