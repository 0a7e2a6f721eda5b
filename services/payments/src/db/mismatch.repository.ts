import { desc } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit';
import { paymentMismatches } from './schema.js';

type Exec = Db | Tx;
export type PaymentMismatch = typeof paymentMismatches.$inferSelect;

/** Records a paid checkout whose amount or currency was not the session's (once per session and amount). */
export async function recordMismatch(db: Exec, row: typeof paymentMismatches.$inferInsert): Promise<void> {
  await db.insert(paymentMismatches).values(row).onConflictDoNothing();
}

export async function listMismatches(db: Exec, limit = 50): Promise<PaymentMismatch[]> {
  return db.select().from(paymentMismatches).orderBy(desc(paymentMismatches.recordedAt)).limit(limit);
}
