import { and, asc, desc, eq, inArray, isNotNull, isNull, ne, or, sql } from 'drizzle-orm';
import { rowsOf, type Db, type Tx } from '@htm/service-kit/db';
import type {
  SessionCheckReason,
  SessionMetrics,
  SessionVerdict,
} from '@htm/contracts/marketplace';
import {
  appeals,
  jobs,
  sessionChecks,
  submissions,
  type AppealRow,
  type JobRow,
  type SessionCheckRow,
  type SubmissionRow,
} from './schema.js';

type Q = Db | Tx;

/** Earlier reports of the tester that a new one is compared with (the latest ones). */
const OWN_REPORTS_COMPARED = 50;

/** A submission waits for its check: written in the submission's transaction. */
export async function queueSessionCheck(
  tx: Tx,
  row: { submissionId: string; jobId: string; testerId: string },
): Promise<void> {
  await tx.insert(sessionChecks).values(row).onConflictDoNothing();
}

/**
 * Leases up to `limit` due checks for `leaseMs` (FOR UPDATE SKIP LOCKED: every jobs process may
 * poll; a process that dies mid-check leaves the row to be leased again once the lease ends).
 */
export async function leaseDueChecks(
  db: Q,
  limit: number,
  leaseMs: number,
): Promise<SessionCheckRow[]> {
  const rows = await db.execute<{ submission_id: string }>(sql`
    UPDATE jobs.session_checks c
    SET lease_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = c.attempts + 1
    WHERE c.submission_id IN (
      SELECT c2.submission_id FROM jobs.session_checks c2
      WHERE c2.status = 'pending' AND c2.next_attempt_at <= now()
        AND (c2.lease_until IS NULL OR c2.lease_until < now())
      ORDER BY c2.next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
    ) RETURNING c.submission_id`);
  const ids = rowsOf<{ submission_id: string }>(rows).map((r) => r.submission_id);
  if (!ids.length) return [];
  return db.select().from(sessionChecks).where(inArray(sessionChecks.submissionId, ids));
}

/** The check is tried again at `at` (the recording is still being made seekable, or a step failed). */
export async function deferSessionCheck(
  db: Q,
  submissionId: string,
  at: Date,
  note: string | null,
): Promise<void> {
  await db
    .update(sessionChecks)
    .set({ nextAttemptAt: at, leaseUntil: null, note })
    .where(and(eq(sessionChecks.submissionId, submissionId), eq(sessionChecks.status, 'pending')));
}

/**
 * The check's outcome, once: only a pending row is finished (a second process that checked the
 * same submission after a lease ran out finds nothing and records nothing). Returns the row.
 */
export async function finishSessionCheck(
  tx: Tx,
  submissionId: string,
  outcome: {
    verdict: SessionVerdict;
    reasons: SessionCheckReason[];
    metrics: SessionMetrics;
    note: string | null;
    checkedAt: Date;
  },
): Promise<SessionCheckRow | undefined> {
  const [row] = await tx
    .update(sessionChecks)
    .set({ status: 'done', leaseUntil: null, ...outcome })
    .where(and(eq(sessionChecks.submissionId, submissionId), eq(sessionChecks.status, 'pending')))
    .returning();
  return row;
}

export async function findSessionCheck(
  db: Q,
  submissionId: string,
): Promise<SessionCheckRow | undefined> {
  const [row] = await db
    .select()
    .from(sessionChecks)
    .where(eq(sessionChecks.submissionId, submissionId))
    .limit(1);
  return row;
}

type ReportWords = Pick<
  SubmissionRow,
  'keyFindings' | 'findingDetails' | 'requirementResponses' | 'generalFeedback'
>;
const wordsColumns = {
  keyFindings: submissions.keyFindings,
  findingDetails: submissions.findingDetails,
  requirementResponses: submissions.requirementResponses,
  generalFeedback: submissions.generalFeedback,
};

/**
 * The reports a submission must not repeat: the tester's own earlier reports on other jobs (the
 * latest OWN_REPORTS_COMPARED; a resubmission of the same job may repeat its first version), and
 * every other tester's report of the same job or of the other jobs of its pack.
 */
export async function reportsToCompare(
  db: Q,
  sub: Pick<SubmissionRow, 'id' | 'jobId' | 'testerId'>,
  packId: string | null,
): Promise<ReportWords[]> {
  const own = await db
    .select(wordsColumns)
    .from(submissions)
    .where(and(eq(submissions.testerId, sub.testerId), ne(submissions.jobId, sub.jobId)))
    .orderBy(desc(submissions.submittedAt))
    .limit(OWN_REPORTS_COMPARED);
  const siblings = await db
    .select(wordsColumns)
    .from(submissions)
    .innerJoin(jobs, eq(jobs.id, submissions.jobId))
    .where(
      and(
        ne(submissions.testerId, sub.testerId),
        packId ? or(eq(jobs.id, sub.jobId), eq(jobs.packId, packId)) : eq(jobs.id, sub.jobId),
      ),
    );
  return [...own, ...siblings];
}

/** Keeps a report from its poster (a failed check), or gives it back (the admin's release). */
export async function setSubmissionHeld(
  tx: Tx,
  submissionId: string,
  held: boolean,
): Promise<void> {
  await tx.update(submissions).set({ held }).where(eq(submissions.id, submissionId));
}

/**
 * A held submission reaches its poster: no longer held, but only while it is the one its job
 * waits a review for (submitted, current). False when it was not held or the job moved on.
 */
export async function unholdCurrentSubmission(
  tx: Tx,
  jobId: string,
  submissionId: string,
): Promise<boolean> {
  const rows = await tx
    .update(submissions)
    .set({ held: false })
    .where(
      and(
        eq(submissions.id, submissionId),
        eq(submissions.held, true),
        sql`EXISTS (SELECT 1 FROM jobs.jobs j WHERE j.id = ${jobId} AND j.status = 'submitted' AND j.current_submission_id = ${submissionId})`,
      ),
    )
    .returning({ id: submissions.id });
  return rows.length > 0;
}

/**
 * The job's reports released after a failed check (the admin, an upheld appeal) that are not its
 * current one: the job had gone to another tester. Oldest release first.
 */
export async function releasedOtherReports(
  db: Q,
  jobId: string,
  currentSubmissionId: string | null,
): Promise<SubmissionRow[]> {
  const rows = await db
    .select({ sub: submissions })
    .from(sessionChecks)
    .innerJoin(submissions, eq(submissions.id, sessionChecks.submissionId))
    .where(
      and(
        eq(sessionChecks.jobId, jobId),
        isNotNull(sessionChecks.releasedAt),
        eq(submissions.held, false),
        currentSubmissionId ? ne(submissions.id, currentSubmissionId) : undefined,
      ),
    )
    .orderBy(asc(sessionChecks.releasedAt));
  return rows.map((r) => r.sub);
}

/**
 * The ids of every report of these jobs released after a failed check that is not its job's
 * current one (releasedOtherReports for a whole pack, in one query).
 */
export async function releasedOtherReportIds(
  db: Q,
  jobs: readonly { id: string; currentSubmissionId: string | null }[],
): Promise<string[]> {
  if (!jobs.length) return [];
  const current = new Set(jobs.map((j) => j.currentSubmissionId).filter(Boolean));
  const rows = await db
    .select({ id: submissions.id })
    .from(sessionChecks)
    .innerJoin(submissions, eq(submissions.id, sessionChecks.submissionId))
    .where(
      and(
        inArray(
          sessionChecks.jobId,
          jobs.map((j) => j.id),
        ),
        isNotNull(sessionChecks.releasedAt),
        eq(submissions.held, false),
      ),
    )
    .orderBy(asc(sessionChecks.releasedAt));
  return rows.map((r) => r.id).filter((id) => !current.has(id));
}

/** The job went to another tester because of this session. */
export async function markSessionReplaced(
  tx: Tx,
  submissionId: string,
  by: 'check' | 'poster',
): Promise<void> {
  await tx
    .update(sessionChecks)
    .set({ replacedBy: by })
    .where(eq(sessionChecks.submissionId, submissionId));
}

/** Whether the poster already had their one free replacement of this job. */
export async function posterReplacementUsed(db: Q, jobId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: sessionChecks.submissionId })
    .from(sessionChecks)
    .where(and(eq(sessionChecks.jobId, jobId), eq(sessionChecks.replacedBy, 'poster')))
    .limit(1);
  return !!row;
}

/** A tester's checked reports that did not simply pass, newest first, with their job's title. */
export async function listTesterChecks(
  db: Q,
  testerId: string,
  limit: number,
): Promise<Array<SessionCheckRow & { title: string; held: boolean }>> {
  const rows = await db
    .select({ c: sessionChecks, title: jobs.title, held: submissions.held })
    .from(sessionChecks)
    .innerJoin(jobs, eq(jobs.id, sessionChecks.jobId))
    .innerJoin(submissions, eq(submissions.id, sessionChecks.submissionId))
    .where(
      and(
        eq(sessionChecks.testerId, testerId),
        eq(sessionChecks.status, 'done'),
        ne(sessionChecks.verdict, 'pass'),
      ),
    )
    .orderBy(desc(sessionChecks.checkedAt))
    .limit(limit);
  return rows.map((r) => ({ ...r.c, title: r.title, held: r.held }));
}

/** A failed session with its report, its job and its tester's appeal of it (the admin's queue). */
export interface FailedSession {
  check: SessionCheckRow;
  submission: SubmissionRow;
  job: JobRow;
  appeal: AppealRow | null;
}

/** Failed sessions whose job went to another tester because of them (replaced by the check). */
export const failedSession = and(
  eq(sessionChecks.verdict, 'fail'),
  eq(sessionChecks.replacedBy, 'check'),
);
const undecided = and(isNull(sessionChecks.releasedAt), isNull(sessionChecks.confirmedAt));

function selectFailed(db: Q) {
  return db
    .select({ check: sessionChecks, submission: submissions, job: jobs, appeal: appeals })
    .from(sessionChecks)
    .innerJoin(submissions, eq(submissions.id, sessionChecks.submissionId))
    .innerJoin(jobs, eq(jobs.id, sessionChecks.jobId))
    .leftJoin(
      appeals,
      and(
        eq(appeals.testerId, sessionChecks.testerId),
        eq(appeals.jobId, sessionChecks.jobId),
        eq(appeals.kind, 'session_check'),
      ),
    );
}

/**
 * The admin's queue: failed sessions nobody decided yet, oldest first (`held`), or the latest
 * decided ones (`decided`: released or confirmed).
 */
export async function listFailedSessions(
  db: Q,
  status: 'held' | 'decided',
  limit: number,
): Promise<FailedSession[]> {
  const q = selectFailed(db);
  return status === 'held'
    ? q
        .where(and(failedSession, undecided))
        .orderBy(asc(sessionChecks.checkedAt), asc(sessionChecks.submissionId))
        .limit(limit)
    : q
        .where(
          and(
            failedSession,
            or(isNotNull(sessionChecks.releasedAt), isNotNull(sessionChecks.confirmedAt)),
          ),
        )
        .orderBy(
          desc(sql`COALESCE(${sessionChecks.releasedAt}, ${sessionChecks.confirmedAt})`),
          asc(sessionChecks.submissionId),
        )
        .limit(limit);
}

/** One failed session by its submission, or the tester's latest failed session of a job. */
export async function findFailedSession(
  db: Q,
  by: { submissionId: string } | { testerId: string; jobId: string },
): Promise<FailedSession | undefined> {
  const [row] = await selectFailed(db)
    .where(
      and(
        failedSession,
        'submissionId' in by
          ? eq(sessionChecks.submissionId, by.submissionId)
          : and(eq(sessionChecks.testerId, by.testerId), eq(sessionChecks.jobId, by.jobId)),
      ),
    )
    .orderBy(desc(sessionChecks.checkedAt))
    .limit(1);
  return row;
}

/**
 * The admin's decision on a failed session, once: released (no strike; also after a confirmation,
 * when an appeal overturns it) or confirmed (a strike; only while undecided). The row, or
 * undefined when it was decided that way already.
 */
export async function decideFailedSession(
  tx: Tx,
  submissionId: string,
  d: { decision: 'released' | 'confirmed'; by: 'admin' | 'appeal'; actorId: string; at: Date },
): Promise<SessionCheckRow | undefined> {
  const [row] = await tx
    .update(sessionChecks)
    .set(
      d.decision === 'released'
        ? { releasedAt: d.at, releasedBy: d.by, decidedBy: d.actorId }
        : { confirmedAt: d.at, decidedBy: d.actorId },
    )
    .where(
      and(
        eq(sessionChecks.submissionId, submissionId),
        failedSession,
        d.decision === 'released' ? isNull(sessionChecks.releasedAt) : undecided,
      ),
    )
    .returning();
  return row;
}

/** The jobs whose failed or replaced session of this tester sent them to another tester: not theirs to claim again. */
export async function jobsReplacedFrom(db: Q, testerId: string, jobId?: string): Promise<string[]> {
  const rows = await db
    .select({ jobId: sessionChecks.jobId })
    .from(sessionChecks)
    .where(
      and(
        eq(sessionChecks.testerId, testerId),
        isNotNull(sessionChecks.replacedBy),
        isNull(sessionChecks.releasedAt),
        jobId ? eq(sessionChecks.jobId, jobId) : undefined,
      ),
    );
  return [...new Set(rows.map((r) => r.jobId))];
}
