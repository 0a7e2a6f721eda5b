import { createEvent, type EventEnvelope } from '@htm/events';
import type { Tx } from '@htm/service-kit/db';
import type { GeoRule } from '@htm/contracts';
import { addStrike, applyTransition, findJob } from '../db/job.repository.js';
import { insertStrike } from '../db/appeal.repository.js';

/**
 * A timer took the job back: the claim ran out before work was submitted (claim_timeout), or a
 * requested revision was not resubmitted in time (revision_expired). The job goes back to `open`
 * for the next tester (applyTransition: one conditional UPDATE on the same tester and deadline,
 * remembering who it was taken from and why), the tester gets a strike, and JobReleased +
 * TesterStrikeRecorded are recorded. False when the job moved on (a stale timer): nothing changes.
 */
export async function expireHold(
  tx: Tx,
  deps: { events: { record(tx: Tx, ...e: EventEnvelope[]): Promise<void> } },
  t: {
    reason: 'claim_timeout' | 'revision_expired';
    jobId: string;
    testerId: string;
    deadlineAt: Date;
  },
): Promise<boolean> {
  const deadline =
    t.reason === 'claim_timeout'
      ? { claimDeadlineAt: t.deadlineAt }
      : { revisionDeadlineAt: t.deadlineAt };
  const row = await applyTransition(
    tx,
    { id: t.jobId, testerId: t.testerId, ...deadline },
    t.reason,
    { releasedTesterId: t.testerId, releaseReason: t.reason },
  );
  if (!row) return false;
  const strikes = await addStrike(tx, t.testerId);
  // Its own row, with its reason: the tester sees it and may appeal it once (#34).
  await insertStrike(tx, { testerId: t.testerId, jobId: t.jobId, reason: t.reason });
  await deps.events.record(
    tx,
    createEvent('JobReleased', t.jobId, {
      jobId: t.jobId,
      testerId: t.testerId,
      reason: t.reason,
      posterId: row.posterId,
      geoRule: row.geoRule as GeoRule,
    }),
    createEvent('TesterStrikeRecorded', t.testerId, {
      testerId: t.testerId,
      jobId: t.jobId,
      strikes,
      reason:
        t.reason === 'claim_timeout'
          ? 'The claim ran out before work was submitted.'
          : 'The revision was not resubmitted in time.',
    }),
  );
  return true;
}

/**
 * The fill timer of a pack's slot: a slot still open (nobody holds it) at its fill deadline
 * (paid_at + PACK_FILL_WINDOW_MS) is closed (status closed, one conditional UPDATE from open) and
 * PackSlotClosed is recorded, on which payments refunds its $1. False when there is nothing to
 * close (held, done, closed already, or not a pack's slot): a stale or repeated timer changes nothing.
 */
export async function closeUnfilledSlot(
  tx: Tx,
  deps: { events: { record(tx: Tx, ...e: EventEnvelope[]): Promise<void> } },
  t: { jobId: string; at: Date },
): Promise<boolean> {
  const job = await findJob(tx, t.jobId);
  if (!job?.packId || !job.fillDeadlineAt || job.fillDeadlineAt.getTime() > t.at.getTime())
    return false;
  const row = await applyTransition(tx, { id: job.id }, 'close_unfilled', { closedAt: t.at });
  if (!row?.packId) return false;
  await deps.events.record(
    tx,
    createEvent('PackSlotClosed', row.id, {
      jobId: row.id,
      packId: row.packId,
      posterId: row.posterId,
      title: row.title,
      closedAt: t.at.toISOString(),
    }),
  );
  return true;
}
