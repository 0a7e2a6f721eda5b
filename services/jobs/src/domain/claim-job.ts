import { and, eq } from 'drizzle-orm';
import { createEvent } from '@htm/events';
import { AppError, getCorrelationId, type Caller } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import { jobs, type JobRow } from '../db/schema.js';
import { countActiveClaims, findUser, getJob, lockTester } from '../db/job.repository.js';
import { claimDeadline, decide, geoAllows } from './job-state.js';

export interface TesterStanding {
  id: string;
  approved: boolean;
  country: string | null;
}

/**
 * A tester's approval and country: the jobs service's own projection (identity events) wins;
 * the token's claims are used only while the projection has no row for them yet.
 */
export async function testerStanding(deps: Pick<JobsDeps, 'db'>, caller: Caller): Promise<TesterStanding> {
  const row = await findUser(deps.db, caller.id);
  if (row && row.approved !== null) return { id: caller.id, approved: row.approved, country: row.country ?? caller.country };
  return { id: caller.id, approved: caller.approved, country: row?.country ?? caller.country };
}

/** POST /api/jobs/:id/claim and /accept: the calling tester takes the job. */
export async function claimJob(deps: JobsDeps, caller: Caller, jobId: string): Promise<JobRow> {
  const standing = await testerStanding(deps, caller);
  if (!standing.approved) throw AppError.forbidden('Your tester account is not approved yet.', 'tester_not_approved');
  return takeJob(deps, jobId, standing, 'tester');
}

/** POST /api/admin/assign/:jobId/:testerId: the admin gives the job to an approved tester. */
export async function assignJob(deps: JobsDeps, jobId: string, testerId: string): Promise<JobRow> {
  await getJob(deps.db, jobId);
  const row = await findUser(deps.db, testerId);
  if (!row || row.type !== 'tester') throw AppError.notFound('Tester not found.', 'tester_not_found');
  if (!row.approved) throw AppError.conflict('This tester is not approved.', 'tester_not_approved');
  return takeJob(deps, jobId, { id: row.id, approved: true, country: row.country }, 'admin');
}

async function takeJob(deps: JobsDeps, jobId: string, tester: TesterStanding, by: 'tester' | 'admin'): Promise<JobRow> {
  const action = by === 'admin' ? 'assign' : 'claim';
  const job = await getJob(deps.db, jobId);
  decide(job, action);
  if (!geoAllows(job.geoRule, tester.country)) {
    throw by === 'admin'
      ? AppError.conflict("This tester's country cannot take this job.", 'geo_not_allowed')
      : AppError.forbidden('This job is not available in your country.', 'geo_not_allowed');
  }
  const max = deps.config.MAX_ACTIVE_CLAIMS;
  const claimedAt = new Date();
  const deadlineAt = claimDeadline(claimedAt, job.expectedCompletionHours, deps.config.CLAIM_TIMEOUT_MS);
  const taken = await deps.db.transaction(async (tx) => {
    await lockTester(tx, tester.id);
    if ((await countActiveClaims(tx, tester.id)) >= max) {
      throw AppError.conflict(
        by === 'admin'
          ? `This tester already holds ${max} active job${max === 1 ? '' : 's'}.`
          : `You can work on ${max} job${max === 1 ? '' : 's'} at a time. Submit your current work first.`,
        'too_many_claims',
      );
    }
    // The one conditional UPDATE: of any number of simultaneous claims exactly one matches.
    const [row] = await tx
      .update(jobs)
      .set({
        status: 'claimed',
        testerId: tester.id,
        claimedAt,
        claimDeadlineAt: deadlineAt,
        submittedAt: null,
        autoAcceptAt: null,
        revisionDeadlineAt: null,
        revisionCount: 0,
        lastReview: null,
        currentSubmissionId: null,
      })
      .where(and(eq(jobs.id, jobId), eq(jobs.status, 'open'), eq(jobs.paymentStatus, 'paid')))
      .returning();
    if (!row) return undefined;
    await deps.events.record(
      tx,
      createEvent(
        'JobClaimed',
        row.id,
        { jobId: row.id, testerId: tester.id, claimedAt: claimedAt.toISOString(), deadlineAt: deadlineAt.toISOString(), by },
        { correlationId: getCorrelationId() },
      ),
    );
    return row;
  });
  if (!taken) {
    decide(await getJob(deps.db, jobId), action); // explains what changed
    throw AppError.conflict('This job has already been taken by another tester.', 'job_taken');
  }
  deps.events.kick();
  return taken;
}
