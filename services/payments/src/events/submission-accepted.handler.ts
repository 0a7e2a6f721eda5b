import { createEvent, type EventEnvelope } from '@htm/events';
import type { Tx } from '@htm/service-kit';
import { appendOnce, findJobPayment } from '../db/ledger.repository.js';
import { recordEarningMismatch } from '../db/mismatch.repository.js';
import { PLATFORM_FEE_CENTS, TESTER_SHARE_CENTS } from '@htm/contracts/marketplace';

/**
 * SubmissionAccepted (by the poster, the admin or auto-accept): the tester earns 82 cents
 * (pending until paid out) and the platform keeps 18, once per job (unique (kind, job_id)),
 * in the transaction that records the event id as handled. Only for a job whose $1 payment is
 * in the ledger: otherwise nobody is paid and the admin sees an earning mismatch.
 */
export async function recordEarning(
  tx: Tx,
  event: EventEnvelope<'SubmissionAccepted'>,
  events?: { record(tx: Tx, ...e: EventEnvelope[]): Promise<void> },
): Promise<void> {
  const d = event.data;
  if (!(await findJobPayment(tx, d.jobId))) {
    await recordEarningMismatch(tx, {
      jobId: d.jobId,
      testerId: d.testerId,
      posterId: d.posterId,
      title: d.title,
      eventId: event.id,
      reason: 'no_payment',
    });
    return;
  }
  const occurredAt = new Date(d.acceptedAt);
  const earning = await appendOnce(tx, {
    kind: 'tester_earning',
    jobId: d.jobId,
    amountCents: TESTER_SHARE_CENTS,
    testerId: d.testerId,
    posterId: d.posterId,
    title: d.title,
    acceptedBy: d.acceptedBy,
    minutesSpent: d.minutesSpent ?? null,
    occurredAt,
  });
  const fee = await appendOnce(tx, {
    kind: 'platform_fee',
    jobId: d.jobId,
    amountCents: PLATFORM_FEE_CENTS,
    posterId: d.posterId,
    title: d.title,
    occurredAt,
  });
  // Told once the ledger has it (the live channel refreshes the tester's earnings on this).
  if (earning && events) {
    await events.record(
      tx,
      createEvent(
        'EarningRecorded',
        d.jobId,
        {
          jobId: d.jobId,
          testerId: d.testerId,
          amountCents: earning.amountCents,
          acceptedBy: d.acceptedBy,
          // For consumers that keep money per day (analytics): the fee booked with this earning, on the same day.
          platformFeeCents: fee?.amountCents ?? 0,
          acceptedAt: occurredAt.toISOString(),
        },
        { correlationId: event.correlationId },
      ),
    );
  }
}
