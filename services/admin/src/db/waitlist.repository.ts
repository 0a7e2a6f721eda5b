import { and, count, desc, eq, lt, sql, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import type { WaitlistKind } from '@htm/contracts';
import { waitlistEntries } from './schema.js';
import { containsAny } from './search.js';

export type WaitlistEntry = typeof waitlistEntries.$inferSelect;
export type NewWaitlistEntry = typeof waitlistEntries.$inferInsert;

export interface WaitlistFilter {
  q?: string;
  role?: string;
  kind?: WaitlistKind;
  approved?: boolean;
}

function where(f: WaitlistFilter, extra?: SQL): SQL | undefined {
  return and(
    containsAny(f.q, [
      waitlistEntries.email,
      waitlistEntries.name,
      waitlistEntries.note,
      waitlistEntries.url,
    ]),
    f.role !== undefined ? eq(waitlistEntries.role, f.role) : undefined,
    f.kind !== undefined ? eq(waitlistEntries.kind, f.kind) : undefined,
    f.approved !== undefined ? eq(waitlistEntries.approved, f.approved) : undefined,
    extra,
  );
}

/**
 * Inserts an entry; undefined when it is a waitlist entry and the same e-mail already has one
 * with this role, or a tester signup and the same e-mail already signed up to test (whatever
 * role it picked: one signup per e-mail). Job requests are always stored (one row per request).
 * Call it inside a transaction (the signup check holds a lock on the e-mail until it commits).
 */
export async function insertWaitlistEntry(
  tx: Tx,
  values: NewWaitlistEntry,
): Promise<WaitlistEntry | undefined> {
  if (values.kind === 'job_request') {
    const [row] = await tx.insert(waitlistEntries).values(values).returning();
    return row;
  }
  if (values.kind === 'signup') {
    // Two signups of one e-mail at the same moment take turns here.
    await tx.execute(
      sql`SELECT pg_advisory_xact_lock(hashtext(${`admin:signup:${values.email}`}))`,
    );
    const [existing] = await tx
      .select({ id: waitlistEntries.id })
      .from(waitlistEntries)
      .where(and(eq(waitlistEntries.email, values.email), eq(waitlistEntries.kind, 'signup')))
      .limit(1);
    if (existing) return undefined;
  }
  const [row] = await tx
    .insert(waitlistEntries)
    .values(values)
    .onConflictDoNothing({
      target: [waitlistEntries.email, waitlistEntries.role],
      where: sql`${waitlistEntries.kind} <> 'job_request'`,
    })
    .returning();
  return row;
}

/** One page, newest first, and the total matching the filter. */
export async function pageWaitlistEntries(
  db: Db,
  f: WaitlistFilter,
  page: number,
  pageSize: number,
): Promise<{ rows: WaitlistEntry[]; total: number }> {
  const [rows, [{ n }]] = await Promise.all([
    db
      .select()
      .from(waitlistEntries)
      .where(where(f))
      .orderBy(desc(waitlistEntries.seq))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ n: count() }).from(waitlistEntries).where(where(f)),
  ]);
  return { rows, total: Number(n) };
}

/** Every matching entry, newest first, read in keyset batches (for streamed exports). */
export async function* streamWaitlistEntries(
  db: Db,
  f: WaitlistFilter,
  batchSize = 500,
): AsyncGenerator<WaitlistEntry> {
  let before: number | undefined;
  for (;;) {
    const rows = await db
      .select()
      .from(waitlistEntries)
      .where(where(f, before === undefined ? undefined : lt(waitlistEntries.seq, before)))
      .orderBy(desc(waitlistEntries.seq))
      .limit(batchSize);
    yield* rows;
    if (rows.length < batchSize) return;
    before = rows[rows.length - 1].seq;
  }
}

export async function setWaitlistApproval(
  tx: Tx | Db,
  id: string,
  approved: boolean,
): Promise<WaitlistEntry | undefined> {
  const [row] = await tx
    .update(waitlistEntries)
    .set({ approved, updatedAt: new Date() })
    .where(eq(waitlistEntries.id, id))
    .returning();
  return row;
}

export async function deleteWaitlistEntriesOfKind(
  tx: Tx | Db,
  kind: WaitlistKind,
): Promise<number> {
  const rows = await tx
    .delete(waitlistEntries)
    .where(eq(waitlistEntries.kind, kind))
    .returning({ id: waitlistEntries.id });
  return rows.length;
}

/**
 * Follows a tester's approval as identity decides it (the admin's Testers list, strikes, a
 * signup approval): the tester signups of that e-mail show the same state. Answers how many
 * entries changed.
 */
export async function followTesterApproval(
  tx: Tx | Db,
  email: string,
  approved: boolean,
): Promise<number> {
  const rows = await tx
    .update(waitlistEntries)
    .set({ approved, updatedAt: new Date() })
    .where(
      and(
        sql`lower(${waitlistEntries.email}) = lower(${email})`,
        eq(waitlistEntries.kind, 'signup'),
        sql`${waitlistEntries.role} LIKE 'Tester%'`,
        sql`${waitlistEntries.approved} IS DISTINCT FROM ${approved}`,
      ),
    )
    .returning({ id: waitlistEntries.id });
  return rows.length;
}

/** How many entries of a kind there are (the clear-all preview counts job requests). */
export async function countWaitlistEntriesOfKind(db: Tx | Db, kind: WaitlistKind): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(waitlistEntries)
    .where(eq(waitlistEntries.kind, kind));
  return Number(row?.n ?? 0);
}
