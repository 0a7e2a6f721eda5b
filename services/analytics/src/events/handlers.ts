import type { Tx } from '@htm/service-kit/db';
import type { EventHandlers } from '@htm/events';
import { PLATFORM_FEE_CENTS } from '@htm/contracts/marketplace';
import {
  addDemand,
  addDuration,
  addToDay,
  clearJobs,
  firstSummaryOf,
  foldJob,
  recordTesterActivity,
  recordTesterApproval,
  saveJob,
  type JobPatch,
} from '../db/facts.repository.js';
import { dayOf, newDurations } from '../domain/facts.js';
import { bucketOf } from '../domain/histogram.js';
import { eraseAnalyticsUser } from '../db/privacy.repository.js';

/** The fee booked with each earning before EarningRecorded carried it (the rules module's 18 of every $1). */
const LEGACY_PLATFORM_FEE_CENTS = PLATFORM_FEE_CENTS;

/**
 * Folds an event's times into the job's row and records any duration that just became known.
 * Answers the row before, so the caller counts "first" facts (first claim, first submission,
 * completion) once per job even when events arrive out of order.
 */
async function fold(tx: Tx, jobId: string, patch: JobPatch) {
  const { before, after } = await foldJob(tx, jobId, patch);
  for (const d of newDurations(after)) {
    await addDuration(tx, d.day, d.metric, d.bucket);
    if (d.metric === 'claim') after.claimRecorded = true;
    if (d.metric === 'submit') after.submitRecorded = true;
    if (d.metric === 'result') after.resultRecorded = true;
  }
  await saveJob(tx, after);
  return before;
}

/**
 * What analytics consumes: every stream. Each handler runs once per event id, in the transaction
 * that records the id as handled, so a redelivered event adds nothing twice; per-job facts take
 * the earliest/latest time seen, so events of one job from different streams may come in any order.
 */
export function analyticsEventHandlers(): EventHandlers {
  return {
    // identity: a deleted account leaves the per-person rows (day counts stay)
    UserDeleted: async (e, tx) => eraseAnalyticsUser(tx, e.data),
    // identity: supply
    UserRoleChosen: async (e, tx) => {
      if (e.data.type !== 'tester') return;
      await recordTesterApproval(tx, {
        userId: e.data.userId,
        approved: e.data.approved,
        country: e.data.country,
        asOf: new Date(e.occurredAt),
      });
    },
    TesterApprovalChanged: async (e, tx) =>
      recordTesterApproval(tx, {
        userId: e.data.userId,
        approved: e.data.approved,
        country: e.data.country,
        asOf: new Date(e.occurredAt),
      }),
    // jobs
    JobCreated: async (e, tx) => {
      const before = await fold(tx, e.data.jobId, {
        postedAt: new Date(e.occurredAt),
        geoRule: e.data.geoRule,
      });
      if (!before.postedAt) await addToDay(tx, dayOf(e.occurredAt), { posted: 1 });
    },
    // A pack of several testers in one checkout (its jobs count as posted through JobCreated).
    PackCreated: async (e, tx) =>
      addToDay(tx, dayOf(e.occurredAt), { packs: 1, packTesters: e.data.size }),
    JobPublished: async (e, tx) => {
      await fold(tx, e.data.jobId, { paidAt: new Date(e.data.paidAt), geoRule: e.data.geoRule });
      await addDemand(tx, dayOf(e.data.paidAt), e.data.geoRule);
    },
    JobClaimed: async (e, tx) => {
      const at = new Date(e.data.claimedAt);
      const before = await fold(tx, e.data.jobId, {
        claimedAt: at,
        geoRule: e.data.geoRule ?? undefined,
      });
      if (!before.firstClaimedAt) await addToDay(tx, dayOf(at), { claimed: 1 });
      await recordTesterActivity(tx, e.data.testerId, at);
    },
    JobReleased: async (e, tx) => {
      await fold(tx, e.data.jobId, { releasedAt: new Date(e.occurredAt) });
      await addToDay(tx, dayOf(e.occurredAt), { releases: 1 });
    },
    WorkSubmitted: async (e, tx) => {
      // A failed session given back to its job (admin, appeal) is no new submission.
      if (e.data.releasedBy) return;
      const at = new Date(e.data.submittedAt);
      const before = await fold(tx, e.data.jobId, { submittedAt: at });
      await addToDay(
        tx,
        dayOf(at),
        before.firstSubmittedAt ? { resubmitted: 1 } : { submitted: 1 },
      );
      await recordTesterActivity(tx, e.data.testerId, at);
    },
    RevisionRequested: async (e, tx) => addToDay(tx, dayOf(e.data.requestedAt), { revisions: 1 }),
    // Session checks: how many were checked, borderline or failed, and the free replacements.
    SessionChecked: async (e, tx) =>
      addToDay(tx, dayOf(e.data.checkedAt), {
        sessionsChecked: 1,
        sessionsBorderline: e.data.verdict === 'borderline' ? 1 : 0,
        sessionsFailed: e.data.verdict === 'fail' ? 1 : 0,
      }),
    ReplacementRequested: async (e, tx) =>
      addToDay(tx, dayOf(e.data.requestedAt), { replacements: 1 }),
    SubmissionAccepted: async (e, tx) => {
      const at = new Date(e.data.acceptedAt);
      const before = await fold(tx, e.data.jobId, { completedAt: at });
      if (before.completedAt) return;
      const by = e.data.acceptedBy;
      await addToDay(
        tx,
        dayOf(at),
        by === 'poster'
          ? { completedPoster: 1 }
          : by === 'admin'
            ? { completedAdmin: 1 }
            : { completedAuto: 1 },
      );
    },
    JobsCleared: async (_e, tx) => clearJobs(tx),
    // A report's summary ("what to fix first"): how long after the last submission it was ready,
    // once per job or pack and last submission (recomputations for the same reports not again).
    ReportSummarized: async (e, tx) => {
      const last = new Date(e.data.lastSubmissionAt);
      const at = new Date(e.data.summarizedAt);
      if (!(await firstSummaryOf(tx, e.data.scopeId, last))) return;
      await addDuration(
        tx,
        dayOf(e.data.summarizedAt),
        'summary',
        bucketOf(Math.max(0, at.getTime() - last.getTime())),
      );
    },
    // payments: money, each amount as booked in the ledger (one event per ledger entry)
    JobPaid: async (e, tx) => {
      await fold(tx, e.data.jobId, { paidAt: new Date(e.data.paidAt) });
      await addToDay(tx, dayOf(e.data.paidAt), { paid: 1, revenueCents: e.data.amountCents });
    },
    EarningRecorded: async (e, tx) =>
      addToDay(tx, dayOf(e.data.acceptedAt ?? e.occurredAt), {
        earningsCents: e.data.amountCents,
        platformFeeCents: e.data.platformFeeCents ?? LEGACY_PLATFORM_FEE_CENTS,
      }),
    TesterPaid: async (e, tx) =>
      addToDay(tx, dayOf(e.data.paidAt), { payoutsCents: e.data.amountCents }),
    PaymentRefunded: async (e, tx) =>
      addToDay(tx, dayOf(e.data.refundedAt), {
        refunds: 1,
        refundsCents: e.data.amountCents,
        ...(e.data.reason === 'pack_slot_unfilled' ? { packSlotsRefunded: 1 } : {}),
      }),
    // admin: read so the group follows every stream (nothing to count yet)
    WaitlistJoined: async () => undefined,
  };
}
