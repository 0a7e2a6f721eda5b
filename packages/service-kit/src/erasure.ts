import { eq, getTableColumns } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Tx } from './db.js';

/**
 * The common steps of every service's erasure of a deleted user ("Your data, your call":
 * UserDeleted, in the handler's transaction), declared as data and run in order:
 * - `forget`: rows that are the person's own go (DELETE where `where` is the user's id, or `is`);
 * - `pseudonymise`: records that stay (money, jobs, reports) name the pseudonym instead of the
 *   person (`where` set to the pseudonym, or `as`), with `also` (the personal fields they carried)
 *   cleared in the same UPDATE;
 * - `clear`: a row that keeps the user's id (the account itself) loses its personal fields (`set`).
 * What only one service does (files to delete after the commit, a row found by another row) stays
 * in that service's eraser, around these steps. Running the steps twice finds nothing left to change.
 */
export type ErasureStep =
  | { forget: PgTable; where: AnyPgColumn; is?: string }
  | {
      pseudonymise: PgTable;
      where: AnyPgColumn;
      as?: string;
      also?: Record<string, unknown>;
    }
  | { clear: PgTable; where: AnyPgColumn; set: Record<string, unknown> };

/** Who is erased: the account's id, and the pseudonym that replaces it in the records that stay. */
export interface ErasedUser {
  userId: string;
  pseudonym: string;
}

/** The property name under which `table` declares `column` (what drizzle's `set()` is keyed by). */
function keyOf(table: PgTable, column: AnyPgColumn): string {
  const found = Object.entries(getTableColumns(table)).find(([, c]) => c === column);
  if (!found) throw new Error(`column ${column.name} is not a column of this table`);
  return found[0];
}

/** Runs the steps in order, in the caller's transaction. */
export async function eraseUser(
  tx: Tx,
  user: ErasedUser,
  steps: readonly ErasureStep[],
): Promise<void> {
  for (const step of steps) {
    if ('forget' in step) {
      await tx.delete(step.forget).where(eq(step.where, step.is ?? user.userId));
    } else if ('pseudonymise' in step) {
      await tx
        .update(step.pseudonymise)
        .set({ [keyOf(step.pseudonymise, step.where)]: step.as ?? user.pseudonym, ...step.also })
        .where(eq(step.where, user.userId));
    } else {
      await tx.update(step.clear).set(step.set).where(eq(step.where, user.userId));
    }
  }
}
