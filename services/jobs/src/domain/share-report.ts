import { AppError, type Caller } from '@htm/service-kit';
import { REPORT_MESSAGES, SHARE_LINK_LIMITS } from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import type { FileRow, JobRow, RecordingRow, ShareLinkRow } from '../db/schema.js';
import { getJob } from '../db/job.repository.js';
import { filesByIds, findFile, findSubmission } from '../db/submission.repository.js';
import { findRecording } from '../db/recording.repository.js';
import {
  deleteShareLink,
  findShareLinkByHash,
  findShareLinkOfJob,
  testerCountry,
  upsertShareLink,
} from '../db/share.repository.js';
import { ShareTokens } from '../storage/share-tokens.js';
import { readSubmission, type SubmissionRead } from './read-submission.js';

const DAY = 86_400_000;

export interface ShareLink {
  token: string;
  expiresAt: Date;
}

/** Everything a report (share page, shared JSON, PDF) is made of, as the poster may see it. */
export interface ReportSource {
  job: JobRow;
  read: SubmissionRead;
  testerCountry: string | null;
  /** Images shown in the report, in the submission's order (the preview alone while locked). */
  images: FileRow[];
  /** The live share link of the job, when there is one (the PDF links the recording through it). */
  share: ShareLink | null;
}

const tokens = (deps: Pick<JobsDeps, 'config'>) => ShareTokens.fromConfig(deps.config);

function mayShare(caller: Caller, job: JobRow): void {
  if (caller.type === 'admin') return;
  if (caller.type === 'poster' && job.posterId === caller.id) return;
  throw AppError.forbidden(
    'Only the poster of this job can share or download its report.',
    'not_job_poster',
  );
}

const live = (row: ShareLinkRow | undefined, now = Date.now()): row is ShareLinkRow =>
  !!row && row.expiresAt.getTime() > now;

/** POST /api/jobs/:id/share: the job's one live link (the same one again while it lives). */
export async function createShareLink(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
  days: number = SHARE_LINK_LIMITS.defaultDays,
): Promise<ShareLink> {
  const job = await getJob(deps.db, jobId);
  mayShare(caller, job);
  if (!job.currentSubmissionId)
    throw AppError.conflict(
      'There is no report to share yet: no work has been submitted for this job.',
      'no_submission',
    );
  const t = tokens(deps);
  const nonce = t.newNonce();
  const row = await upsertShareLink(deps.db, {
    jobId: job.id,
    nonce,
    tokenHash: t.hash(t.token(job.id, nonce)),
    createdBy: caller.id,
    expiresAt: new Date(Date.now() + days * DAY),
  });
  return { token: t.token(row.jobId, row.nonce), expiresAt: row.expiresAt };
}

/** DELETE /api/jobs/:id/share: the link stops working at once (nothing to revoke is fine too). */
export async function revokeShareLink(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
): Promise<void> {
  const job = await getJob(deps.db, jobId);
  mayShare(caller, job);
  await deleteShareLink(deps.db, job.id);
}

const gone = () => AppError.notFound(REPORT_MESSAGES.linkGone, 'link_gone');

/** The job behind a share token; revoked, expired, unknown and malformed tokens all answer the same 404. */
export async function resolveShareToken(
  deps: JobsDeps,
  token: string,
): Promise<{ link: ShareLinkRow; share: ShareLink }> {
  const t = tokens(deps);
  if (!t.wellFormed(token)) throw gone();
  const hash = t.hash(token);
  const link = await findShareLinkByHash(deps.db, hash);
  if (!link || !t.sameHash(link.tokenHash, hash) || !live(link)) throw gone();
  return { link, share: { token, expiresAt: link.expiresAt } };
}

async function sourceFor(
  deps: JobsDeps,
  job: JobRow,
  read: SubmissionRead,
  share: ShareLink | null,
): Promise<ReportSource> {
  const sub = read.submission;
  const images = read.locked
    ? sub.previewFileId
      ? await filesByIds(deps.db, [sub.previewFileId])
      : []
    : sub.fileIds
        .map((id) => read.files.find((f) => f.id === id))
        .filter((f): f is FileRow => !!f && f.contentType.startsWith('image/'));
  return { job, read, testerCountry: await testerCountry(deps.db, sub.testerId), images, share };
}

/** GET /api/shared/:token (and the page and its PDF): the report as the job's poster may see it. */
export async function readSharedReport(deps: JobsDeps, token: string): Promise<ReportSource> {
  const { link, share } = await resolveShareToken(deps, token);
  const job = await getJob(deps.db, link.jobId).catch(() => {
    throw gone();
  });
  const read = await readSubmission(
    deps,
    { id: job.posterId, type: 'poster' } as Caller,
    job.id,
  ).catch(() => {
    throw gone();
  });
  return sourceFor(deps, job, read, share);
}

/** GET /api/jobs/:id/report.pdf: the poster's (or the admin's) own report. */
export async function readOwnReport(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
): Promise<ReportSource> {
  const job = await getJob(deps.db, jobId);
  mayShare(caller, job);
  // Always as the poster sees it, also for the admin: a report is the poster's document.
  const read = await readSubmission(deps, { id: job.posterId, type: 'poster' } as Caller, job.id);
  const link = await findShareLinkOfJob(deps.db, job.id);
  const share = live(link)
    ? { token: tokens(deps).token(link.jobId, link.nonce), expiresAt: link.expiresAt }
    : null;
  return sourceFor(deps, job, read, share);
}

/**
 * GET /api/shared/:token/files/:fileId: a file of the shared job's current submission, with the
 * poster's rights (previews always, the rest once accepted); anything else is not found.
 */
export async function authorizeSharedFile(
  deps: JobsDeps,
  token: string,
  fileId: string,
): Promise<FileRow> {
  const { link } = await resolveShareToken(deps, token);
  const file = await findFile(deps.db, fileId);
  const notFound = AppError.notFound('File not found.', 'file_not_found');
  if (!file || file.jobId !== link.jobId) throw notFound;
  const job = await getJob(deps.db, link.jobId);
  const sub = await findSubmission(deps.db, job.currentSubmissionId);
  if (!sub || file.submissionId !== sub.id) throw notFound;
  if (file.kind !== 'preview' && !sub.acceptedAt) throw notFound;
  return file;
}

/**
 * GET /api/shared/:token/recording: the finished screen recording of the shared job's current
 * submission (the poster sees it while reviewing too); nothing else is reachable through the token.
 */
export async function authorizeSharedRecording(
  deps: JobsDeps,
  token: string,
): Promise<RecordingRow> {
  const { link } = await resolveShareToken(deps, token);
  const notFound = AppError.notFound('This report has no screen recording.', 'recording_not_found');
  const job = await getJob(deps.db, link.jobId).catch(() => {
    throw gone();
  });
  const sub = await findSubmission(deps.db, job.currentSubmissionId);
  if (!sub?.recordingId) throw notFound;
  const rec = await findRecording(deps.db, sub.recordingId);
  if (!rec || rec.status !== 'complete' || rec.jobId !== job.id) throw notFound;
  return rec;
}
