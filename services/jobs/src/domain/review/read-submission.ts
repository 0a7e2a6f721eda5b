import { AppError, type Caller } from '@htm/service-kit';
import { JOB_MESSAGES } from '@htm/contracts';
import type { JobsDeps } from '../../deps.js';
import type {
  FileRow,
  JobRow,
  RecordingRow,
  SessionCheckRow,
  SubmissionRow,
} from '../../db/schema.js';
import {
  findSessionCheck,
  posterReplacementUsed,
  releasedOtherReports,
} from '../../db/session-check.repository.js';
import { findRecording } from '../../db/recording.repository.js';
import { findJob } from '../../db/job.repository.js';
import { getJob } from '../job-state.js';
import { filesByIds, findFile, findSubmission } from '../../db/submission.repository.js';

/** A submission as one reader may see it: `locked` (the poster before accepting) hides all but the preview. */
export interface SubmissionRead {
  submission: SubmissionRow;
  files: FileRow[];
  locked: boolean;
  /** The finished recording attached, if any (shown while locked: the poster decides on it). */
  recording?: RecordingRow;
  /** Its session check, and who reads it (the tester reads the reasons in their own words). */
  check?: { row: SessionCheckRow; reader: Reader; replacementAvailable: boolean };
}

/** A re-test beside its original: the original's accepted submission (before) and the re-test's (after). */
export interface RetestComparison {
  job: JobRow;
  retestOf: string;
  before: SubmissionRead | null;
  after: SubmissionRead | null;
  /**
   * The reader is a tester other than the one who wrote the original report (the re-test went to
   * someone else): they get the earlier findings per checklist item and key finding, which is what
   * they re-check, but not the report itself (no name, feedback, device or files).
   */
  beforeFindingsOnly: boolean;
}

export type Reader = 'admin' | 'poster' | 'tester';

/**
 * The report's parts its poster sees only once they accept it (or it is auto-accepted): the
 * checklist answers (and the task answers and SUS beside them, issue #51), the general feedback
 * and the original files. Before, the poster sees the
 * preview (device, browser, key findings with their details, the small image, the recording).
 * The one rule for every way a poster reads a report: the submission view, the re-test
 * comparison and "Download my data".
 */
export const LOCKED_UNTIL_ACCEPTED = [
  'requirementResponses',
  'generalFeedback',
  'fileIds',
  'taskAnswers',
  'susAnswers',
] as const;
export type LockedPart = (typeof LOCKED_UNTIL_ACCEPTED)[number];

/** Whether the poster of the job sees this submission locked. */
export function lockedForPoster(sub: { acceptedAt: Date | null }): boolean {
  return !sub.acceptedAt;
}

/** The submission with its locked parts gone (null) when `locked`. */
export function withoutLockedParts<T extends { [K in LockedPart]?: unknown }>(
  sub: T,
  locked: boolean,
): Omit<T, LockedPart> & { [K in LockedPart & keyof T]: T[K] | null } {
  if (!locked) return sub;
  const out: Record<string, unknown> = { ...sub };
  for (const k of LOCKED_UNTIL_ACCEPTED) if (k in out) out[k] = null;
  return out as Omit<T, LockedPart> & { [K in LockedPart & keyof T]: T[K] | null };
}

const noSubmission = () =>
  AppError.notFound('No work has been submitted for this job yet.', 'no_submission');
/** The poster's answer for the report its job waits on while its session check runs. */
export const heldFromPoster = () =>
  AppError.notFound(JOB_MESSAGES.reportChecking, 'report_checking');

function readerOf(caller: Caller, job: JobRow, sub: SubmissionRow | undefined): Reader | undefined {
  if (caller.type === 'admin') return 'admin';
  if (caller.type === 'poster' && job.posterId === caller.id) return 'poster';
  if (caller.type === 'tester' && (sub ? sub.testerId === caller.id : job.testerId === caller.id))
    return 'tester';
  return undefined;
}

/** GET /api/jobs/:id/submission: the poster (locked until accepted), the tester who made it, the admin. */
export async function readSubmission(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
): Promise<SubmissionRead> {
  const job = await getJob(deps.db, jobId);
  const sub = await findSubmission(deps.db, job.currentSubmissionId);
  const reader = readerOf(caller, job, sub);
  if (!reader)
    throw AppError.forbidden('You cannot see the work submitted for this job.', 'not_allowed');
  if (!sub) throw noSubmission();
  // A held report (its session check not passed yet) never reaches the poster.
  if (reader === 'poster' && sub.held) throw heldFromPoster();
  const locked = reader === 'poster' && lockedForPoster(sub);
  const fileRows = locked ? [] : await filesByIds(deps.db, sub.fileIds);
  const checkRow = await findSessionCheck(deps.db, sub.id);
  return {
    submission: sub,
    files: fileRows,
    locked,
    recording: await attachedRecording(deps, sub),
    check: checkRow && {
      row: checkRow,
      reader,
      replacementAvailable:
        reader !== 'tester' &&
        checkRow.verdict === 'borderline' &&
        job.status === 'submitted' &&
        !(await posterReplacementUsed(deps.db, job.id)),
    },
  };
}

/**
 * GET /api/jobs/:id/released-reports: the job's poster and the admin read the reports released
 * after a failed check once the job had gone to another tester, whole (nothing locked: the
 * platform pays their testers, the owner's one payment pays the tester the job completed with).
 */
export async function readReleasedReports(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
): Promise<SubmissionRead[]> {
  const job = await getJob(deps.db, jobId);
  if (caller.type !== 'admin' && !(caller.type === 'poster' && job.posterId === caller.id))
    throw AppError.forbidden('Only the poster of this job can see its reports.', 'not_allowed');
  const subs = await releasedOtherReports(deps.db, job.id, job.currentSubmissionId);
  return Promise.all(
    subs.map(async (sub) => ({
      submission: sub,
      files: await filesByIds(deps.db, sub.fileIds),
      locked: false,
      recording: await attachedRecording(deps, sub),
    })),
  );
}

async function attachedRecording(
  deps: JobsDeps,
  sub: SubmissionRow,
): Promise<RecordingRow | undefined> {
  if (!sub.recordingId) return undefined;
  const rec = await findRecording(deps.db, sub.recordingId);
  return rec?.status === 'complete' ? rec : undefined;
}

/**
 * GET /api/jobs/:id/before-after: a re-test's findings beside the original's. The poster of the
 * re-test, the admin, and the tester holding it (or for whom it is held) may read it; the tester
 * sees the earlier findings while re-testing (the whole earlier report only if it is theirs), the
 * poster sees "after" once the re-test is accepted.
 */
export async function readRetestComparison(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
): Promise<RetestComparison> {
  const job = await getJob(deps.db, jobId);
  const allowed =
    caller.type === 'admin' ||
    (caller.type === 'poster' && job.posterId === caller.id) ||
    (caller.type === 'tester' &&
      (job.testerId === caller.id || job.reservedTesterId === caller.id));
  if (!allowed)
    throw AppError.forbidden('You cannot see the findings of this re-test.', 'not_allowed');
  if (!job.retestOf) throw AppError.notFound('This job is not a re-test.', 'not_a_retest');
  const original = await findJob(deps.db, job.retestOf);
  const beforeSub = await findSubmission(deps.db, original?.currentSubmissionId ?? null);
  const current = await findSubmission(deps.db, job.currentSubmissionId);
  // A report held by its session check is not there for the poster yet.
  const afterSub = caller.type === 'poster' && current?.held ? undefined : current;
  const beforeFindingsOnly =
    caller.type === 'tester' && !!beforeSub && beforeSub.testerId !== caller.id;
  const before = beforeSub
    ? {
        submission: beforeSub,
        files: beforeFindingsOnly ? [] : await filesByIds(deps.db, beforeSub.fileIds),
        locked: false,
      }
    : null;
  const afterLocked = caller.type === 'poster' && !!afterSub && lockedForPoster(afterSub);
  const after = afterSub
    ? {
        submission: afterSub,
        files: afterLocked ? [] : await filesByIds(deps.db, afterSub.fileIds),
        locked: afterLocked,
      }
    : null;
  return { job, retestOf: job.retestOf, before, after, beforeFindingsOnly };
}

/**
 * GET /api/files/:id rights: a valid signed link, or a bearer token of the admin, the tester
 * who uploaded it, or the job's poster (previews of reports not held; originals once accepted).
 */
export async function authorizeFile(
  deps: JobsDeps,
  fileId: string,
  access: { sig?: string; caller?: Caller },
): Promise<FileRow> {
  const file = await findFile(deps.db, fileId);
  if (access.sig !== undefined && !access.caller) {
    const v = deps.links.verify(fileId, access.sig);
    if (v === 'expired')
      throw AppError.forbidden('This link has expired. Please reload the page.', 'link_expired');
    if (v === 'invalid') throw AppError.forbidden('This link is not valid.', 'link_invalid');
    if (!file) throw AppError.notFound('File not found.', 'file_not_found');
    return file;
  }
  const caller = access.caller;
  if (!caller) throw AppError.unauthorized('Please sign in.', 'unauthenticated');
  if (access.sig !== undefined && deps.links.verify(fileId, access.sig) === 'ok' && file)
    return file;
  if (!file) throw AppError.notFound('File not found.', 'file_not_found');
  if (caller.type === 'admin') return file;
  const job = await findJob(deps.db, file.jobId);
  const sub = await findSubmission(deps.db, file.submissionId);
  if (!job || !sub) throw AppError.notFound('File not found.', 'file_not_found');
  if (caller.type === 'tester' && sub.testerId === caller.id) return file;
  if (
    caller.type === 'poster' &&
    job.posterId === caller.id &&
    !sub.held &&
    (file.kind === 'preview' || sub.acceptedAt)
  )
    return file;
  throw AppError.forbidden('You cannot see this file.', 'not_allowed');
}
