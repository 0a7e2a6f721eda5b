import { eq, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { eraseUser, type ErasedUser } from '@htm/service-kit/erasure';
import {
  cashOuts,
  checkoutSessions,
  earningMismatches,
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

/**
 * Anonymises the user in payments (UserDeleted's transaction): the ledger is the accounting
 * record, so every entry stays, amounts untouched, with the person replaced by the pseudonym; so
 * do checkouts, payout attempts and the payout account (a payout still owed reaches the same
 * provider account). Job titles written by the person are blanked on their own payments.
 */
export async function erasePaymentsUser(tx: Tx, user: ErasedUser): Promise<void> {
  const updatedAt = new Date();
  await eraseUser(tx, user, [
    { pseudonymise: ledgerEntries, where: ledgerEntries.testerId },
    { pseudonymise: ledgerEntries, where: ledgerEntries.posterId, also: { title: null } },
    { pseudonymise: checkoutSessions, where: checkoutSessions.posterId, also: { title: '' } },
    {
      pseudonymise: localProviderSessions,
      where: localProviderSessions.posterId,
      also: { title: '' },
    },
    { pseudonymise: payoutAttempts, where: payoutAttempts.testerId },
    // Cash-outs are money records like the ledger: kept, under the pseudonym.
    { pseudonymise: cashOuts, where: cashOuts.testerId, also: { updatedAt } },
    { pseudonymise: payoutAccounts, where: payoutAccounts.testerId, also: { updatedAt } },
    { pseudonymise: earningMismatches, where: earningMismatches.testerId },
    { pseudonymise: earningMismatches, where: earningMismatches.posterId, also: { title: null } },
  ]);
}
