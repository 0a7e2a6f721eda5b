import { and, asc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { eraseUser, type ErasedUser } from '@htm/service-kit/erasure';
import {
  appeals,
  favourites,
  files,
  jobs,
  ratings,
  reportSummaries,
  sessionChecks,
  recordings,
  shareLinks,
  siteChecks,
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
export async function readJobsPart(db: Db | Tx, userId: string) {
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
          deviceUsed: submissions.deviceUsed,
          browserUsed: submissions.browserUsed,
          keyFindings: submissions.keyFindings,
          findingDetails: submissions.findingDetails,
          requirementResponses: submissions.requirementResponses,
          generalFeedback: submissions.generalFeedback,
          fileIds: submissions.fileIds,
          submittedAt: submissions.submittedAt,
          acceptedAt: submissions.acceptedAt,
        })
        .from(submissions)
        .where(
          and(
            inArray(
              submissions.jobId,
              posted.map((j) => j.id),
            ),
            // A report held by its session check never reached the poster.
            eq(submissions.held, false),
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
  const links = await db
    .select({
      jobId: shareLinks.jobId,
      scope: shareLinks.scope,
      createdAt: shareLinks.createdAt,
      expiresAt: shareLinks.expiresAt,
      revokedAt: shareLinks.revokedAt,
    })
    .from(shareLinks)
    .where(eq(shareLinks.createdBy, userId));
  // What each link shares: a job's report, or every report of a pack (its jobs: title, slots).
  const ids = links.map((l) => l.jobId);
  const subjects = ids.length
    ? await db
        .select({ id: jobs.id, packId: jobs.packId, title: jobs.title, status: jobs.status })
        .from(jobs)
        .where(or(inArray(jobs.id, ids), inArray(jobs.packId, ids)))
        .orderBy(asc(jobs.createdAt), asc(jobs.id))
    : [];
  const shares = links.map((l) => {
    const of =
      l.scope === 'pack'
        ? subjects.filter((j) => j.packId === l.jobId)
        : subjects.filter((j) => j.id === l.jobId);
    return {
      ...l,
      title: of[0]?.title ?? null,
      // A pack's slots that were not closed unfilled: the testers whose reports it shares.
      testers: l.scope === 'pack' ? of.filter((j) => j.status !== 'closed').length : 1,
    };
  });
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
  // What the session checks found in the tester's reports.
  const checks = await db
    .select({
      submissionId: sessionChecks.submissionId,
      jobId: sessionChecks.jobId,
      status: sessionChecks.status,
      verdict: sessionChecks.verdict,
      reasons: sessionChecks.reasons,
      metrics: sessionChecks.metrics,
      replacedBy: sessionChecks.replacedBy,
      releasedAt: sessionChecks.releasedAt,
      confirmedAt: sessionChecks.confirmedAt,
      createdAt: sessionChecks.createdAt,
      checkedAt: sessionChecks.checkedAt,
    })
    .from(sessionChecks)
    .where(eq(sessionChecks.testerId, userId));
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
    session_checks: checks,
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

/**
 * Erases the user in jobs (UserDeleted's transaction). Jobs and reports stay (other people paid
 * for or did that work) with the person replaced by the pseudonym; their personal fields, share
 * links, webhooks and tracker tokens go; their uploads and recordings are deleted (rows here,
 * bytes by the caller from the answered keys). The poster's paid jobs nobody started leave every
 * list (payment_status 'refunded') and are answered for payments to refund (JobsWithdrawn). Running it twice finds nothing left to change.
 */
export async function eraseJobsUser(
  tx: Tx,
  user: ErasedUser,
): Promise<{ fileKeys: string[]; recordingIds: string[]; refundJobIds: string[] }> {
  const { userId } = user;
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
  const unpaid = await tx
    .update(jobs)
    .set({ deletedAt: now })
    .where(and(eq(jobs.posterId, userId), eq(jobs.paymentStatus, 'unpaid'), isNull(jobs.deletedAt)))
    .returning({ id: jobs.id });
  // The health checks of the jobs that left with the account (the kept jobs keep theirs, in their reports).
  const left = [...withdrawn, ...unpaid].map((j) => j.id);
  if (left.length) await tx.delete(siteChecks).where(inArray(siteChecks.jobId, left));
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
  await eraseUser(tx, user, [
    {
      pseudonymise: jobs,
      where: jobs.posterId,
      also: { posterEmail: '', posterName: ERASED_NAME },
    },
    { pseudonymise: jobs, where: jobs.testerId },
    {
      clear: jobs,
      where: jobs.reservedTesterId,
      set: { reservedTesterId: null, reservedUntil: null },
    },
    { pseudonymise: jobs, where: jobs.releasedTesterId },
    {
      pseudonymise: submissions,
      where: submissions.testerId,
      also: {
        submittedByName: ERASED_NAME,
        submittedByLocation: null,
        deviceUsed: null,
        browserUsed: null,
        previewFileId: null,
        fileIds: [],
        recordingId: null,
      },
    },
    // The check of a kept submission stays with it, under the pseudonym (#52's table).
    { pseudonymise: sessionChecks, where: sessionChecks.testerId },
    { pseudonymise: ratings, where: ratings.testerId },
    { pseudonymise: ratings, where: ratings.posterId, also: { comment: null } },
    // Strikes and appeals are the tester's own record (an appeal's message is their words): they go.
    { forget: appeals, where: appeals.testerId },
    { forget: strikes, where: strikes.testerId },
    // A poster's favourites, and the deleted tester in anyone's favourites, go.
    { forget: favourites, where: favourites.posterId },
    { forget: favourites, where: favourites.testerId },
    // The admin who decided an appeal keeps no name here, only their id; a deleted admin's id goes.
    { pseudonymise: appeals, where: appeals.decidedBy },
    { forget: shareLinks, where: shareLinks.createdBy },
    { forget: trackerCredentials, where: trackerCredentials.ownerId },
    { forget: users, where: users.id },
  ]);
  // A stored summary names its poster (who may read it): the pseudonym now, as on the jobs.
  await tx
    .update(reportSummaries)
    .set({
      summary: sql`jsonb_set(${reportSummaries.summary}, '{posterId}', to_jsonb(${user.pseudonym}::text))`,
    })
    .where(sql`${reportSummaries.summary}->>'posterId' = ${userId}`);
  // After the submissions stopped naming them.
  const recs = await tx
    .delete(recordings)
    .where(eq(recordings.testerId, userId))
    .returning({ id: recordings.id });
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
  return {
    fileKeys: gone.map((f) => f.key),
    recordingIds: recs.map((r) => r.id),
    refundJobIds: withdrawn.map((j) => j.id),
  };
}
