import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit';
import { payoutAccounts, payoutAttempts } from './schema.js';

type Exec = Db | Tx;
export type PayoutAccountRow = typeof payoutAccounts.$inferSelect;
export type PayoutAttemptRow = typeof payoutAttempts.$inferSelect;

export async function findPayoutAccount(
  db: Exec,
  testerId: string,
): Promise<PayoutAccountRow | undefined> {
  const [row] = await db.select().from(payoutAccounts).where(eq(payoutAccounts.testerId, testerId));
  return row;
}

/** Stores the tester's connected account once (a second one for the same tester is ignored). */
export async function insertPayoutAccount(
  db: Exec,
  values: { testerId: string; provider: string; accountId: string; ready: boolean },
): Promise<void> {
  await db
    .insert(payoutAccounts)
    .values({
      testerId: values.testerId,
      provider: values.provider,
      accountId: values.accountId,
      status: values.ready ? 'ready' : 'pending',
    })
    .onConflictDoNothing({ target: payoutAccounts.testerId });
}

/** The provider says the account can receive transfers now. */
export async function markPayoutAccountReady(
  db: Exec,
  testerId: string,
): Promise<PayoutAccountRow | undefined> {
  const [row] = await db
    .update(payoutAccounts)
    .set({ status: 'ready', updatedAt: new Date() })
    .where(eq(payoutAccounts.testerId, testerId))
    .returning();
  return row;
}

/**
 * An earning's transfer attempt, committed before the provider is called: the first creates it
 * with its idempotency key; a re-run starts it again (tries + 1) with the key it has.
 */
export async function startPayoutAttempt(
  db: Exec,
  values: {
    earningId: string;
    testerId: string;
    jobId: string;
    amountCents: number;
    accountId: string;
    idempotencyKey: string;
  },
): Promise<PayoutAttemptRow> {
  const [row] = await db
    .insert(payoutAttempts)
    .values(values)
    .onConflictDoUpdate({
      target: payoutAttempts.earningId,
      set: { status: 'started', tries: sql`${payoutAttempts.tries} + 1`, updatedAt: new Date() },
    })
    .returning();
  return row;
}

/** The transfer failed: the error is kept, with the key the next attempt must use (a new key dates from now). */
export async function failPayoutAttempt(
  db: Exec,
  attempt: Pick<PayoutAttemptRow, 'id' | 'idempotencyKey'>,
  lastError: string,
  nextKey: string,
): Promise<void> {
  await db
    .update(payoutAttempts)
    .set({
      status: 'failed',
      lastError,
      idempotencyKey: nextKey,
      ...(nextKey !== attempt.idempotencyKey ? { keyCreatedAt: new Date() } : {}),
      updatedAt: new Date(),
    })
    .where(eq(payoutAttempts.id, attempt.id));
}

/** The transfer was made (in the transaction that writes its payout entry). */
export async function succeedPayoutAttempt(
  tx: Exec,
  attemptId: string,
  transferId: string,
  at: Date,
): Promise<void> {
  await tx
    .update(payoutAttempts)
    .set({ status: 'succeeded', transferId, lastError: null, updatedAt: at })
    .where(eq(payoutAttempts.id, attemptId));
}
