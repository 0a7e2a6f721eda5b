import { and, eq, ne, or } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import {
  checkoutSessions,
  localProviderRefunds,
  localProviderSessions,
  localProviderTransfers,
} from './schema.js';

/** The local provider's own sessions (it plays Stripe's part with its own tables). */
export type LocalSessionRow = typeof localProviderSessions.$inferSelect;
export type NewLocalSession = typeof localProviderSessions.$inferInsert;

/** Stores a new local session unless one exists with its idempotency key; answers the key's session. */
export async function createLocalSession(
  db: Db,
  values: NewLocalSession,
): Promise<LocalSessionRow> {
  await db
    .insert(localProviderSessions)
    .values(values)
    .onConflictDoNothing({ target: localProviderSessions.idempotencyKey });
  // Same idempotency key -> the session created the first time (as Stripe answers).
  const [row] = await db
    .select()
    .from(localProviderSessions)
    .where(eq(localProviderSessions.idempotencyKey, values.idempotencyKey));
  return row;
}

export async function findLocalSession(
  db: Db | Tx,
  id: string,
): Promise<LocalSessionRow | undefined> {
  const [row] = await db
    .select()
    .from(localProviderSessions)
    .where(eq(localProviderSessions.id, id));
  return row;
}

/** An open session expires (like Stripe's expire); others are left as they are. */
export async function expireLocalSession(db: Db, id: string): Promise<void> {
  await db
    .update(localProviderSessions)
    .set({ status: 'expired' })
    .where(and(eq(localProviderSessions.id, id), eq(localProviderSessions.status, 'open')));
}

/** The payer clicked Pay: an open session completes, paid. Undefined when it was not open. */
export async function completeLocalSession(
  db: Db,
  id: string,
): Promise<LocalSessionRow | undefined> {
  const [row] = await db
    .update(localProviderSessions)
    .set({ status: 'complete', paymentStatus: 'paid' })
    .where(and(eq(localProviderSessions.id, id), eq(localProviderSessions.status, 'open')))
    .returning();
  return row;
}

/** The payer clicked Cancel: an open session expires at once. Undefined when it was not open. */
export async function cancelLocalSession(db: Db, id: string): Promise<LocalSessionRow | undefined> {
  const [row] = await db
    .update(localProviderSessions)
    .set({ status: 'expired', cancelledByUser: 'poster' })
    .where(and(eq(localProviderSessions.id, id), eq(localProviderSessions.status, 'open')))
    .returning();
  return row;
}

/** Stores a simulated refund unless one exists with its idempotency key; answers the key's refund id. */
export async function createLocalRefund(
  db: Db | Tx,
  values: typeof localProviderRefunds.$inferInsert,
): Promise<string> {
  await db
    .insert(localProviderRefunds)
    .values(values)
    .onConflictDoNothing({ target: localProviderRefunds.idempotencyKey });
  const [row] = await db
    .select({ id: localProviderRefunds.id })
    .from(localProviderRefunds)
    .where(eq(localProviderRefunds.idempotencyKey, values.idempotencyKey));
  return row.id;
}

/** Stores a simulated transfer once (its id is derived from its idempotency key). */
export async function createLocalTransfer(
  db: Db,
  values: typeof localProviderTransfers.$inferInsert,
): Promise<void> {
  await db.insert(localProviderTransfers).values(values).onConflictDoNothing();
}

/**
 * Local checkouts the provider side has settled (paid, or cancelled/expired) that our side has
 * not recorded yet: a crash between committing the local payment and delivering its webhook.
 */
export async function localSessionsOutOfStep(db: Db, limit = 1000): Promise<string[]> {
  const rows = await db
    .select({ id: localProviderSessions.id })
    .from(localProviderSessions)
    .innerJoin(checkoutSessions, eq(checkoutSessions.id, localProviderSessions.id))
    .where(
      or(
        and(eq(localProviderSessions.paymentStatus, 'paid'), ne(checkoutSessions.status, 'paid')),
        and(eq(localProviderSessions.status, 'expired'), eq(checkoutSessions.status, 'open')),
      ),
    )
    .limit(limit);
  return rows.map((r) => r.id);
}
