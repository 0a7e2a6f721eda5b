import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import {
  appeals,
  favourites,
  files,
  handledEvents,
  jobs,
  ratings,
  recordings,
  shareLinks,
  strikes,
  submissions,
  trackerCredentials,
  users,
  webhookDeliveries,
  webhookEndpoints,
  type FileRow,
  type RecordingRow,
} from './schema.js';

/** All SQL of the jobs service's part of "Your data, your call": what it holds about a user, and erasing it. */

const ERASED_NAME = 'Deleted user';

/** Everything jobs stores about the user (no secrets: webhook secrets, share nonces and tracker tokens are left out). */
export async function readJobsPart(db: Db | Tx, userId: string): Promise<Record<string, unknown>> {
  const [profile] = await db.select().from(users).where(eq(users.id, userId));
  const posted = await db.select().from(jobs).where(eq(jobs.posterId, userId));
  const ownSubs = await db.select().from(submissions).where(eq(submissions.testerId, userId));
  const worked = await db
    .select({
      id: jobs.id,
      title: jobs.title,
      url: jobs.url,
      status: jobs.status,
      claimedAt: jobs.claimedAt,
      completedAt: jobs.completedAt,
    })
    .from(jobs)
    .where(
      or(
        eq(jobs.testerId, userId),
        ownSubs.length
          ? inArray(
              jobs.id,
              ownSubs.map((s) => s.jobId),
            )
          : sql`false`,
      ),
    );
  const received = posted.length
    ? await db
        .select({
          id: submissions.id,
          jobId: submissions.jobId,
          revision: submissions.revision,
          keyFindings: submissions.keyFindings,
          findingDetails: submissions.findingDetails,
          generalFeedback: submissions.generalFeedback,
          submittedAt: submissions.submittedAt,
          acceptedAt: submissions.acceptedAt,
        })
        .from(submissions)
        .where(
          inArray(
            submissions.jobId,
            posted.map((j) => j.id),
          ),
        )
    : [];
  const given = await db.select().from(ratings).where(eq(ratings.posterId, userId));
  const got = await db
    .select({
      jobId: ratings.jobId,
      stars: ratings.stars,
      comment: ratings.comment,
      createdAt: ratings.createdAt,
    })
    .from(ratings)
    .where(eq(ratings.testerId, userId));
  const shares = await db
    .select({
      jobId: shareLinks.jobId,
      createdAt: shareLinks.createdAt,
      expiresAt: shareLinks.expiresAt,
    })
    .from(shareLinks)
    .where(eq(shareLinks.createdBy, userId));
  const hooks = await db
    .select({
      id: webhookEndpoints.id,
      url: webhookEndpoints.url,
      events: webhookEndpoints.events,
      createdAt: webhookEndpoints.createdAt,
      disabledAt: webhookEndpoints.disabledAt,
    })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.ownerId, userId));
  const trackers = await db
    .select({
      kind: trackerCredentials.kind,
      settings: trackerCredentials.settings,
      updatedAt: trackerCredentials.updatedAt,
    })
    .from(trackerCredentials)
    .where(eq(trackerCredentials.ownerId, userId));
  const recs = await db.select().from(recordings).where(eq(recordings.testerId, userId));
  const ownStrikes = await db
    .select({
      jobId: strikes.jobId,
      reason: strikes.reason,
      createdAt: strikes.createdAt,
      overturnedAt: strikes.overturnedAt,
    })
    .from(strikes)
    .where(eq(strikes.testerId, userId));
  const ownAppeals = await db
    .select({
      id: appeals.id,
      jobId: appeals.jobId,
      kind: appeals.kind,
      message: appeals.message,
      status: appeals.status,
      decisionNote: appeals.decisionNote,
      createdAt: appeals.createdAt,
      decidedAt: appeals.decidedAt,
    })
    .from(appeals)
    .where(eq(appeals.testerId, userId));
  const favs = await db
    .select({ testerId: favourites.testerId, createdAt: favourites.createdAt })
    .from(favourites)
    .where(eq(favourites.posterId, userId));
  return {
    profile: profile ?? null,
    jobs_posted: posted.map((j) => ({ ...j, checkoutSessionId: undefined })),
    jobs_worked: worked,
    submissions: ownSubs,
    reports_received: received,
    ratings_given: given,
    ratings_received: got,
    share_links: shares,
    webhooks: hooks,
    issue_trackers: trackers,
    recordings: recs,
    strikes: ownStrikes,
    appeals: ownAppeals,
    favourite_testers: favs,
  };
}

/** The user's uploaded files (originals of their submissions) and finished recordings. */
export async function listUserFiles(
  db: Db | Tx,
  userId: string,
): Promise<{ files: FileRow[]; recordings: RecordingRow[] }> {
  const own = await db
    .select()
    .from(files)
    .where(
      and(
        eq(files.kind, 'original'),
        inArray(
          files.submissionId,
          db
            .select({ id: submissions.id })
            .from(submissions)
            .where(eq(submissions.testerId, userId)),
        ),
      ),
    );
  const recs = await db
    .select()
    .from(recordings)
    .where(and(eq(recordings.testerId, userId), eq(recordings.status, 'complete')));
  return { files: own, recordings: recs };
}

/** Jobs the user holds as their tester (claimed or in revision): deleting the account would strand them. */
export function listHeldJobs(
  db: Db | Tx,
  userId: string,
): Promise<Array<{ id: string; title: string }>> {
  return db
    .select({ id: jobs.id, title: jobs.title })
    .from(jobs)
    .where(and(eq(jobs.testerId, userId), inArray(jobs.status, ['claimed', 'revision_requested'])));
}

export async function wasHandled(db: Db, eventId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: handledEvents.eventId })
    .from(handledEvents)
    .where(eq(handledEvents.eventId, eventId));
  return Boolean(row);
}

/**
 * Erases the user in jobs (UserDeleted's transaction). Jobs and reports stay (other people paid
 * for or did that work) with the person replaced by the pseudonym; their personal fields, share
 * links, webhooks and tracker tokens go; their uploads and recordings are deleted (rows here,
 * bytes by the caller from the answered keys). The poster's paid jobs nobody started leave every
 * list (payment_status 'refunded') and are answered for payments to refund (JobsWithdrawn). Running it twice finds nothing left to change.
 */
export async function eraseJobsUser(
  tx: Tx,
  userId: string,
  pseudonym: string,
): Promise<{ fileKeys: string[]; recordingIds: string[]; refundJobIds: string[] }> {
  const now = new Date();
  const withdrawn = await tx
    .update(jobs)
    .set({ deletedAt: now, paymentStatus: 'refunded' })
    .where(
      and(
        eq(jobs.posterId, userId),
        eq(jobs.status, 'open'),
        eq(jobs.paymentStatus, 'paid'),
        isNull(jobs.testerId),
        isNull(jobs.deletedAt),
      ),
    )
    .returning({ id: jobs.id });
  await tx
    .update(jobs)
    .set({ deletedAt: now })
    .where(
      and(eq(jobs.posterId, userId), eq(jobs.paymentStatus, 'unpaid'), isNull(jobs.deletedAt)),
    );
  await tx
    .update(jobs)
    .set({ posterId: pseudonym, posterEmail: '', posterName: ERASED_NAME })
    .where(eq(jobs.posterId, userId));
  await tx.update(jobs).set({ testerId: pseudonym }).where(eq(jobs.testerId, userId));
  await tx
    .update(jobs)
    .set({ reservedTesterId: null, reservedUntil: null })
    .where(eq(jobs.reservedTesterId, userId));
  await tx
    .update(jobs)
    .set({ releasedTesterId: pseudonym })
    .where(eq(jobs.releasedTesterId, userId));

  const subIds = (
    await tx
      .select({ id: submissions.id })
      .from(submissions)
      .where(eq(submissions.testerId, userId))
  ).map((s) => s.id);
  const gone = subIds.length
    ? await tx
        .delete(files)
        .where(inArray(files.submissionId, subIds))
        .returning({ key: files.storageKey })
    : [];
  await tx
    .update(submissions)
    .set({
      testerId: pseudonym,
      submittedByName: ERASED_NAME,
      submittedByLocation: null,
      deviceUsed: null,
      browserUsed: null,
      previewFileId: null,
      fileIds: [],
      recordingId: null,
    })
    .where(eq(submissions.testerId, userId));
  const recs = await tx
    .delete(recordings)
    .where(eq(recordings.testerId, userId))
    .returning({ id: recordings.id });

  await tx.update(ratings).set({ testerId: pseudonym }).where(eq(ratings.testerId, userId));
  await tx
    .update(ratings)
    .set({ posterId: pseudonym, comment: null })
    .where(eq(ratings.posterId, userId));
  // Strikes and appeals are the tester's own record (an appeal's message is their words): they go.
  await tx.delete(appeals).where(eq(appeals.testerId, userId));
  await tx.delete(strikes).where(eq(strikes.testerId, userId));
  // A poster's favourites, and the deleted tester in anyone's favourites, go.
  await tx
    .delete(favourites)
    .where(or(eq(favourites.posterId, userId), eq(favourites.testerId, userId)));
  // The admin who decided an appeal keeps no name here, only their id; a deleted admin's id goes.
  await tx.update(appeals).set({ decidedBy: pseudonym }).where(eq(appeals.decidedBy, userId));
  await tx.delete(shareLinks).where(eq(shareLinks.createdBy, userId));
  const hooks = await tx
    .delete(webhookEndpoints)
    .where(eq(webhookEndpoints.ownerId, userId))
    .returning({ id: webhookEndpoints.id });
  if (hooks.length)
    await tx.delete(webhookDeliveries).where(
      inArray(
        webhookDeliveries.endpointId,
        hooks.map((h) => h.id),
      ),
    );
  await tx.delete(trackerCredentials).where(eq(trackerCredentials.ownerId, userId));
  await tx.delete(users).where(eq(users.id, userId));
  return {
    fileKeys: gone.map((f) => f.key),
    recordingIds: recs.map((r) => r.id),
    refundJobIds: withdrawn.map((j) => j.id),
  };
}
