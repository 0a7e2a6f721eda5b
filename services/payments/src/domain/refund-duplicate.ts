import { createEvent } from '@htm/events';
import { getCorrelationId } from '@htm/service-kit';
import type { PaymentsDeps } from '../deps.js';
import { appendOnce, listDuplicateAndRefund } from '../db/ledger.repository.js';

export type RefundState = 'none' | 'pending' | 'refunded';

/** Whether a session's payment was a duplicate, and if so whether it has been given back yet. */
export async function refundStateOf(deps: PaymentsDeps, sessionId: string): Promise<RefundState> {
  const rows = await listDuplicateAndRefund(deps.db, sessionId);
  // A refund of a job's own payment (clear-all) is not a duplicate's refund.
  if (!rows.some((r) => r.kind === 'duplicate_payment')) return 'none';
  return rows.some((r) => r.kind === 'refund') ? 'refunded' : 'pending';
}

/**
 * Gives back a duplicate payment (a second paid session for a job that was already paid). The
 * duplicate_payment ledger entry, committed with the webhook that found it, is the durable
 * "we owe this back"; this asks the provider for the refund with one idempotency key per session
 * (`refund-<session_id>`: retries get the same refund) and then writes the refund entry (-amount),
 * once per session. Safe to call any number of times, at the same time too. Throws when the
 * provider cannot be reached: the entry stays pending and the next webhook delivery or status
 * call retries.
 */
export async function refundDuplicatePayment(
  deps: PaymentsDeps,
  sessionId: string,
): Promise<RefundState> {
  const rows = await listDuplicateAndRefund(deps.db, sessionId);
  const duplicate = rows.find((r) => r.kind === 'duplicate_payment');
  if (!duplicate) return 'none';
  if (rows.some((r) => r.kind === 'refund')) return 'refunded';

  const refund = await deps.provider.refundCheckoutSession(deps.db, {
    sessionId,
    amountCents: duplicate.amountCents,
    idempotencyKey: `refund-${sessionId}`,
    metadata: { reason: 'duplicate', job_id: duplicate.jobId, session_id: sessionId },
  });
  const refundedAt = new Date();
  // The refund entry and its event commit together (analytics counts refunds per day from it).
  const entry = await deps.events.inTransaction(async (tx) => {
    const row = await appendOnce(tx, {
      kind: 'refund',
      jobId: duplicate.jobId,
      amountCents: -duplicate.amountCents,
      currency: duplicate.currency,
      posterId: duplicate.posterId,
      title: duplicate.title,
      sessionId,
      refundId: refund.id,
      occurredAt: refundedAt,
    });
    if (row)
      await deps.events.record(
        tx,
        createEvent(
          'PaymentRefunded',
          duplicate.jobId,
          {
            jobId: duplicate.jobId,
            sessionId,
            posterId: duplicate.posterId,
            amountCents: duplicate.amountCents,
            reason: 'duplicate',
            refundedAt: refundedAt.toISOString(),
          },
          { correlationId: getCorrelationId() },
        ),
      );
    return row;
  });
  if (entry)
    deps.logger.warn(
      {
        jobId: duplicate.jobId,
        sessionId,
        refundId: refund.id,
        amountCents: duplicate.amountCents,
        posterId: duplicate.posterId,
      },
      'duplicate payment refunded',
    );
  return 'refunded';
}
