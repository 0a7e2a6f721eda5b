import { AppError, type Caller } from '@htm/service-kit';
import {
  REPORT_MESSAGES,
  SHARE_LINK_LIMITS,
  type ReportSummary,
  type HealthCheckView,
} from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import type { FileRow, JobRow, PackRow, RecordingRow, ShareLinkRow } from '../db/schema.js';
import { getJob } from './job-state.js';
import { filesByIds, findFile, findSubmission } from '../db/submission.repository.js';
import { findRecording } from '../db/recording.repository.js';
import { findPack, listPackJobs } from '../db/pack.repository.js';
import { summarySubmissions } from '../db/summary.repository.js';
import {
  revokeShareLinkRow,
  findShareLinkByHash,
  findShareLinkOf,
  testerCountry,
  upsertShareLink,
} from '../db/share.repository.js';
import { ShareTokens } from '../providers/share-tokens.js';
import { readSubmission, type SubmissionRead } from './review/read-submission.js';
import { posterSummary, signedSummaryLinks, type SummaryLinks } from './summaries.js';
import { readHealthCheck } from './health-check.js';

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
  /** The machine health check site-check announced for the job (null before it has). */
  healthCheck: HealthCheckView | null;
  /** The verdict as the poster sees it (issue #51), when asked for and computed. */
  summary?: ReportSummary | null;
}

/** A pack's one report (issue #51): what the testers agree on first, then each tester's report. */
export interface PackReportSource {
  pack: PackRow;
  /** The pack's site (every slot tests the same one). */
  job: JobRow;
  /** Slots that are not closed. */
  size: number;
  reports: ReportSource[];
  share: ShareLink | null;
  healthCheck: HealthCheckView | null;
  summary: ReportSummary | null;
}

/** What a share token opens: one job's report, or a pack's. */
export type SharedSource =
  { scope: 'job'; src: ReportSource } | { scope: 'pack'; src: PackReportSource };

/** The addresses behind a share token: everything a shared report shows goes through it. */
export const sharedPaths = (token: string) => ({
  file: (fileId: string) => `/api/shared/${token}/files/${fileId}`,
  /** The shared job's recording (a job link). */
  recording: `/api/shared/${token}/recording`,
  /** Any recording the link shows (a pack's testers', the reel's clips). */
  clip: (recordingId: string) => `/api/shared/${token}/recordings/${recordingId}`,
  pdf: `/api/shared/${token}/report.pdf`,
});

/** The summary's screenshots and clips through the share link when there is one, else signed links. */
const summaryLinksOf = (deps: JobsDeps, share: ShareLink | null): SummaryLinks => {
  if (!share) return signedSummaryLinks(deps);
  const p = sharedPaths(share.token);
  return { file: p.file, recording: p.clip };
};

const tokens = (deps: Pick<JobsDeps, 'config'>) => ShareTokens.fromConfig(deps.config);

function mayShare(
  caller: Caller,
  job: Pick<JobRow, 'posterId'>,
  what: 'job' | 'pack' = 'job',
): void {
  if (caller.type === 'admin') return;
  if (caller.type === 'poster' && job.posterId === caller.id) return;
  throw AppError.forbidden(
    `Only the poster of this ${what} can share or download its report.`,
    what === 'job' ? 'not_job_poster' : 'not_pack_poster',
  );
}

const live = (row: ShareLinkRow | undefined, now = Date.now()): row is ShareLinkRow =>
  !!row && !row.revokedAt && row.expiresAt.getTime() > now;

/** The one live link of a job or a pack (the same one again while it lives). */
async function issueLink(
  deps: JobsDeps,
  caller: Caller,
  subject: { id: string; scope: 'job' | 'pack' },
  days: number,
): Promise<ShareLink> {
  const t = tokens(deps);
  const nonce = t.newNonce();
  const row = await upsertShareLink(deps.db, {
    jobId: subject.id,
    scope: subject.scope,
    nonce,
    tokenHash: t.hash(t.token(subject.id, nonce)),
    createdBy: caller.id,
    expiresAt: new Date(Date.now() + days * DAY),
  });
  return { token: t.token(row.jobId, row.nonce), expiresAt: row.expiresAt };
}

const noReportYet = (what: 'job' | 'pack') =>
  AppError.conflict(
    `There is no report to share yet: no work has been submitted for this ${what}.`,
    'no_submission',
  );

/** POST /api/jobs/:id/share: the job's one live link (the same one again while it lives). */
export async function createShareLink(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
  days: number = SHARE_LINK_LIMITS.defaultDays,
): Promise<ShareLink> {
  const job = await getJob(deps.db, jobId);
  mayShare(caller, job);
  const sub = await findSubmission(deps.db, job.currentSubmissionId);
  if (!sub || sub.held) throw noReportYet('job');
  return issueLink(deps, caller, { id: job.id, scope: 'job' }, days);
}

/** DELETE /api/jobs/:id/share: the link stops working at once (nothing to revoke is fine too). */
export async function revokeShareLink(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
): Promise<void> {
  const job = await getJob(deps.db, jobId);
  mayShare(caller, job);
  await revokeShareLinkRow(deps.db, job.id);
}

async function packOf(deps: JobsDeps, caller: Caller, packId: string): Promise<PackRow> {
  const pack = await findPack(deps.db, packId);
  if (!pack) throw AppError.notFound('Pack not found.', 'pack_not_found');
  mayShare(caller, pack, 'pack');
  return pack;
}

/**
 * POST /api/packs/:id/share: the pack's one live link (issue #51): one page with what the testers
 * agree on first, then each tester's report.
 */
export async function createPackShareLink(
  deps: JobsDeps,
  caller: Caller,
  packId: string,
  days: number = SHARE_LINK_LIMITS.defaultDays,
): Promise<ShareLink> {
  const pack = await packOf(deps, caller, packId);
  const jobs = await listPackJobs(deps.db, pack.id);
  // Reports a session check holds are not the poster's to share.
  const current = jobs.map((j) => j.currentSubmissionId).filter((id): id is string => !!id);
  if (!(await summarySubmissions(deps.db, current)).length) throw noReportYet('pack');
  return issueLink(deps, caller, { id: pack.id, scope: 'pack' }, days);
}

/** DELETE /api/packs/:id/share. */
export async function revokePackShareLink(
  deps: JobsDeps,
  caller: Caller,
  packId: string,
): Promise<void> {
  const pack = await packOf(deps, caller, packId);
  await revokeShareLinkRow(deps.db, pack.id);
}

const gone = () => AppError.notFound(REPORT_MESSAGES.linkGone, 'link_gone');

/** The job or pack behind a share token; revoked, expired, unknown and malformed tokens all answer the same 404. */
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
  return {
    job,
    read,
    testerCountry: await testerCountry(deps.db, sub.testerId),
    images,
    share,
    healthCheck: await readHealthCheck(deps, job.id),
  };
}

/** The report of one job as its poster may see it (null when there is none to show them). */
async function posterReport(
  deps: JobsDeps,
  job: JobRow,
  share: ShareLink | null,
): Promise<ReportSource | null> {
  const read = await readSubmission(
    deps,
    { id: job.posterId, type: 'poster' } as Caller,
    job.id,
  ).catch(() => null);
  return read ? sourceFor(deps, job, read, share) : null;
}

/** The report with its summary (the share page, the shared JSON and the PDF lead with it). */
async function withSummary(deps: JobsDeps, src: ReportSource): Promise<ReportSource> {
  return {
    ...src,
    summary: await posterSummary(deps, src.job.id, summaryLinksOf(deps, src.share)),
  };
}

/** A pack's report as its poster may see it: the summary, then each tester's report in the slots' order. */
async function packReport(
  deps: JobsDeps,
  pack: PackRow,
  share: ShareLink | null,
): Promise<PackReportSource> {
  const slots = await listPackJobs(deps.db, pack.id);
  const reports = (
    await Promise.all(
      slots.filter((j) => j.currentSubmissionId).map((j) => posterReport(deps, j, share)),
    )
  ).filter((r): r is ReportSource => !!r);
  return {
    pack,
    job: slots[0],
    size: slots.filter((j) => j.status !== 'closed').length,
    reports,
    share,
    healthCheck: reports.find((r) => r.healthCheck)?.healthCheck ?? null,
    summary: await posterSummary(deps, pack.id, summaryLinksOf(deps, share)),
  };
}

/** GET /api/shared/:token (and the page and its PDF): the job's or the pack's report as its poster may see it. */
export async function readSharedReport(deps: JobsDeps, token: string): Promise<SharedSource> {
  const { link, share } = await resolveShareToken(deps, token);
  if (link.scope === 'pack') {
    const pack = await findPack(deps.db, link.jobId);
    if (!pack) throw gone();
    const src = await packReport(deps, pack, share);
    if (!src.reports.length) throw gone();
    return { scope: 'pack', src };
  }
  const job = await getJob(deps.db, link.jobId).catch(() => {
    throw gone();
  });
  const src = await posterReport(deps, job, share);
  if (!src) throw gone();
  return { scope: 'job', src: await withSummary(deps, src) };
}

const liveShare = (deps: JobsDeps, link: ShareLinkRow | undefined): ShareLink | null =>
  live(link)
    ? { token: tokens(deps).token(link.jobId, link.nonce), expiresAt: link.expiresAt }
    : null;

/**
 * GET /api/jobs/:id/report.pdf: the poster's (or the admin's) own report; `summary` adds the
 * verdict (the PDF's first page).
 */
export async function readOwnReport(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
  opts: { summary?: boolean } = {},
): Promise<ReportSource> {
  const job = await getJob(deps.db, jobId);
  mayShare(caller, job);
  // Always as the poster sees it, also for the admin: a report is the poster's document.
  const read = await readSubmission(deps, { id: job.posterId, type: 'poster' } as Caller, job.id);
  const share = liveShare(deps, await findShareLinkOf(deps.db, job.id));
  const src = await sourceFor(deps, job, read, share);
  return opts.summary ? withSummary(deps, src) : src;
}

/** GET /api/packs/:id/report.pdf: the pack's one report (its poster or the admin). */
export async function readOwnPackReport(
  deps: JobsDeps,
  caller: Caller,
  packId: string,
): Promise<PackReportSource> {
  const pack = await packOf(deps, caller, packId);
  const src = await packReport(
    deps,
    pack,
    liveShare(deps, await findShareLinkOf(deps.db, pack.id)),
  );
  if (!src.reports.length) throw noReportYet('pack');
  return src;
}

/** The jobs a share link opens (one, or the pack's slots). */
async function jobsOfLink(deps: JobsDeps, link: ShareLinkRow): Promise<JobRow[]> {
  if (link.scope === 'pack') return listPackJobs(deps.db, link.jobId);
  const job = await getJob(deps.db, link.jobId).catch(() => {
    throw gone();
  });
  return [job];
}

/**
 * GET /api/shared/:token/files/:fileId: a file of a current submission the link shows, with the
 * poster's rights (previews always, the rest once accepted; never a held report's); anything
 * else is not found.
 */
export async function authorizeSharedFile(
  deps: JobsDeps,
  token: string,
  fileId: string,
): Promise<FileRow> {
  const { link } = await resolveShareToken(deps, token);
  const file = await findFile(deps.db, fileId);
  const notFound = AppError.notFound('File not found.', 'file_not_found');
  const job = file && (await jobsOfLink(deps, link)).find((j) => j.id === file.jobId);
  if (!file || !job) throw notFound;
  const sub = await findSubmission(deps.db, job.currentSubmissionId);
  if (!sub || sub.held || file.submissionId !== sub.id) throw notFound;
  if (file.kind !== 'preview' && !sub.acceptedAt) throw notFound;
  return file;
}

/**
 * GET /api/shared/:token/recordings/:recordingId: a finished recording of a current submission the
 * link shows (a pack's testers', the reel's clips); nothing else is reachable through the token.
 */
export async function authorizeSharedClip(
  deps: JobsDeps,
  token: string,
  recordingId: string,
): Promise<RecordingRow> {
  const { link } = await resolveShareToken(deps, token);
  const notFound = AppError.notFound('This report has no such recording.', 'recording_not_found');
  for (const job of await jobsOfLink(deps, link)) {
    const sub = await findSubmission(deps.db, job.currentSubmissionId);
    if (!sub || sub.held || sub.recordingId !== recordingId) continue;
    const rec = await findRecording(deps.db, recordingId);
    if (rec && rec.status === 'complete' && rec.jobId === job.id) return rec;
  }
  throw notFound;
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
  if (link.scope !== 'job') throw notFound;
  const [job] = await jobsOfLink(deps, link);
  const sub = await findSubmission(deps.db, job.currentSubmissionId);
  if (!sub?.recordingId || sub.held) throw notFound;
  return authorizeSharedClip(deps, token, sub.recordingId);
}
