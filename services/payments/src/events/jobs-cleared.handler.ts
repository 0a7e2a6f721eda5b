import { createEvent, type EventEnvelope } from '@htm/events';
import type { Tx } from '@htm/service-kit';
import type { PaymentsDeps } from '../deps.js';
import { findCheckoutSession } from '../db/checkout-session.repository.js';
import {
  appendOnce,
  findJobPaymentEntry,
  listDuplicateAndRefund,
} from '../db/ledger.repository.js';

export type Recorder = { record(tx: Tx, ...e: EventEnvelope[]): Promise<void> };

/**
 * Gives one job's own payment back to its poster: the provider refunds the paying session's share
 * of that job (one key per session and job: `refund-<session_id>` for the session's own job, the
 * same key the duplicate refunds use, `refund-<session_id>-<job_id>` for the other jobs of a pack,
 * so a redelivery gets the same refund), then a refund entry (-amount) is booked once per session
 * and job in the caller's transaction, with PaymentRefunded. The provider works in that
 * transaction too: the local provider's refund commits with the entry or not at all (a redelivery
 * then does both); Stripe's is a call, idempotent by key. A job without a booked payment is
 * skipped (nothing was paid here). A provider failure throws, so the event is retried.
 */
export async function refundJobPayment(
  deps: PaymentsDeps,
  tx: Tx,
  jobId: string,
  why: {
    reason: 'jobs_cleared' | 'pack_slot_unfilled' | 'account_deleted';
    correlationId?: string;
    packId?: string;
    title?: string;
    /** account_deleted: the poster's pseudonym, and no title (the account may already be erased here). */
    posterPseudonym?: string;
  },
  events: Recorder = deps.events,
): Promise<'refunded' | 'already' | 'unpaid'> {
  const payment = await findJobPaymentEntry(tx, jobId);
  if (!payment?.sessionId) {
    deps.logger.warn({ jobId, reason: why.reason }, 'job has no booked payment: nothing to refund');
    return 'unpaid';
  }
  const sessionId = payment.sessionId;
  if (
    (await listDuplicateAndRefund(tx, sessionId)).some(
      (r) => r.kind === 'refund' && r.jobId === jobId,
    )
  )
    return 'already';
  const session = await findCheckoutSession(tx, sessionId);
  const ownJob = !session || session.jobId === jobId;
  const refund = await deps.provider.refundCheckoutSession(tx, {
    sessionId,
    amountCents: payment.amountCents,
    idempotencyKey: ownJob ? `refund-${sessionId}` : `refund-${sessionId}-${jobId}`,
    reason: why.reason === 'jobs_cleared' ? 'duplicate' : 'requested_by_customer',
    metadata: { reason: why.reason, job_id: jobId, session_id: sessionId },
  });
  const refundedAt = new Date();
  const entry = await appendOnce(tx, {
    kind: 'refund',
    jobId,
    amountCents: -payment.amountCents,
    currency: payment.currency,
    posterId: why.posterPseudonym ?? payment.posterId,
    title: why.posterPseudonym ? null : payment.title,
    sessionId,
    refundId: refund.id,
    occurredAt: refundedAt,
  });
  // Told once the ledger has it (analytics counts refunds from it, notifications tell the poster).
  if (entry) {
    await events.record(
      tx,
      createEvent(
        'PaymentRefunded',
        jobId,
        {
          jobId,
          sessionId,
          posterId: why.posterPseudonym ?? payment.posterId,
          amountCents: payment.amountCents,
          reason: why.reason,
          refundedAt: refundedAt.toISOString(),
          ...(why.packId ? { packId: why.packId } : {}),
          ...(why.title ? { title: why.title } : {}),
        },
        { correlationId: why.correlationId },
      ),
    );
  }
  deps.logger.info(
    { jobId, sessionId, refundId: refund.id, amountCents: payment.amountCents, reason: why.reason },
    'job payment refunded',
  );
  return entry ? 'refunded' : 'already';
}

/**
 * JobsCleared (the admin's clear-all): the paid jobs nobody finished (`refundJobIds`) give their
 * posters their payment back, each through refundJobPayment. Everything else of the ledger stays:
 * money history outlives the jobs it was for.
 */
export async function refundClearedJobs(
  deps: PaymentsDeps,
  tx: Tx,
  event: EventEnvelope<'JobsCleared'>,
  events: Recorder = deps.events,
): Promise<void> {
  for (const jobId of event.data.refundJobIds ?? []) {
    await refundJobPayment(
      deps,
      tx,
      jobId,
      { reason: 'jobs_cleared', correlationId: event.correlationId ?? undefined },
      events,
    );
  }
}

/** JobsWithdrawn (a poster's account deleted): their paid jobs nobody started are refunded the same way. */
export async function refundWithdrawnJobs(
  deps: PaymentsDeps,
  tx: Tx,
  event: EventEnvelope<'JobsWithdrawn'>,
): Promise<void> {
  for (const jobId of event.data.refundJobIds) {
    // The refund names the pseudonym (the account may be erased here before or after this event).
    await refundJobPayment(deps, tx, jobId, {
      reason: event.data.reason,
      correlationId: event.correlationId ?? undefined,
      posterPseudonym: event.data.posterId,
    });
  }
}
