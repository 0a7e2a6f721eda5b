import { AppError, type Caller } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import type { JobRow } from '../db/schema.js';
import { applyTransition, decide, getJob } from './job-state.js';
import {
  findSessionCheck,
  jobsReplacedFrom,
  listTesterChecks,
  markSessionReplaced,
  posterReplacementUsed,
} from '../db/session-check.repository.js';

/**
 * "Get a free replacement" (a borderline session: delivered with its warning): the poster of the
 * job, once per job, sends it back to Available Jobs for another tester on the same payment. The
 * tester of the replaced report earns nothing for it (it is never accepted). ReplacementRequested
 * is recorded with the change.
 */
export async function requestReplacement(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
): Promise<JobRow> {
  const job = await getJob(deps.db, jobId);
  if (job.posterId !== caller.id && caller.type !== 'admin')
    throw AppError.forbidden(
      'Only the poster of this job can ask for a replacement.',
      'not_job_poster',
    );
  decide(job, 'replacement_requested');
  const check = job.currentSubmissionId
    ? await findSessionCheck(deps.db, job.currentSubmissionId)
    : undefined;
  if (check?.verdict !== 'borderline')
    throw AppError.conflict(
      'Only a report delivered with a warning from its check can be replaced for free.',
      'not_borderline',
    );
  if (await posterReplacementUsed(deps.db, job.id))
    throw AppError.conflict('This job has had its free replacement already.', 'replacement_used');
  return deps.events.inTransaction(async (tx) => {
    const updated = (await applyTransition(
      tx,
      deps,
      { id: job.id, currentSubmissionId: check.submissionId },
      'replacement_requested',
      {
        releasedTesterId: check.testerId,
        releaseReason: 'replacement_requested',
        replacedAt: new Date(),
      },
      { replaced: { submissionId: check.submissionId, reasons: check.reasons ?? [] } },
    ))!;
    await markSessionReplaced(tx, check.submissionId, 'poster');
    return updated;
  });
}

/** GET /api/tester/session-checks: the tester's latest checked reports that did not simply pass. */
export function listMySessionChecks(deps: JobsDeps, caller: Caller) {
  return listTesterChecks(deps.db, caller.id, 20);
}

/** The jobs replaced because of this tester's report: their replacement is someone else's to take. */
export function replacedFromTester(deps: Pick<JobsDeps, 'db'>, testerId: string) {
  return jobsReplacedFrom(deps.db, testerId);
}
