import { AppError, type Caller } from '@htm/service-kit';
import type { RetestComparisonView, SubmissionView } from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import type { FileRow, JobRow, SubmissionRow } from '../db/schema.js';
import { filesByIds, findFile, findJob, findSubmission, getJob } from '../db/job.repository.js';
import { toSubmissionView } from '../http/views.js';

type Reader = 'admin' | 'poster' | 'tester';

function readerOf(caller: Caller, job: JobRow, sub: SubmissionRow | undefined): Reader | undefined {
  if (caller.type === 'admin') return 'admin';
  if (caller.type === 'poster' && job.posterId === caller.id) return 'poster';
  if (caller.type === 'tester' && (sub ? sub.testerId === caller.id : job.testerId === caller.id)) return 'tester';
  return undefined;
}

/** GET /api/jobs/:id/submission: the poster (locked until accepted), the tester who made it, the admin. */
export async function readSubmission(deps: JobsDeps, caller: Caller, jobId: string): Promise<SubmissionView> {
  const job = await getJob(deps.db, jobId);
  const sub = await findSubmission(deps.db, job.currentSubmissionId);
  const reader = readerOf(caller, job, sub);
  if (!reader) throw AppError.forbidden('You cannot see the work submitted for this job.', 'not_allowed');
  if (!sub) throw AppError.notFound('No work has been submitted for this job yet.', 'no_submission');
  const locked = reader === 'poster' && !sub.acceptedAt;
  const fileRows = locked ? [] : await filesByIds(deps.db, sub.fileIds);
  return toSubmissionView(sub, fileRows, deps.links, locked);
}

/**
 * GET /api/jobs/:id/before-after: a re-test's findings beside the original's. The poster of the
 * re-test, the admin, and the tester holding it (or for whom it is held) may read it; the tester
 * sees the earlier findings while re-testing, the poster sees "after" once the re-test is accepted.
 */
export async function readRetestComparison(deps: JobsDeps, caller: Caller, jobId: string): Promise<RetestComparisonView> {
  const job = await getJob(deps.db, jobId);
  const allowed =
    caller.type === 'admin' ||
    (caller.type === 'poster' && job.posterId === caller.id) ||
    (caller.type === 'tester' && (job.testerId === caller.id || job.reservedTesterId === caller.id));
  if (!allowed) throw AppError.forbidden('You cannot see the findings of this re-test.', 'not_allowed');
  if (!job.retestOf) throw AppError.notFound('This job is not a re-test.', 'not_a_retest');
  const original = await findJob(deps.db, job.retestOf);
  const beforeSub = await findSubmission(deps.db, original?.currentSubmissionId ?? null);
  const afterSub = await findSubmission(deps.db, job.currentSubmissionId);
  const before = beforeSub ? toSubmissionView(beforeSub, await filesByIds(deps.db, beforeSub.fileIds), deps.links, false) : null;
  const afterLocked = caller.type === 'poster' && !afterSub?.acceptedAt;
  const after = afterSub ? toSubmissionView(afterSub, afterLocked ? [] : await filesByIds(deps.db, afterSub.fileIds), deps.links, afterLocked) : null;
  const responseOf = (v: SubmissionView | null, i: number) => v?.requirement_responses?.find((r) => r.requirement_index === i)?.response_text ?? null;
  const beforeFindings = before?.human_preview.key_findings_bullets ?? [];
  const afterFindings = after?.human_preview.key_findings_bullets ?? [];
  return {
    job_id: job.id,
    retest_of: job.retestOf,
    before,
    after,
    requirements: job.requirements.map((requirement, i) => ({ requirement_index: i, requirement, before: responseOf(before, i), after: responseOf(after, i) })),
    key_findings: Array.from({ length: Math.max(beforeFindings.length, afterFindings.length) }, (_, i) => ({
      index: i,
      before: beforeFindings[i] ?? null,
      after: afterFindings[i] ?? null,
    })),
  };
}

/**
 * GET /api/files/:id rights: a valid signed link, or a bearer token of the admin, the tester
 * who uploaded it, or the job's poster (previews always; originals once accepted).
 */
export async function authorizeFile(deps: JobsDeps, fileId: string, access: { sig?: string; caller?: Caller }): Promise<FileRow> {
  const file = await findFile(deps.db, fileId);
  if (access.sig !== undefined && !access.caller) {
    const v = deps.links.verify(fileId, access.sig);
    if (v === 'expired') throw AppError.forbidden('This link has expired. Please reload the page.', 'link_expired');
    if (v === 'invalid') throw AppError.forbidden('This link is not valid.', 'link_invalid');
    if (!file) throw AppError.notFound('File not found.', 'file_not_found');
    return file;
  }
  const caller = access.caller;
  if (!caller) throw AppError.unauthorized('Please sign in.', 'unauthenticated');
  if (access.sig !== undefined && deps.links.verify(fileId, access.sig) === 'ok' && file) return file;
  if (!file) throw AppError.notFound('File not found.', 'file_not_found');
  if (caller.type === 'admin') return file;
  const job = await findJob(deps.db, file.jobId);
  const sub = await findSubmission(deps.db, file.submissionId);
  if (!job || !sub) throw AppError.notFound('File not found.', 'file_not_found');
  if (caller.type === 'tester' && sub.testerId === caller.id) return file;
  if (caller.type === 'poster' && job.posterId === caller.id && (file.kind === 'preview' || sub.acceptedAt)) return file;
  throw AppError.forbidden('You cannot see this file.', 'not_allowed');
}
