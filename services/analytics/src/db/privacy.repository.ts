import { eq } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { eraseUser, type ErasedUser } from '@htm/service-kit/erasure';
import { testers } from './schema.js';

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

export async function eraseAnalyticsUser(tx: Tx, user: ErasedUser): Promise<void> {
  await eraseUser(tx, user, [{ forget: testers, where: testers.userId }]);
}
