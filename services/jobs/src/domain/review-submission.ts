import { createEvent, type EventEnvelope } from '@htm/events';
import type { Tx } from '@htm/service-kit/db';
import { AppError, getCorrelationId, parseOrThrow, type Caller } from '@htm/service-kit';
import { reviewBodySchema } from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import type { JobRow } from '../db/schema.js';
import { applyTransition, getJob, markSubmissionAccepted } from '../db/job.repository.js';
import { addMs, decide } from './job-state.js';

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
  const requestedAt = new Date();
  const deadlineAt = addMs(requestedAt, deps.config.REVISION_WINDOW_MS);
  const reason = body.reason ?? '';
  const updated = await deps.events.inTransaction(async (tx) => {
    const row = (await applyTransition(tx, job, 'request_revision', {
      revisionCount: job.revisionCount + 1,
      revisionDeadlineAt: deadlineAt,
      lastReview: {
        decision: 'request_revision',
        reason,
        specific_issues: body.specific_issues,
        at: requestedAt.toISOString(),
      },
    }))!;
    await deps.events.record(
      tx,
      createEvent(
        'RevisionRequested',
        row.id,
        {
          jobId: row.id,
          testerId: row.testerId!,
          reason,
          requestedAt: requestedAt.toISOString(),
          deadlineAt: deadlineAt.toISOString(),
          posterId: row.posterId,
        },
        { correlationId: getCorrelationId() },
      ),
    );
    return row;
  });
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

async function acceptReviewed(
  deps: JobsDeps,
  job: JobRow,
  by: 'poster' | 'admin',
  reason: string | null,
  actorId?: string,
): Promise<ReviewAnswer> {
  decide(job, 'accept');
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
 * or 'auto_accept' for the timer) and records SubmissionAccepted. A lost race: the poster or admin
 * gets the 409 the job now deserves; the timer gets undefined (stale). Shared by the poster/admin
 * review and the auto-accept timer.
 */
export async function applyAccept(
  tx: Tx,
  deps: { events: { record(tx: Tx, ...e: EventEnvelope[]): Promise<void> } },
  a: {
    jobId: string;
    submissionId: string | null;
    by: 'poster' | 'admin' | 'auto';
    at: Date;
    reason: string | null;
    actorId?: string;
  },
): Promise<JobRow | undefined> {
  const action = a.by === 'auto' ? 'auto_accept' : 'accept';
  const row = await applyTransition(
    tx,
    { id: a.jobId, currentSubmissionId: a.submissionId },
    action,
    {
      completedAt: a.at,
      acceptedBy: a.by,
      lastReview: { decision: 'accept', reason: a.reason, at: a.at.toISOString() },
    },
  );
  if (!row) return undefined;
  const minutesSpent = await markSubmissionAccepted(tx, row.currentSubmissionId!, a.by, a.at);
  await deps.events.record(
    tx,
    createEvent(
      'SubmissionAccepted',
      row.id,
      {
        jobId: row.id,
        testerId: row.testerId!,
        posterId: row.posterId,
        title: row.title,
        acceptedBy: a.by,
        acceptedAt: a.at.toISOString(),
        minutesSpent,
        submissionId: row.currentSubmissionId!,
        ...(a.actorId ? { actorId: a.actorId } : {}),
      },
      { correlationId: getCorrelationId() },
    ),
  );
  return row;
}
