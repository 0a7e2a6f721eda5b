import { createEvent, type EventHandlers } from '@htm/events';
import type { GeoRule } from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import { eraseUserInJobs } from '../domain/privacy.js';
import { applyTransition } from '../domain/job-state.js';
import { enqueueJobWebhook } from '../domain/webhooks.js';
import {
  findJob,
  isUuid,
  listClaimedBy,
  markJobPaid,
  noteCheckoutCancelled,
  releaseHoldsOf,
  renamePoster,
  saveUser,
} from '../db/job.repository.js';
import type { AssistiveTech } from '@htm/contracts';
import { saveSiteCheck } from '../db/share.repository.js';
import { requestSummaryOf } from '../domain/summaries.js';

/**
 * What the jobs service consumes (each runs once per event id, in a transaction with the
 * handled-id record, so a redelivered event changes nothing twice). The state changes are the
 * repository's (db/job.repository.ts), the same functions the use cases and the timers call.
 */
export function jobsEventHandlers(
  deps: () => Pick<JobsDeps, 'events' | 'config' | 'storage' | 'recordingStore' | 'logger'>,
): EventHandlers {
  return {
    // identity: the account's grace period ended; erase what jobs holds (answered at /internal/privacy/erasures/:id)
    UserDeleted: async (e, tx) => {
      await eraseUserInJobs(deps(), e, tx);
    },
    // identity: a projection of users (poster e-mail/name for the admin, tester approval and country)
    UserSignedUp: async (e, tx) => {
      await saveUser(tx, e.data.userId, { email: e.data.email, name: e.data.name });
    },
    // A name changed at sign-in: the projection and the poster name on the user's jobs follow.
    UserRenamed: async (e, tx) => {
      await saveUser(tx, e.data.userId, { email: e.data.email, name: e.data.name });
      await renamePoster(tx, e.data.userId, e.data.name);
    },
    UserRoleChosen: async (e, tx) => {
      const d = e.data;
      await saveUser(tx, d.userId, {
        email: d.email,
        name: d.name,
        type: d.type,
        location: d.location,
        country: d.country,
        approved: d.approved,
        ...(d.strikeLimit !== undefined ? { strikeLimit: d.strikeLimit } : {}),
      });
    },
    TesterApprovalChanged: async (e, tx) => {
      const d = e.data;
      // Identity announces this only for testers, and for a tester pre-approved through her
      // landing-page signup it is the only event that says so (she never sees the role screen,
      // so no UserRoleChosen follows her UserSignedUp): the row must become a tester here too.
      await saveUser(tx, d.userId, {
        email: d.email,
        name: d.name,
        type: 'tester',
        approved: d.approved,
        country: d.country,
        // Events written before identity sent the location leave the projection's as it was.
        ...(d.location !== undefined ? { location: d.location } : {}),
        ...(d.assistiveTech !== undefined ? { assistiveTech: d.assistiveTech } : {}),
        // The strike limit identity unapproves this tester at: jobs' projection follows it (addStrike).
        ...(d.strikeLimit !== undefined ? { strikeLimit: d.strikeLimit } : {}),
      });
      if (!d.approved) {
        // Jobs held for them (an invitation, a re-test) open to every tester at once.
        const released = await releaseHoldsOf(tx, d.userId, new Date(e.occurredAt));
        if (released.length)
          deps().logger.info(
            { testerId: d.userId, jobs: released },
            'holds of an un-approved tester released',
          );
        // An unapproved tester keeps nothing they have not submitted yet.
        for (const held of await listClaimedBy(tx, d.userId)) {
          await applyTransition(
            tx,
            deps(),
            held,
            'tester_unapproved',
            { releasedTesterId: d.userId, releaseReason: 'tester_unapproved' },
            { correlationId: e.correlationId },
          );
        }
      }
    },
    // payments
    JobPaid: async (e, tx) => {
      if (!isUuid(e.data.jobId)) return;
      const paidAt = new Date(e.data.paidAt);
      // A re-test is held for the original tester for RETEST_RESERVE_MS from its payment.
      const reservedUntil = new Date(paidAt.getTime() + deps().config.RETEST_RESERVE_MS);
      // A pack's slot is closed and refunded if nobody claims it within PACK_FILL_WINDOW_MS of the payment.
      const fillDeadlineAt = new Date(paidAt.getTime() + deps().config.PACK_FILL_WINDOW_MS);
      const published = await markJobPaid(tx, {
        jobId: e.data.jobId,
        paidAt,
        sessionId: e.data.sessionId,
        reservedUntil,
        fillDeadlineAt,
      });
      // Testers learn of the job from this (the live channel): only once the job is claimable here.
      if (published) {
        // The poster's job.paid webhook, keyed by payments' event.
        await enqueueJobWebhook(tx, deps().config, {
          type: 'job.paid',
          job: { ...published, status: 'open' },
          eventId: e.id,
          occurredAt: e.occurredAt,
        });
        await deps().events.record(
          tx,
          createEvent(
            'JobPublished',
            published.id,
            {
              jobId: published.id,
              posterId: published.posterId,
              geoRule: published.geoRule as GeoRule,
              paidAt: e.data.paidAt,
              ...(published.fillDeadlineAt
                ? { fillDeadlineAt: published.fillDeadlineAt.toISOString() }
                : {}),
              // What the poster's receipt and the testers' job digest need (notifications).
              title: published.title,
              expectedCompletionHours: published.expectedCompletionHours,
              assistiveTech: published.assistiveTech as AssistiveTech | null,
              freshEyes: published.freshEyes,
              siteHost: published.siteHost,
              reservedTesterId: published.reservedTesterId,
              reservedUntil: published.reservedUntil?.toISOString() ?? null,
            },
            { correlationId: e.correlationId },
          ),
        );
      }
    },
    // site-check: the machine health check of the job's site, kept for the share page and the PDF.
    SiteChecked: async (e, tx) => {
      await saveSiteCheck(tx, {
        jobId: e.data.jobId,
        state: 'done',
        checkedAt: new Date(e.data.checkedAt),
        status: e.data.status,
        summary: e.data.summary,
        failureReason: null,
      });
      // A report already in: its summary (and its pack's) shows what the check confirms.
      const job = await findJob(tx, e.data.jobId);
      if (job?.currentSubmissionId) await requestSummaryOf(tx, job);
    },
    SiteCheckFailed: async (e, tx) => {
      await saveSiteCheck(tx, {
        jobId: e.data.jobId,
        state: 'failed',
        checkedAt: new Date(e.data.failedAt),
        status: null,
        summary: null,
        failureReason: e.data.reason,
      });
    },
    CheckoutCancelled: async (e, tx) => {
      if (!isUuid(e.data.jobId)) return;
      // The job stays unpublished (unpaid); remember the cancellation for support.
      await noteCheckoutCancelled(tx, e.data.jobId, new Date(e.occurredAt));
    },
  };
}
