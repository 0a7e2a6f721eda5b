import { AppError, type Caller } from '@htm/service-kit';
import type { SubmissionView } from '@htm/contracts';
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
