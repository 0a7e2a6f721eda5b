import { createEvent } from '@htm/events';
import { getCorrelationId } from '@htm/service-kit';
import type { PayoutRunResponse } from '@htm/contracts';
import type { PaymentsDeps } from '../deps.js';
import {
  failPayoutAttempt,
  findPayoutAccount,
  startPayoutAttempt,
  succeedPayoutAttempt,
} from '../db/payout.repository.js';
import { appendOnce, listPendingEarnings } from '../db/ledger.repository.js';
import { JOB_CURRENCY, TransferRefusedError } from '../providers/provider.js';
import { refreshAccount } from './payout-account.js';
import { resumeCashOuts } from './cash-out.js';
import { earningInCashOut, lockPayoutAccount } from '../db/cash-out.repository.js';
import { centsToDollars } from './money.js';
import { mustLookForTransfer, nextPayoutKey, payoutKey } from './payout-rules.js';

/**
 * Pays every pending earning of testers with a ready payout account, one transfer per
 * earning (transfer group per job). For each: an attempt row with the idempotency key is
 * committed BEFORE the provider is called; success writes the payout entry (-amount, linked
 * to the earning) and TesterPaid in one transaction. A failure leaves the earning pending and
 * is reported; a re-run reuses the same key, so the provider answers the same transfer and
 * nobody is paid twice (the ledger's unique earning_id makes that structural on our side).
 */
export async function runPayouts(deps: PaymentsDeps, actorId?: string): Promise<PayoutRunResponse> {
  // Testers' own cash-outs a crash or an unknown answer left unfinished are settled first.
  await resumeCashOuts(deps, actorId);
  const pending = await listPendingEarnings(deps.db);
  const result: PayoutRunResponse = { paid: [], failed: [], skipped_unconnected: 0 };

  const ready = new Map<string, string>(); // tester -> account
  for (const testerId of new Set(pending.filter((e) => e.account_id).map((e) => e.tester_id))) {
    const row = await findPayoutAccount(deps.db, testerId);
    const fresh = row && (await refreshAccount(deps, row));
    if (fresh?.status === 'ready') ready.set(testerId, fresh.accountId);
  }

  for (const earning of pending) {
    const accountId = ready.get(earning.tester_id);
    if (!accountId) {
      result.skipped_unconnected++;
      continue;
    }
    // Under the tester's payout-account lock, so a cash-out claiming earnings at this moment and
    // this run never take the same earning.
    const attempt = await deps.db.transaction(async (tx) => {
      await lockPayoutAccount(tx, earning.tester_id);
      if (await earningInCashOut(tx, earning.id)) return undefined;
      return startPayoutAttempt(tx, {
        earningId: earning.id,
        testerId: earning.tester_id,
        jobId: earning.job_id,
        amountCents: earning.amount_cents,
        accountId,
        idempotencyKey: payoutKey(earning.id),
      });
    });
    if (!attempt) continue; // the tester cashed it out themselves

    let transferId: string;
    try {
      // Stripe forgets idempotency keys after 24 h: an older unfinished attempt first looks for
      // a transfer it may have made (same transfer group, same earning in metadata).
      const found = mustLookForTransfer(attempt)
        ? await deps.provider.findTransfer({
            transferGroup: `job_${attempt.jobId}`,
            metadata: { earning_id: earning.id },
          })
        : null;
      // A retry sends exactly the first attempt's parameters with its key.
      const t =
        found ??
        (await deps.provider.transfer({
          accountId: attempt.accountId,
          amountCents: attempt.amountCents,
          currency: JOB_CURRENCY,
          transferGroup: `job_${attempt.jobId}`,
          idempotencyKey: attempt.idempotencyKey,
          metadata: { earning_id: earning.id, job_id: attempt.jobId, tester_id: attempt.testerId },
        }));
      transferId = t.id;
    } catch (err) {
      const message = (err as Error).message?.slice(0, 500) || 'transfer failed';
      deps.logger.warn(
        { err: message, earningId: earning.id, testerId: earning.tester_id },
        'payout transfer failed; earning stays pending',
      );
      // A certain refusal may retry with a fresh key; an unknown outcome must reuse this one.
      const nextKey = nextPayoutKey(earning.id, attempt, err instanceof TransferRefusedError);
      await failPayoutAttempt(deps.db, attempt, message, nextKey);
      result.failed.push({
        tester_id: earning.tester_id,
        amount: centsToDollars(attempt.amountCents),
        error: message,
        job_id: attempt.jobId,
      });
      continue;
    }

    const paidAt = new Date();
    // TesterPaid leaves as soon as its transaction commits (inTransaction wakes the relay).
    const entry = await deps.events.inTransaction(async (tx) => {
      const row = await appendOnce(tx, {
        kind: 'payout',
        jobId: attempt.jobId,
        amountCents: -attempt.amountCents,
        testerId: attempt.testerId,
        earningId: earning.id,
        transferId,
        occurredAt: paidAt,
      });
      await succeedPayoutAttempt(tx, attempt.id, transferId, paidAt);
      if (row) {
        await deps.events.record(
          tx,
          createEvent(
            'TesterPaid',
            attempt.testerId,
            {
              testerId: attempt.testerId,
              payoutId: row.id,
              amountCents: attempt.amountCents,
              jobIds: [attempt.jobId],
              paidAt: paidAt.toISOString(),
              ...(actorId ? { actorId } : {}),
            },
            { correlationId: getCorrelationId() },
          ),
        );
      }
      return row;
    });
    if (entry)
      result.paid.push({
        tester_id: attempt.testerId,
        amount: centsToDollars(attempt.amountCents),
        payout_id: entry.id,
        job_id: attempt.jobId,
        transfer_id: transferId,
      });
  }
  deps.logger.info(
    { paid: result.paid.length, failed: result.failed.length, skipped: result.skipped_unconnected },
    'payout run finished',
  );
  return result;
}
