import { createEvent } from '@htm/events';
import type { Tx } from '@htm/service-kit/db';
import { addStrike, findJob } from '../db/job.repository.js';
import { insertStrike } from '../db/appeal.repository.js';
import { applyTransition, type TransitionDeps } from './job-state.js';

/**
 * A timer took the job back: the claim ran out before work was submitted (claim_timeout), or a
 * requested revision was not resubmitted in time (revision_expired). The job goes back to `open`
 * for the next tester (applyTransition: one conditional UPDATE on the same tester and deadline,
 * remembering who it was taken from and why; JobReleased recorded with it), the tester gets a
 * strike, and TesterStrikeRecorded is recorded. False when the job moved on (a stale timer): nothing changes.
 */
export async function expireHold(
  tx: Tx,
  deps: TransitionDeps,
  t: {
    reason: 'claim_timeout' | 'revision_expired';
    jobId: string;
    testerId: string;
    deadlineAt: Date;
    /** When the timer runs: nothing happens before the job's own deadline. */
    at: Date;
  },
): Promise<boolean> {
  const deadline =
    t.reason === 'claim_timeout'
      ? { claimDeadlineAt: t.deadlineAt }
      : { revisionDeadlineAt: t.deadlineAt };
  const row = await applyTransition(
    tx,
    deps,
    { id: t.jobId, testerId: t.testerId, ...deadline, asOf: t.at },
    t.reason,
    { releasedTesterId: t.testerId, releaseReason: t.reason },
  );
  if (!row) return false;
  await recordStrike(tx, deps, { testerId: t.testerId, jobId: t.jobId, reason: t.reason });
  return true;
}

/** Why a strike was given, as TesterStrikeRecorded tells identity. */
const STRIKE_WORDS = {
  claim_timeout: 'The claim ran out before work was submitted.',
  revision_expired: 'The revision was not resubmitted in time.',
  session_failed: 'The report did not pass the session checks, and the admin confirmed it.',
} as const;

/**
 * A strike for the tester, in the caller's transaction: the projection's count, its own row with
 * its reason (the tester sees it and may appeal it once, #34) and TesterStrikeRecorded (identity
 * keeps the count and unapproves at the limit).
 */
export async function recordStrike(
  tx: Tx,
  deps: Pick<TransitionDeps, 'events'>,
  s: { testerId: string; jobId: string; reason: keyof typeof STRIKE_WORDS },
): Promise<void> {
  const strikes = await addStrike(tx, s.testerId);
  await insertStrike(tx, s);
  await deps.events.record(
    tx,
    createEvent('TesterStrikeRecorded', s.testerId, {
      testerId: s.testerId,
      jobId: s.jobId,
      strikes,
      reason: STRIKE_WORDS[s.reason],
    }),
  );
}

/**
 * The fill timer of a pack's slot: a slot still open (nobody holds it) at its fill deadline
 * (paid_at + PACK_FILL_WINDOW_MS) is closed (status closed, one conditional UPDATE from open) and
 * PackSlotClosed is recorded, on which payments refunds its $1. False when there is nothing to
 * close (held, done, closed already, or not a pack's slot): a stale or repeated timer changes nothing.
 */
export async function closeUnfilledSlot(
  tx: Tx,
  deps: TransitionDeps,
  t: { jobId: string; at: Date },
): Promise<boolean> {
  const job = await findJob(tx, t.jobId);
  if (!job?.packId || !job.fillDeadlineAt || job.fillDeadlineAt.getTime() > t.at.getTime())
    return false;
  return !!(await applyTransition(tx, deps, { id: job.id, asOf: t.at }, 'close_unfilled', {
    closedAt: t.at,
  }));
}
