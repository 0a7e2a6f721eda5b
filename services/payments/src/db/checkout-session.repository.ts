import { and, eq, ne } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit';
import { checkoutSessions, providerEvents } from './schema.js';

type Exec = Db | Tx;
export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect;
export type NewCheckoutSession = typeof checkoutSessions.$inferInsert;

/** Stores a provider event's id; false when it was stored before (a duplicate or redelivery). */
export async function recordProviderEvent(
  tx: Exec,
  event: { id: string; type: string; objectId: string | null },
): Promise<boolean> {
  const stored = await tx
    .insert(providerEvents)
    .values({ id: event.id, type: event.type, objectId: event.objectId })
    .onConflictDoNothing()
    .returning({ id: providerEvents.id });
  return stored.length > 0;
}

export async function findCheckoutSession(
  db: Exec,
  sessionId: string,
): Promise<CheckoutSessionRow | undefined> {
  const [row] = await db.select().from(checkoutSessions).where(eq(checkoutSessions.id, sessionId));
  return row;
}

/** The job's one open (payable) session, if any. */
export async function findOpenCheckoutSession(
  db: Exec,
  jobId: string,
): Promise<CheckoutSessionRow | undefined> {
  const [row] = await db
    .select()
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.jobId, jobId), eq(checkoutSessions.status, 'open')));
  return row;
}

/**
 * Stores a new open session. Does nothing on a conflict: on the id (the same attempt asked
 * again) or on the partial unique index "one open session per job".
 */
export async function insertOpenCheckoutSession(
  db: Exec,
  values: NewCheckoutSession,
): Promise<void> {
  await db.insert(checkoutSessions).values(values).onConflictDoNothing();
}

/** Keeps a record of a surplus session (another request opened one for the job first), already closed. */
export async function insertSurplusCheckoutSession(
  db: Exec,
  values: NewCheckoutSession,
  closedAt = new Date(),
): Promise<void> {
  await db
    .insert(checkoutSessions)
    .values({ ...values, status: 'expired', closedAt })
    .onConflictDoNothing();
}

/** The session is paid (a paid session stays paid: nothing changes when it already is). */
export async function markCheckoutSessionPaid(
  tx: Exec,
  sessionId: string,
  paidAt: Date,
): Promise<void> {
  await tx
    .update(checkoutSessions)
    .set({ status: 'paid', paidAt })
    .where(and(eq(checkoutSessions.id, sessionId), ne(checkoutSessions.status, 'paid')));
}

/** An open session expired or was cancelled; answers the row when it was open, else undefined. */
export async function closeOpenCheckoutSession(
  tx: Exec,
  sessionId: string,
  reason: 'cancelled' | 'expired',
  closedAt = new Date(),
): Promise<CheckoutSessionRow | undefined> {
  const [row] = await tx
    .update(checkoutSessions)
    .set({ status: reason, closedAt })
    .where(and(eq(checkoutSessions.id, sessionId), eq(checkoutSessions.status, 'open')))
    .returning();
  return row;
}
