import { randomUUID } from 'node:crypto';
import { createEvent } from '@htm/events';
import { AppError, getCorrelationId, type Caller, type Tx } from '@htm/service-kit';
import { formatUsd } from '@htm/contracts/marketplace';
import type { CashOutResponse, EarningsResponse } from '@htm/contracts';
import type { PaymentsDeps } from '../deps.js';
import {
  failCashOut,
  findProcessingCashOut,
  insertCashOut,
  listCashableEarnings,
  listCashOutItems,
  listProcessingCashOuts,
  lockPayoutAccount,
  markCashOutPaid,
  noteCashOutError,
  startCashOutTry,
  type CashOutRow,
} from '../db/cash-out.repository.js';
import { findPayoutAccount } from '../db/payout.repository.js';
import { appendOnce } from '../db/ledger.repository.js';
import { JOB_CURRENCY, TransferRefusedError } from '../providers/provider.js';
import { refreshAccount } from './payout-account.js';
import { centsToDollars } from './money.js';
import { cashOutKey, mustLookForTransfer } from './payout-rules.js';

/** The transfer group of a cash-out at the provider (one transfer per cash-out). */
const transferGroupOf = (cashOutId: string) => `cash_out_${cashOutId}`;

function answer(row: CashOutRow): CashOutResponse {
  return {
    payout: {
      id: row.id,
      amount_usd: centsToDollars(row.amountCents),
      status: row.status as CashOutResponse['payout']['status'],
    },
  };
}

const inProgress = (row: CashOutRow) =>
  AppError.conflict(
    `Your cash-out of ${formatUsd(row.amountCents)} is still being sent. You can cash out again once it has arrived.`,
    'payout_in_progress',
  );

/**
 * POST /api/tester/cash-out: all of an approved tester's pending earnings in one transfer, once
 * they reach CASH_OUT_MIN_CENTS and the payout account can receive transfers. The cash-out and
 * the earnings it takes are committed (under the tester's payout-account lock) BEFORE the provider
 * is called, with one idempotency key for every retry; see settleCashOut.
 */
export async function cashOut(deps: PaymentsDeps, caller: Caller): Promise<CashOutResponse> {
  if (!caller.approved)
    throw AppError.forbidden('Only approved testers can cash out.', 'tester_not_approved');
  const running = await findProcessingCashOut(deps.db, caller.id);
  if (running) throw inProgress(running);

  const account = await findPayoutAccount(deps.db, caller.id);
  if (!account)
    throw AppError.conflict(
      'Connect a payout account first: your earnings are sent there.',
      'no_payout_account',
    );
  const fresh = await refreshAccount(deps, account);
  if (fresh.status !== 'ready')
    throw AppError.conflict(
      'Finish setting up your payout account with the payment provider first: it cannot receive transfers yet.',
      'no_payout_account',
    );

  const min = deps.config.CASH_OUT_MIN_CENTS;
  const id = randomUUID();
  const claimed = await deps.db.transaction(async (tx) => {
    await lockPayoutAccount(tx, caller.id);
    const other = await findProcessingCashOut(tx, caller.id);
    if (other) throw inProgress(other);
    const earnings = await listCashableEarnings(tx, caller.id);
    const total = earnings.reduce((sum, e) => sum + e.amount_cents, 0);
    if (total < min)
      throw AppError.conflict(
        total > 0
          ? `You have ${formatUsd(total)} to cash out; you can cash out from ${formatUsd(min)}.`
          : `You have nothing to cash out yet; you can cash out from ${formatUsd(min)}.`,
        'below_minimum',
      );
    const row = await insertCashOut(
      tx,
      {
        id,
        testerId: caller.id,
        accountId: fresh.accountId,
        amountCents: total,
        idempotencyKey: cashOutKey(id),
      },
      earnings,
    );
    if (!row) throw inProgress((await findProcessingCashOut(tx, caller.id))!);
    return row;
  });
  deps.logger.info(
    { cashOutId: claimed.id, testerId: caller.id, amountCents: claimed.amountCents },
    'cash-out claimed',
  );
  return answer(await settleCashOut(deps, claimed));
}

/**
 * Sends a processing cash-out's transfer (same key on every try, so the provider answers the same
 * transfer) and books it: one payout entry per earning with the transfer id, the cash-out paid and
 * one TesterPaid, in one transaction. A certain refusal fails the cash-out and frees its earnings;
 * an unknown outcome leaves it processing for the next try (service start, admin payout run).
 */
export async function settleCashOut(
  deps: PaymentsDeps,
  row: CashOutRow,
  actorId?: string,
): Promise<CashOutRow> {
  const current = await startCashOutTry(deps.db, row.id);
  if (!current) return row; // settled meanwhile
  const items = await listCashOutItems(deps.db, current.id);
  let transferId: string;
  try {
    const group = transferGroupOf(current.id);
    // Stripe forgets keys after 24 h: an old unfinished cash-out first looks for its transfer.
    const found = mustLookForTransfer({ tries: current.tries, keyCreatedAt: current.createdAt })
      ? await deps.provider.findTransfer({
          transferGroup: group,
          metadata: { cash_out_id: current.id },
        })
      : null;
    const t =
      found ??
      (await deps.provider.transfer({
        accountId: current.accountId,
        amountCents: current.amountCents,
        currency: JOB_CURRENCY,
        transferGroup: group,
        idempotencyKey: current.idempotencyKey,
        metadata: {
          cash_out_id: current.id,
          tester_id: current.testerId,
          jobs: String(items.length),
        },
      }));
    transferId = t.id;
  } catch (err) {
    const message = (err as Error).message?.slice(0, 500) || 'transfer failed';
    if (err instanceof TransferRefusedError) {
      deps.logger.warn(
        { err: message, cashOutId: current.id },
        'cash-out refused by the provider; earnings released',
      );
      await deps.db.transaction((tx) => failCashOut(tx, current.id, message));
      throw new AppError(
        'bad_gateway',
        `The payment provider refused the transfer: ${message}. Nothing was sent; please try again later.`,
        { code: 'transfer_refused' },
      );
    }
    deps.logger.warn(
      { err: message, cashOutId: current.id },
      'cash-out transfer outcome unknown; it will be retried with the same key',
    );
    await noteCashOutError(deps.db, current.id, message);
    return { ...current, lastError: message };
  }
  return bookCashOut(deps, current, items, transferId, actorId);
}

async function bookCashOut(
  deps: PaymentsDeps,
  row: CashOutRow,
  items: Awaited<ReturnType<typeof listCashOutItems>>,
  transferId: string,
  actorId?: string,
): Promise<CashOutRow> {
  const paidAt = new Date();
  await deps.events.inTransaction(async (tx: Tx) => {
    if (!(await markCashOutPaid(tx, row.id, transferId, paidAt))) return;
    for (const item of items) {
      await appendOnce(tx, {
        kind: 'payout',
        jobId: item.jobId,
        amountCents: -item.amountCents,
        testerId: row.testerId,
        earningId: item.earningId,
        transferId,
        cashOutId: row.id,
        occurredAt: paidAt,
      });
    }
    await deps.events.record(
      tx,
      createEvent(
        'TesterPaid',
        row.testerId,
        {
          testerId: row.testerId,
          payoutId: row.id,
          amountCents: row.amountCents,
          jobIds: items.map((i) => i.jobId),
          paidAt: paidAt.toISOString(),
          ...(actorId ? { actorId } : {}),
        },
        { correlationId: getCorrelationId() },
      ),
    );
  });
  deps.logger.info(
    { cashOutId: row.id, transferId, amountCents: row.amountCents },
    'cash-out paid',
  );
  return { ...row, status: 'paid', transferId, paidAt, lastError: null };
}

/** Settles every cash-out a crash or an unknown provider answer left processing (at start, and before a payout run). */
export async function resumeCashOuts(deps: PaymentsDeps, actorId?: string): Promise<void> {
  for (const row of await listProcessingCashOuts(deps.db)) {
    try {
      await settleCashOut(deps, row, actorId);
    } catch (err) {
      deps.logger.warn(
        { err: (err as Error).message, cashOutId: row.id },
        'could not resume a cash-out',
      );
    }
  }
}

/** The Earnings tab's cash-out line: what a cash-out would pay now, the minimum, one in progress. */
export async function cashOutSummary(
  deps: PaymentsDeps,
  tx: Tx,
  testerId: string,
): Promise<NonNullable<EarningsResponse['cash_out']>> {
  const earnings = await listCashableEarnings(tx, testerId);
  const running = await findProcessingCashOut(tx, testerId);
  return {
    min_usd: centsToDollars(deps.config.CASH_OUT_MIN_CENTS),
    available_usd: centsToDollars(earnings.reduce((sum, e) => sum + e.amount_cents, 0)),
    in_progress: running
      ? { id: running.id, amount_usd: centsToDollars(running.amountCents) }
      : null,
  };
}
