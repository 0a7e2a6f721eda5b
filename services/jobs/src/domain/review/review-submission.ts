import type { Tx } from '@htm/service-kit/db';
import { AppError, parseOrThrow, type Caller } from '@htm/service-kit';
import { JOB_MESSAGES, reviewBodySchema } from '@htm/contracts';
import type { JobsDeps } from '../../deps.js';
import type { JobRow } from '../../db/schema.js';
import { markSubmissionAccepted, reportHeld } from '../../db/job.repository.js';
import { addMs, applyTransition, decide, getJob, type TransitionDeps } from '../job-state.js';

export interface ReviewAnswer {
  payment_processed: boolean;
  revision_count: number;
  job: JobRow;
}

function assertReviewer(caller: Caller, job: JobRow): 'poster' | 'admin' {
  if (caller.type === 'admin') return 'admin';
  if (caller.type === 'poster' && job.posterId === caller.id) return 'poster';
  throw AppError.forbidden(
    'Only the poster of this job can review its submission.',
    'not_job_poster',
  );
}

/**
 * POST /api/jobs/:id/review. Who may review is checked before the body is read, so a stranger
 * gets 403 whatever they send. Reject is refused by the body schema (400).
 */
export async function reviewSubmission(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
  rawBody: unknown,
): Promise<ReviewAnswer> {
  const job = await getJob(deps.db, jobId);
  const by = assertReviewer(caller, job);
  const body = parseOrThrow(reviewBodySchema, rawBody ?? {});
  if (body.decision === 'accept')
    return acceptReviewed(
      deps,
      job,
      by,
      body.reason ?? null,
      by === 'admin' ? caller.id : undefined,
    );
  if (body.decision !== 'request_revision') throw AppError.invalid('Please choose a decision');
  decide(job, 'request_revision');
  await assertDelivered(deps, job);
  const requestedAt = new Date();
  const deadlineAt = addMs(requestedAt, deps.config.REVISION_WINDOW_MS);
  const reason = body.reason ?? '';
  const updated = (await deps.events.inTransaction((tx) =>
    applyTransition(tx, deps, job, 'request_revision', {
      revisionCount: job.revisionCount + 1,
      revisionDeadlineAt: deadlineAt,
      lastReview: {
        decision: 'request_revision',
        reason,
        specific_issues: body.specific_issues,
        at: requestedAt.toISOString(),
      },
    }),
  ))!;
  return { payment_processed: false, revision_count: updated.revisionCount, job: updated };
}

/** PATCH /api/jobs/:id/complete: the admin accepts on the poster's behalf. */
export async function completeJob(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
): Promise<ReviewAnswer> {
  if (caller.type !== 'admin')
    throw AppError.forbidden('Only the admin can complete a job.', 'wrong_role');
  return acceptReviewed(deps, await getJob(deps.db, jobId), 'admin', null, caller.id);
}

/** A report still held by its session check cannot be reviewed: its poster has not seen it. */
async function assertDelivered(deps: Pick<JobsDeps, 'db'>, job: JobRow): Promise<void> {
  if (await reportHeld(deps.db, job.currentSubmissionId))
    throw AppError.conflict(JOB_MESSAGES.reportChecking, 'report_checking');
}

async function acceptReviewed(
  deps: JobsDeps,
  job: JobRow,
  by: 'poster' | 'admin',
  reason: string | null,
  actorId?: string,
): Promise<ReviewAnswer> {
  decide(job, 'accept');
  await assertDelivered(deps, job);
  const acceptedAt = new Date();
  const updated = (await deps.events.inTransaction((tx) =>
    applyAccept(tx, deps, {
      jobId: job.id,
      submissionId: job.currentSubmissionId,
      by,
      at: acceptedAt,
      reason,
      actorId,
    }),
  ))!;
  return { payment_processed: true, revision_count: updated.revisionCount, job: updated };
}

/**
 * Completes a submitted job whose current submission is `submissionId` (applyTransition 'accept',
 * or 'auto_accept' for the timer: SubmissionAccepted recorded with it). A lost race: the poster or admin
 * gets the 409 the job now deserves; the timer gets undefined (stale). Shared by the poster/admin
 * review and the auto-accept timer.
 */
export async function applyAccept(
  tx: Tx,
  deps: TransitionDeps,
  a: {
    jobId: string;
    submissionId: string | null;
    by: 'poster' | 'admin' | 'auto';
    at: Date;
    reason: string | null;
    actorId?: string;
  },
): Promise<JobRow | undefined> {
  return applyTransition(
    tx,
    deps,
    // asOf: the timer's action applies only once the job's auto-accept time has come.
    { id: a.jobId, currentSubmissionId: a.submissionId, asOf: a.at },
    a.by === 'auto' ? 'auto_accept' : 'accept',
    {
      completedAt: a.at,
      acceptedBy: a.by,
      lastReview: { decision: 'accept', reason: a.reason, at: a.at.toISOString() },
    },
    // The accepted submission is marked too; SubmissionAccepted carries its minutes.
    async (row) => ({
      minutesSpent: await markSubmissionAccepted(tx, row.currentSubmissionId!, a.by, a.at),
      actorId: a.actorId,
    }),
  );
}
