import { createEvent, type EventEnvelope } from '@htm/events';
import type { Tx } from '@htm/service-kit';
import type { PaymentsDeps } from '../deps.js';
import { appendOnce, findJobPaymentEntry, listDuplicateAndRefund } from '../db/ledger.repository.js';

/**
 * JobsCleared (the admin's clear-all): the paid jobs nobody finished (`refundJobIds`) give their
 * posters their payment back. Per job: the provider refunds the paying session with one key per
 * session (`refund-<session_id>`, the same key the duplicate refunds use: a redelivery gets the
 * same refund), then a refund entry (-amount) is booked once per session in the handler's
 * transaction. A job without a booked payment is skipped (nothing was paid here). Everything else
 * of the ledger stays: money history outlives the jobs it was for. A provider failure throws, so
 * the event is retried.
 */
export async function refundClearedJobs(
  deps: PaymentsDeps,
  tx: Tx,
  event: EventEnvelope<'JobsCleared'>,
  events: { record(tx: Tx, ...e: EventEnvelope[]): Promise<void> } = deps.events,
): Promise<void> {
  await refundJobs(deps, tx, event.data.refundJobIds ?? [], 'jobs_cleared', event.correlationId ?? undefined, events);
}

/** JobsWithdrawn (a poster's account deleted): their paid jobs nobody started are refunded the same way. */
export async function refundWithdrawnJobs(deps: PaymentsDeps, tx: Tx, event: EventEnvelope<'JobsWithdrawn'>): Promise<void> {
  // The refund names the pseudonym (the account may be erased here before or after this event).
  await refundJobs(deps, tx, event.data.refundJobIds, event.data.reason, event.correlationId ?? undefined, deps.events, event.data.posterId);
}

async function refundJobs(
  deps: PaymentsDeps,
  tx: Tx,
  jobIds: readonly string[],
  reason: 'jobs_cleared' | 'account_deleted',
  correlationId: string | undefined,
  events: { record(tx: Tx, ...e: EventEnvelope[]): Promise<void> },
  posterOverride?: string,
): Promise<void> {
  for (const jobId of jobIds) {
    const payment = await findJobPaymentEntry(tx, jobId);
    if (!payment?.sessionId) {
      deps.logger.warn({ jobId }, 'cleared job has no booked payment: nothing to refund');
      continue;
    }
    const sessionId = payment.sessionId;
    if ((await listDuplicateAndRefund(tx, sessionId)).some((r) => r.kind === 'refund')) continue;
    const refund = await deps.provider.refundCheckoutSession({
      sessionId,
      amountCents: payment.amountCents,
      idempotencyKey: `refund-${sessionId}`,
      metadata: { reason, job_id: jobId, session_id: sessionId },
    });
    const refundedAt = new Date();
    const entry = await appendOnce(tx, {
      kind: 'refund',
      jobId,
      amountCents: -payment.amountCents,
      currency: payment.currency,
      posterId: posterOverride ?? payment.posterId,
      title: posterOverride ? null : payment.title,
      sessionId,
      refundId: refund.id,
      occurredAt: refundedAt,
    });
    // Told once the ledger has it (analytics counts refunds from it).
    if (entry) {
      await events.record(
        tx,
        createEvent(
          'PaymentRefunded',
          jobId,
          { jobId, sessionId, posterId: posterOverride ?? payment.posterId, amountCents: payment.amountCents, reason, refundedAt: refundedAt.toISOString() },
          { correlationId },
        ),
      );
    }
    deps.logger.info({ jobId, sessionId, refundId: refund.id, amountCents: payment.amountCents }, reason === 'jobs_cleared' ? 'cleared job refunded' : 'job of a deleted account refunded');
  }
}
