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
  for (const jobId of event.data.refundJobIds ?? []) {
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
      metadata: { reason: 'jobs_cleared', job_id: jobId, session_id: sessionId },
    });
    const refundedAt = new Date();
    const entry = await appendOnce(tx, {
      kind: 'refund',
      jobId,
      amountCents: -payment.amountCents,
      currency: payment.currency,
      posterId: payment.posterId,
      title: payment.title,
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
          { jobId, sessionId, posterId: payment.posterId, amountCents: payment.amountCents, reason: 'jobs_cleared', refundedAt: refundedAt.toISOString() },
          { correlationId: event.correlationId ?? undefined },
        ),
      );
    }
    deps.logger.info({ jobId, sessionId, refundId: refund.id, amountCents: payment.amountCents }, 'cleared job refunded');
  }
}
