import { createEvent } from '@htm/events';
import { AppError, getCorrelationId, parseOrThrow, type Caller } from '@htm/service-kit';
import { JOB_MESSAGES, rateJobBodySchema } from '@htm/contracts';
import type { JobsDeps } from '../../deps.js';
import type { RatingRow } from '../../db/schema.js';
import { findRating, insertRating } from '../../db/job.repository.js';
import { getJob } from '../job-state.js';

/**
 * POST /api/jobs/:id/rating: the job's poster rates its tester once the job is completed
 * (accepted or auto-accepted). Who may rate is checked before the body is read; the rating,
 * the tester's standing in the projection and TesterRated are written in one transaction.
 */
export async function rateJob(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
  rawBody: unknown,
): Promise<RatingRow> {
  const job = await getJob(deps.db, jobId);
  if (job.posterId !== caller.id)
    throw AppError.forbidden('Only the poster of this job can rate its tester.', 'not_job_poster');
  const body = parseOrThrow(rateJobBodySchema, rawBody ?? {});
  if (job.status !== 'completed' || !job.testerId)
    throw AppError.conflict(JOB_MESSAGES.notCompleted, 'not_completed');
  if (await findRating(deps.db, job.id))
    throw AppError.conflict(JOB_MESSAGES.alreadyRated, 'already_rated');
  const testerId = job.testerId;
  const createdAt = new Date();
  const rating = await deps.events.inTransaction(async (tx) => {
    const row = await insertRating(tx, {
      jobId: job.id,
      testerId,
      posterId: job.posterId,
      stars: body.stars,
      comment: body.comment,
      createdAt,
    });
    if (!row) return undefined;
    await deps.events.record(
      tx,
      createEvent(
        'TesterRated',
        job.id,
        {
          jobId: job.id,
          testerId,
          posterId: job.posterId,
          stars: row.stars,
          comment: row.comment,
          ratedAt: createdAt.toISOString(),
        },
        { correlationId: getCorrelationId() },
      ),
    );
    return row;
  });
  if (!rating) throw AppError.conflict(JOB_MESSAGES.alreadyRated, 'already_rated');
  return rating;
}
