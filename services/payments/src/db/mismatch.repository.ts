import { desc } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit';
import { earningMismatches, paymentMismatches } from './schema.js';

type Exec = Db | Tx;
export type PaymentMismatch = typeof paymentMismatches.$inferSelect;
export type EarningMismatch = typeof earningMismatches.$inferSelect;

/** Records a paid checkout whose amount or currency was not the session's (once per session and amount). */
export async function recordMismatch(
  db: Exec,
  row: typeof paymentMismatches.$inferInsert,
): Promise<void> {
  await db.insert(paymentMismatches).values(row).onConflictDoNothing();
}

export async function listMismatches(db: Exec, limit = 50): Promise<PaymentMismatch[]> {
  return db
    .select()
    .from(paymentMismatches)
    .orderBy(desc(paymentMismatches.recordedAt))
    .limit(limit);
}

/** Records an acceptance the ledger refused to pay (no booked payment for the job), once per job. */
export async function recordEarningMismatch(
  db: Exec,
  row: typeof earningMismatches.$inferInsert,
): Promise<void> {
  await db.insert(earningMismatches).values(row).onConflictDoNothing();
}

export async function listEarningMismatches(db: Exec, limit = 50): Promise<EarningMismatch[]> {
  return db
    .select()
    .from(earningMismatches)
    .orderBy(desc(earningMismatches.recordedAt))
    .limit(limit);
}
