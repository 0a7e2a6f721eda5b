import { createEvent, type EventHandlers } from '@htm/events';
import type { GeoRule } from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import { eraseUserInJobs } from '../domain/privacy.js';
import {
  applyTransition,
  isUuid,
  listClaimedBy,
  markJobPaid,
  noteCheckoutCancelled,
  renamePoster,
  saveUser,
} from '../db/job.repository.js';
import type { AssistiveTech } from '@htm/contracts';

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
        // An unapproved tester keeps nothing they have not submitted yet.
        for (const held of await listClaimedBy(tx, d.userId)) {
          const r = await applyTransition(tx, held, 'tester_unapproved', {
            releasedTesterId: d.userId,
            releaseReason: 'tester_unapproved',
          });
          if (!r) continue;
          await deps().events.record(
            tx,
            createEvent(
              'JobReleased',
              r.id,
              {
                jobId: r.id,
                testerId: d.userId,
                reason: 'tester_unapproved',
                posterId: r.posterId,
                geoRule: r.geoRule as GeoRule,
              },
              { correlationId: e.correlationId },
            ),
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
    CheckoutCancelled: async (e, tx) => {
      if (!isUuid(e.data.jobId)) return;
      // The job stays unpublished (unpaid); remember the cancellation for support.
      await noteCheckoutCancelled(tx, e.data.jobId, new Date(e.occurredAt));
    },
  };
}
