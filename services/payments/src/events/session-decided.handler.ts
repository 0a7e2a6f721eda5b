import type { EventEnvelope } from '@htm/events';
import type { Tx } from '@htm/service-kit';
import {
  PLATFORM_FUNDED_EARNING,
  TESTER_SHARE_CENTS,
  platformFundsRelease,
} from '@htm/contracts/marketplace';
import { appendOnce, findJobPaymentEntry } from '../db/ledger.repository.js';

/**
 * SessionDecided: a failed session released after its job went to another tester (an upheld
 * appeal, or the admin's release, while the replacement was taken or done). The job's $1 pays that
 * other tester; the platform pays this one 82 cents, once (unique per job and tester where the
 * source is the platform), booked as a tester_earning with the platform as its source. The owner
 * is never charged again. A release its job took back (delivered) is paid as usual on acceptance.
 */
export async function recordPlatformFundedEarning(
  tx: Tx,
  event: EventEnvelope<'SessionDecided'>,
): Promise<void> {
  const d = event.data;
  if (!platformFundsRelease(d)) return;
  const payment = await findJobPaymentEntry(tx, d.jobId);
  await appendOnce(tx, {
    kind: 'tester_earning',
    jobId: d.jobId,
    amountCents: TESTER_SHARE_CENTS,
    testerId: d.testerId,
    posterId: d.posterId,
    title: payment?.title ?? null,
    source: PLATFORM_FUNDED_EARNING[d.by],
    occurredAt: new Date(d.decidedAt),
  });
}
