import { eq } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { handledEvents, testers } from './schema.js';

/** All SQL of the analytics part of "Your data, your call": only testers are kept per person; the rest are day counts. */

export async function readAnalyticsPart(
  db: Db | Tx,
  userId: string,
): Promise<Record<string, unknown>> {
  const [tester] = await db.select().from(testers).where(eq(testers.userId, userId));
  return {
    tester: tester ?? null,
    note: 'Everything else analytics keeps is counted per day, not per person.',
  };
}

export async function eraseAnalyticsUser(tx: Tx, userId: string): Promise<void> {
  await tx.delete(testers).where(eq(testers.userId, userId));
}

export async function wasHandled(db: Db, eventId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: handledEvents.eventId })
    .from(handledEvents)
    .where(eq(handledEvents.eventId, eventId));
  return Boolean(row);
}
