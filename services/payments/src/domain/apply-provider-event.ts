import { createEvent } from '@htm/events';
import { AppError, getCorrelationId, type Tx } from '@htm/service-kit';
import type { PaymentsDeps } from '../deps.js';
import {
  closeOpenCheckoutSession,
  findCheckoutSession,
  markCheckoutSessionPaid,
  recordProviderEvent,
} from '../db/checkout-session.repository.js';
import { appendOnce, findJobPayment } from '../db/ledger.repository.js';
import { recordMismatch } from '../db/mismatch.repository.js';
import { refundDuplicatePayment } from './refund-duplicate.js';
import { paidAsAsked } from './money.js';
import type { ProviderCheckoutSession, ProviderEvent } from '../providers/provider.js';

export type EventOutcome = 'applied' | 'duplicate' | 'ignored';

/**
 * Applies one verified provider event, once per event id: the id is stored in the same
 * transaction as the effect, so duplicates and redeliveries do nothing; out-of-order events
 * are harmless because every effect is conditional (a paid session stays paid).
 */
export async function applyProviderEvent(
  deps: PaymentsDeps,
  event: ProviderEvent,
): Promise<EventOutcome> {
  // The relay is woken after the commit when an event was recorded (only an applied effect records one).
  const outcome = await deps.events.inTransaction(async (tx): Promise<EventOutcome> => {
    if (
      !(await recordProviderEvent(tx, { id: event.id, type: event.type, objectId: event.objectId }))
    )
      return 'duplicate';
    const session = event.session;
    if (!session) return 'ignored';
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
        // A delayed payment method completes unpaid; its async_payment_succeeded comes later.
        if (session.paymentStatus !== 'paid') return 'ignored';
        return (await settlePayment(deps, tx, session)) ? 'applied' : 'ignored';
      case 'checkout.session.expired':
        return (await closeSession(
          deps,
          tx,
          session.id,
          session.cancelledByUser ? 'cancelled' : 'expired',
        ))
          ? 'applied'
          : 'ignored';
      case 'checkout.session.async_payment_failed':
        return (await closeSession(deps, tx, session.id, 'cancelled')) ? 'applied' : 'ignored';
      default:
        return 'ignored';
    }
  });
  deps.logger.info({ eventId: event.id, type: event.type, outcome }, 'provider event handled');
  if (event.session && event.objectId !== null)
    await refundOrAskForRedelivery(deps, event.objectId);
  return outcome;
}

/**
 * A duplicate payment found by this event (or by an earlier one whose refund failed) is refunded
 * now. If the provider cannot be reached, the webhook answers 503 so the provider delivers it
 * again (the event itself is already applied: the redelivery only retries the refund).
 */
async function refundOrAskForRedelivery(deps: PaymentsDeps, sessionId: string): Promise<void> {
  try {
    await refundDuplicatePayment(deps, sessionId);
  } catch (err) {
    deps.logger.error(
      { err: (err as Error).message, sessionId },
      'refund of a duplicate payment failed; it stays pending',
    );
    throw new AppError(
      'unavailable',
      'The refund of a duplicate payment could not be made yet. Please deliver this event again.',
      { code: 'refund_pending' },
    );
  }
}

/** Brings our state in line with what the provider says about a session (lost webhook). */
export async function reconcileSession(
  deps: PaymentsDeps,
  session: ProviderCheckoutSession,
): Promise<boolean> {
  const applied = await deps.events.inTransaction(async (tx) => {
    if (session.paymentStatus === 'paid') return settlePayment(deps, tx, session);
    if (session.status === 'expired')
      return closeSession(deps, tx, session.id, session.cancelledByUser ? 'cancelled' : 'expired');
    return false;
  });
  if (session.paymentStatus === 'paid') {
    await refundDuplicatePayment(deps, session.id).catch((err: Error) =>
      deps.logger.error(
        { err: err.message, sessionId: session.id },
        'refund of a duplicate payment failed; it stays pending',
      ),
    );
  }
  return applied;
}

/**
 * The poster's payment: one ledger entry (+amount) and one JobPaid in the outbox, in the
 * caller's transaction, once per job (unique (kind, job_id)) however many events arrive.
 */
export async function settlePayment(
  deps: PaymentsDeps,
  tx: Tx,
  session: ProviderCheckoutSession,
): Promise<boolean> {
  const row = await findCheckoutSession(tx, session.id);
  if (!row) {
    deps.logger.warn(
      { sessionId: session.id },
      'paid checkout session is not one of ours; ignored',
    );
    return false;
  }
  // Book only what we asked for: a webhook or provider answer with another amount or currency
  // (forged, tampered, or changed at the provider) pays nothing and is shown to the admin.
  if (!paidAsAsked(row, session)) {
    await recordMismatch(tx, {
      sessionId: row.id,
      jobId: row.jobId,
      expectedCents: row.amountCents,
      expectedCurrency: row.currency,
      receivedCents: session.amountTotal,
      receivedCurrency: session.currency,
    });
    deps.logger.error(
      {
        sessionId: row.id,
        jobId: row.jobId,
        expectedCents: row.amountCents,
        expectedCurrency: row.currency,
        receivedCents: session.amountTotal,
        receivedCurrency: session.currency,
      },
      'paid amount does not match the checkout session: not booked',
    );
    return false;
  }
  const paidAt = new Date();
  const amount = row.amountCents;
  /** This session's money as a ledger entry: the job's payment, or a duplicate to give back. */
  const received = (kind: 'payment' | 'duplicate_payment', jobId: string, amountCents: number) =>
    appendOnce(tx, {
      kind,
      jobId,
      amountCents,
      currency: row.currency,
      posterId: row.posterId,
      title: row.title,
      sessionId: row.id,
      occurredAt: paidAt,
    });
  // A pack's session pays each of its jobs one unit (its first job is the session's own).
  const jobIds = row.jobIds?.length ? row.jobIds : [row.jobId];
  const unit = Math.floor(amount / jobIds.length);
  const entry = await received('payment', row.jobId, unit);
  await markCheckoutSessionPaid(tx, row.id, paidAt);
  if (!entry) {
    // The job is paid already: by this session (a redelivery, or completed then
    // async_payment_succeeded), or by another one, which makes this payment a duplicate to give back.
    const first = await findJobPayment(tx, row.jobId);
    if (!first || first.sessionId === row.id) return false;
    const duplicate = await received('duplicate_payment', row.jobId, amount);
    if (duplicate)
      deps.logger.warn(
        {
          jobId: row.jobId,
          sessionId: row.id,
          firstSessionId: first.sessionId,
          amountCents: amount,
        },
        'job paid twice: this session will be refunded',
      );
    return false;
  }
  const paid = (jobId: string) =>
    createEvent(
      'JobPaid',
      jobId,
      {
        jobId,
        sessionId: row.id,
        posterId: row.posterId,
        amountCents: unit,
        paidAt: paidAt.toISOString(),
      },
      { correlationId: getCorrelationId() },
    );
  await deps.events.record(tx, paid(row.jobId));
  // The other jobs of a pack: paid (and so published) with the first, in the same transaction.
  for (const jobId of jobIds.slice(1)) {
    if (await received('payment', jobId, unit)) await deps.events.record(tx, paid(jobId));
  }
  return true;
}

/** An unpaid session that expired or was cancelled: CheckoutCancelled, once. */
export async function closeSession(
  deps: PaymentsDeps,
  tx: Tx,
  sessionId: string,
  reason: 'cancelled' | 'expired',
): Promise<boolean> {
  const row = await closeOpenCheckoutSession(tx, sessionId, reason);
  if (!row) return false;
  await deps.events.record(
    tx,
    createEvent(
      'CheckoutCancelled',
      row.jobId,
      { jobId: row.jobId, sessionId: row.id, reason, posterId: row.posterId },
      { correlationId: getCorrelationId() },
    ),
  );
  return true;
}
