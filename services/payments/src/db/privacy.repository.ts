import { eq, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import {
  cashOuts,
  checkoutSessions,
  earningMismatches,
  handledEvents,
  ledgerEntries,
  localProviderSessions,
  payoutAccounts,
  payoutAttempts,
} from './schema.js';

/** All SQL of the payments part of "Your data, your call". */

export async function readPaymentsPart(
  db: Db | Tx,
  userId: string,
): Promise<Record<string, unknown>> {
  const ledger = await db
    .select()
    .from(ledgerEntries)
    .where(or(eq(ledgerEntries.testerId, userId), eq(ledgerEntries.posterId, userId)))
    .orderBy(ledgerEntries.occurredAt);
  const account = await db.select().from(payoutAccounts).where(eq(payoutAccounts.testerId, userId));
  const attempts = await db
    .select({
      id: payoutAttempts.id,
      jobId: payoutAttempts.jobId,
      amountCents: payoutAttempts.amountCents,
      status: payoutAttempts.status,
      transferId: payoutAttempts.transferId,
      createdAt: payoutAttempts.createdAt,
    })
    .from(payoutAttempts)
    .where(eq(payoutAttempts.testerId, userId));
  const checkouts = await db
    .select({
      id: checkoutSessions.id,
      jobId: checkoutSessions.jobId,
      title: checkoutSessions.title,
      amountCents: checkoutSessions.amountCents,
      currency: checkoutSessions.currency,
      status: checkoutSessions.status,
      createdAt: checkoutSessions.createdAt,
      paidAt: checkoutSessions.paidAt,
    })
    .from(checkoutSessions)
    .where(eq(checkoutSessions.posterId, userId));
  const cashOutsOf = await db
    .select({
      id: cashOuts.id,
      amountCents: cashOuts.amountCents,
      status: cashOuts.status,
      transferId: cashOuts.transferId,
      createdAt: cashOuts.createdAt,
      paidAt: cashOuts.paidAt,
    })
    .from(cashOuts)
    .where(eq(cashOuts.testerId, userId));
  return {
    ledger_entries: ledger,
    cash_outs: cashOutsOf,
    earnings_and_payouts: ledger.filter((e) => e.kind === 'tester_earning' || e.kind === 'payout'),
    payments_made: ledger.filter(
      (e) =>
        e.posterId === userId &&
        (e.kind === 'payment' || e.kind === 'refund' || e.kind === 'duplicate_payment'),
    ),
    payout_account: account[0] ?? null,
    payout_attempts: attempts,
    checkouts,
  };
}

/** Cents the tester earned that no payout has paid yet, and whether a payout account can receive them. */
export async function owedTo(
  db: Db | Tx,
  userId: string,
): Promise<{ pendingCents: number; payable: boolean }> {
  const r = await db.execute(sql`
    SELECT COALESCE(SUM(e.amount_cents), 0)::bigint AS pending
    FROM payments.ledger_entries e
    LEFT JOIN payments.ledger_entries p ON p.kind = 'payout' AND p.earning_id = e.id
    WHERE e.kind = 'tester_earning' AND e.tester_id = ${userId} AND p.id IS NULL`);
  const rows = (
    Array.isArray(r) ? r : (r as { rows: Array<{ pending: string | number }> }).rows
  ) as Array<{ pending: string | number }>;
  const [account] = await db
    .select({ status: payoutAccounts.status })
    .from(payoutAccounts)
    .where(eq(payoutAccounts.testerId, userId));
  return { pendingCents: Number(rows[0]?.pending ?? 0), payable: account?.status === 'ready' };
}

export async function wasHandled(db: Db, eventId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: handledEvents.eventId })
    .from(handledEvents)
    .where(eq(handledEvents.eventId, eventId));
  return Boolean(row);
}

/**
 * Anonymises the user in payments (UserDeleted's transaction): the ledger is the accounting
 * record, so every entry stays, amounts untouched, with the person replaced by the pseudonym; so
 * do checkouts, payout attempts and the payout account (a payout still owed reaches the same
 * provider account). Job titles written by the person are blanked on their own payments.
 */
export async function erasePaymentsUser(tx: Tx, userId: string, pseudonym: string): Promise<void> {
  await tx
    .update(ledgerEntries)
    .set({ testerId: pseudonym })
    .where(eq(ledgerEntries.testerId, userId));
  await tx
    .update(ledgerEntries)
    .set({ posterId: pseudonym, title: null })
    .where(eq(ledgerEntries.posterId, userId));
  await tx
    .update(checkoutSessions)
    .set({ posterId: pseudonym, title: '' })
    .where(eq(checkoutSessions.posterId, userId));
  await tx
    .update(localProviderSessions)
    .set({ posterId: pseudonym, title: '' })
    .where(eq(localProviderSessions.posterId, userId));
  await tx
    .update(payoutAttempts)
    .set({ testerId: pseudonym })
    .where(eq(payoutAttempts.testerId, userId));
  // Cash-outs are money records like the ledger: kept, under the pseudonym.
  await tx
    .update(cashOuts)
    .set({ testerId: pseudonym, updatedAt: new Date() })
    .where(eq(cashOuts.testerId, userId));
  await tx
    .update(payoutAccounts)
    .set({ testerId: pseudonym, updatedAt: new Date() })
    .where(eq(payoutAccounts.testerId, userId));
  await tx
    .update(earningMismatches)
    .set({ testerId: pseudonym })
    .where(eq(earningMismatches.testerId, userId));
  await tx
    .update(earningMismatches)
    .set({ posterId: pseudonym, title: null })
    .where(eq(earningMismatches.posterId, userId));
}
