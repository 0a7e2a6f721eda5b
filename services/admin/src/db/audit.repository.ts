import { and, count, desc, eq, gte, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { auditLog, clearConfirmations } from './schema.js';

export type AuditRow = typeof auditLog.$inferSelect;
export type NewAuditRow = typeof auditLog.$inferInsert;

/** Appends one row; a second row for the same event id is ignored (redelivery). INSERT only. */
export async function appendAudit(tx: Tx | Db, row: NewAuditRow): Promise<void> {
  await tx.insert(auditLog).values(row).onConflictDoNothing({ target: auditLog.eventId });
}

export interface AuditFilter {
  action?: string;
  actor?: string;
  target?: string;
  from?: string;
  to?: string;
}

function where(f: AuditFilter, extra?: SQL): SQL | undefined {
  return and(
    f.action ? eq(auditLog.action, f.action) : undefined,
    f.actor ? eq(auditLog.actorId, f.actor) : undefined,
    f.target ? eq(auditLog.target, f.target) : undefined,
    f.from ? gte(auditLog.at, new Date(f.from)) : undefined,
    f.to ? lte(auditLog.at, new Date(f.to)) : undefined,
    extra,
  );
}

export async function pageAudit(
  db: Db,
  f: AuditFilter,
  page: number,
  pageSize: number,
): Promise<{ rows: AuditRow[]; total: number }> {
  const [rows, [{ n }]] = await Promise.all([
    db
      .select()
      .from(auditLog)
      .where(where(f))
      .orderBy(desc(auditLog.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ n: count() }).from(auditLog).where(where(f)),
  ]);
  return { rows, total: Number(n) };
}

/** Every matching row, newest first, read in keyset batches (CSV export). */
export async function* streamAudit(
  db: Db,
  f: AuditFilter,
  batchSize = 500,
): AsyncGenerator<AuditRow> {
  let before: number | undefined;
  for (;;) {
    const rows = await db
      .select()
      .from(auditLog)
      .where(where(f, before === undefined ? undefined : lt(auditLog.id, before)))
      .orderBy(desc(auditLog.id))
      .limit(batchSize);
    yield* rows;
    if (rows.length < batchSize) return;
    before = rows[rows.length - 1].id;
  }
}

export async function saveClearConfirmation(
  db: Db,
  c: typeof clearConfirmations.$inferInsert,
): Promise<void> {
  await db.insert(clearConfirmations).values(c);
}

/**
 * Uses a confirmation: one conditional UPDATE, so of two requests with the same token one wins.
 * Answers the confirmed preview, or undefined (unknown, expired, used, or another admin's).
 */
export async function useClearConfirmation(
  db: Db,
  tokenHash: string,
  adminId: string,
): Promise<{ fingerprint: string; preview: Record<string, unknown> } | undefined> {
  const [row] = await db
    .update(clearConfirmations)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(clearConfirmations.tokenHash, tokenHash),
        eq(clearConfirmations.adminId, adminId),
        sql`${clearConfirmations.usedAt} IS NULL`,
        sql`${clearConfirmations.expiresAt} > now()`,
      ),
    )
    .returning({
      fingerprint: clearConfirmations.fingerprint,
      preview: clearConfirmations.preview,
    });
  return row;
}

/** Forgets confirmations that ended more than a day ago. */
export async function pruneClearConfirmations(db: Db): Promise<void> {
  await db
    .delete(clearConfirmations)
    .where(sql`${clearConfirmations.expiresAt} < now() - interval '1 day'`);
}
