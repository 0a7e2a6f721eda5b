import { and, eq, isNull, ne } from 'drizzle-orm';
import { createEvent, type EventHandlers } from '@htm/events';
import type { JobsDeps } from '../deps.js';
import { jobs, users } from '../db/schema.js';
import { isUuid } from '../db/job.repository.js';

/**
 * What the jobs service consumes (each runs once per event id, in a transaction with the
 * handled-id record, so a redelivered event changes nothing twice).
 */
export function jobsEventHandlers(deps: () => Pick<JobsDeps, 'events'>): EventHandlers {
  return {
    // identity: a projection of users (poster e-mail/name for the admin, tester approval and country)
    UserSignedUp: async (e, tx) => {
      await tx
        .insert(users)
        .values({ id: e.data.userId, email: e.data.email, name: e.data.name })
        .onConflictDoUpdate({ target: users.id, set: { email: e.data.email, name: e.data.name, updatedAt: new Date() } });
    },
    UserRoleChosen: async (e, tx) => {
      const d = e.data;
      const set = { email: d.email, name: d.name, type: d.type, location: d.location, country: d.country, approved: d.approved, updatedAt: new Date() };
      await tx.insert(users).values({ id: d.userId, ...set }).onConflictDoUpdate({ target: users.id, set });
    },
    TesterApprovalChanged: async (e, tx) => {
      const d = e.data;
      // Identity announces this only for testers, and for a tester pre-approved through her
      // landing-page signup it is the only event that says so (she never sees the role screen,
      // so no UserRoleChosen follows her UserSignedUp): the row must become a tester here too.
      const set = {
        email: d.email,
        name: d.name,
        type: 'tester',
        approved: d.approved,
        country: d.country,
        // Events written before identity sent the location leave the projection's as it was.
        ...(d.location !== undefined ? { location: d.location } : {}),
        updatedAt: new Date(),
      };
      await tx.insert(users).values({ id: d.userId, ...set }).onConflictDoUpdate({ target: users.id, set });
      if (!d.approved) {
        // An unapproved tester keeps nothing they have not submitted yet.
        const released = await tx
          .update(jobs)
          .set({ status: 'open', testerId: null, claimedAt: null, claimDeadlineAt: null })
          .where(and(eq(jobs.testerId, d.userId), eq(jobs.status, 'claimed')))
          .returning({ id: jobs.id });
        for (const r of released) {
          await deps().events.record(tx, createEvent('JobReleased', r.id, { jobId: r.id, testerId: d.userId, reason: 'tester_unapproved' }, { correlationId: e.correlationId }));
        }
      }
    },
    // payments
    JobPaid: async (e, tx) => {
      if (!isUuid(e.data.jobId)) return;
      await tx
        .update(jobs)
        .set({ paymentStatus: 'paid', paidAt: new Date(e.data.paidAt), checkoutSessionId: e.data.sessionId })
        .where(and(eq(jobs.id, e.data.jobId), ne(jobs.paymentStatus, 'paid')));
    },
    CheckoutCancelled: async (e, tx) => {
      if (!isUuid(e.data.jobId)) return;
      // The job stays unpublished (unpaid); remember the cancellation for support.
      await tx
        .update(jobs)
        .set({ checkoutCancelledAt: new Date(e.occurredAt) })
        .where(and(eq(jobs.id, e.data.jobId), ne(jobs.paymentStatus, 'paid'), isNull(jobs.checkoutCancelledAt)));
    },
  };
}
