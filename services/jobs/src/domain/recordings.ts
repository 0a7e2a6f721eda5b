import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { AppError, type Caller } from '@htm/service-kit';
import {
  FINDING_MESSAGES,
  RECORDING_MESSAGES,
  findingFieldPrefix,
  type FindingDetails,
} from '@htm/contracts';
import { RECORDING_LIMITS } from '../config.js';
import type { JobsDeps } from '../deps.js';
import type { RecordingRow } from '../db/schema.js';
import { findJob } from '../db/job.repository.js';
import { getJob } from './job-state.js';
import {
  completeRecording,
  deleteRecordingRow,
  findRecording,
  insertRecording,
  lockRecordingLimits,
  recordingHeld,
  recordingUse,
  recordingsToSweep,
  jobsShowingRecording,
  type RecordingUse,
  setRecordingMeasured,
  touchHeldRecording,
  touchRecording,
} from '../db/recording.repository.js';
import { isMissingProgram } from '../providers/media-tools.js';
import type { SubmitVariant } from './uploads.js';
import { requestSummary } from '../db/summary.repository.js';

const HOLDING = new Set(['claimed', 'revision_requested']);
/** Recording links outlive file links: the poster may pause a long video and seek later. */
const RECORDING_LINK_MIN_MS = 4 * 3600_000;

/** The content type of a video by its first bytes: WebM/Matroska (EBML) or MP4 (ftyp); null otherwise. */
export function sniffVideo(head: Buffer): 'video/webm' | 'video/x-matroska' | 'video/mp4' | null {
  if (
    head.length >= 4 &&
    head[0] === 0x1a &&
    head[1] === 0x45 &&
    head[2] === 0xdf &&
    head[3] === 0xa3
  ) {
    return head.includes(Buffer.from('webm')) ? 'video/webm' : 'video/x-matroska';
  }
  if (head.length >= 12 && head.subarray(4, 8).toString('latin1') === 'ftyp') return 'video/mp4';
  return null;
}

async function assertHolding(deps: JobsDeps, caller: Caller, jobId: string): Promise<void> {
  const job = await findJob(deps.db, jobId);
  if (!job || job.testerId !== caller.id || !HOLDING.has(job.status))
    throw AppError.forbidden(RECORDING_MESSAGES.notYourJob, 'not_job_tester');
}

/**
 * tus creation (POST /api/recordings): only the tester holding the job (claimed or
 * revision_requested), a declared length within RECORDING_MAX_BYTES, a video type when one is
 * declared, and within the recording limits (assertWithinLimits: the declared length, or the
 * largest recording when it is deferred, is reserved from now on). Returns the new recording's
 * id (the row exists before the first byte).
 */
export async function startRecording(
  deps: JobsDeps,
  caller: Caller,
  u: { jobId: string | undefined; fileType: string | undefined; uploadLength: number | undefined },
): Promise<string> {
  if (!u.jobId)
    throw AppError.invalid(RECORDING_MESSAGES.jobIdRequired, {
      job_id: [RECORDING_MESSAGES.jobIdRequired],
    });
  if (u.uploadLength !== undefined && u.uploadLength > deps.config.RECORDING_MAX_BYTES) {
    throw new AppError('too_large', RECORDING_MESSAGES.tooLarge(deps.config.RECORDING_MAX_BYTES), {
      code: 'recording_too_large',
    });
  }
  if (u.fileType && !/^video\//i.test(u.fileType))
    throw new AppError('unsupported_type', RECORDING_MESSAGES.notVideo, { code: 'not_a_video' });
  await assertHolding(deps, caller, u.jobId);
  const id = randomUUID().replace(/-/g, '');
  const cfg = deps.config;
  // Unknown length (tus Upload-Defer-Length): it may grow to the largest recording.
  const declared = u.uploadLength ?? cfg.RECORDING_MAX_BYTES;
  const free = await (await deps.recordingStore).freeBytes();
  const jobId = u.jobId;
  await deps.events.inTransaction(async (tx) => {
    // Counted and reserved one at a time, so simultaneous creations cannot all squeeze past.
    await lockRecordingLimits(tx);
    const use = await recordingUse(tx, {
      testerId: caller.id,
      jobId,
      unknownBytes: cfg.RECORDING_MAX_BYTES,
      stalledBefore: new Date(Date.now() - RECORDING_LIMITS.stalledAfterMs),
    });
    assertWithinLimits(cfg, use, declared, free);
    await insertRecording(tx, {
      id,
      jobId,
      testerId: caller.id,
      mimeType: u.fileType?.split(';')[0].trim().toLowerCase() ?? null,
      sizeBytes: declared,
    });
  });
  return id;
}

/**
 * The recording limits (config RECORDING_MAX_* and RECORDING_DISK_BUDGET_BYTES, defaults in
 * RECORDING_LIMITS): bytes per tester not yet submitted and per job (413), uploads in flight per
 * tester and per job (429), and the disk budget (507, also when the disk would keep less than
 * MIN_FREE_DISK_BYTES free once every upload in flight has arrived).
 */
function assertWithinLimits(
  cfg: JobsDeps['config'],
  use: RecordingUse,
  declared: number,
  freeDisk: number | null,
): void {
  const busy = (n: number, of: 'tester' | 'job') =>
    new AppError('rate_limited', RECORDING_MESSAGES.tooManyUploads(n, of), {
      code: 'recording_uploads_limit',
    });
  if (use.testerPendingBytes + declared > cfg.RECORDING_MAX_PENDING_BYTES_PER_TESTER)
    throw new AppError(
      'too_large',
      RECORDING_MESSAGES.testerQuota(cfg.RECORDING_MAX_PENDING_BYTES_PER_TESTER),
      { code: 'recording_quota_exceeded' },
    );
  if (use.jobBytes + declared > cfg.RECORDING_MAX_BYTES_PER_JOB)
    throw new AppError('too_large', RECORDING_MESSAGES.jobQuota(cfg.RECORDING_MAX_BYTES_PER_JOB), {
      code: 'recording_quota_exceeded',
    });
  if (use.testerUploading >= cfg.RECORDING_MAX_UPLOADS_PER_TESTER)
    throw busy(use.testerUploading, 'tester');
  if (use.jobUploading >= cfg.RECORDING_MAX_UPLOADS_PER_JOB) throw busy(use.jobUploading, 'job');
  if (
    use.totalBytes + declared > cfg.RECORDING_DISK_BUDGET_BYTES ||
    (freeDisk !== null && freeDisk - use.uploadingBytes - declared < cfg.MIN_FREE_DISK_BYTES)
  )
    throw recordingStorageFull();
}

/** The 507 of a recording we cannot store: the budget is spent, or a PATCH met a full disk. */
export const recordingStorageFull = () =>
  new AppError('insufficient_storage', RECORDING_MESSAGES.storageFull, {
    code: 'recording_storage_full',
  });

/** tus PATCH / HEAD: the recording's own tester, and (PATCH) only while still holding its job. */
export async function authorizeRecordingUpload(
  deps: JobsDeps,
  caller: Caller,
  id: string,
  writing: boolean,
): Promise<void> {
  // The usual PATCH (a recorder sends one every few seconds): checked and touched in one statement.
  if (writing && (await touchHeldRecording(deps.db, id, caller.id))) return;
  const rec = await findRecording(deps.db, id);
  if (!rec) throw AppError.notFound(RECORDING_MESSAGES.notFound, 'recording_not_found');
  if (rec.testerId !== caller.id)
    throw AppError.forbidden(RECORDING_MESSAGES.notYourUpload, 'not_your_recording');
  if (writing) {
    await assertHolding(deps, caller, rec.jobId);
    await touchRecording(deps.db, id);
  }
}

/**
 * The last byte arrived: the content must be a WebM/Matroska or MP4 video (else the upload is
 * deleted and the PATCH answers 415); then it is made seekable in the background.
 */
export async function finishRecording(deps: JobsDeps, id: string): Promise<void> {
  const store = await deps.recordingStore;
  const type = sniffVideo(await store.head(id, 64));
  if (!type) {
    await store.remove(id);
    await deleteRecordingRow(deps.db, id);
    deps.logger.info({ recordingId: id }, 'recording refused: not a WebM or MP4 video; deleted');
    throw new AppError('unsupported_type', RECORDING_MESSAGES.notVideoContent, {
      code: 'not_a_video',
    });
  }
  await completeRecording(deps.db, id, { mimeType: type, sizeBytes: await store.size(id) });
  const work = makeSeekable(deps, id, type).finally(() => deps.recordingWork.delete(work));
  deps.recordingWork.add(work);
}

/**
 * MediaRecorder's WebM has no duration and no cues, so players cannot seek: remux it with
 * `ffmpeg -c copy` (no re-encoding) and record the duration ffprobe measures. Without ffmpeg the
 * recording is kept as uploaded and the logs say so. Never throws.
 */
export async function makeSeekable(deps: JobsDeps, id: string, type: string): Promise<void> {
  const log = deps.logger.child({ recordingId: id });
  const store = await deps.recordingStore;
  const src = path.join(deps.tmpDir, `rec-${id}-in`);
  const out = path.join(deps.tmpDir, `rec-${id}-out`);
  const started = Date.now();
  try {
    await mkdir(deps.tmpDir, { recursive: true });
    await store.download(id, src);
    await deps.media.remux(src, out, type === 'video/mp4' ? 'mp4' : 'webm');
    const durationMs = await deps.media.durationMs(out);
    if (!(await findRecording(deps.db, id))) return; // deleted meanwhile
    const sizeBytes = await store.replace(id, out, type);
    await setRecordingMeasured(deps.db, id, { sizeBytes, durationMs });
    // A report sent before the duration was known has a summary without this recording's clips.
    const shown = await jobsShowingRecording(deps.db, id);
    if (shown.length)
      await deps.events.inTransaction(async (tx) => {
        for (const job of shown) {
          await requestSummary(tx, job.id, 'job');
          if (job.packId) await requestSummary(tx, job.packId, 'pack');
        }
      });
    log.info(
      { durationMs, ms: Date.now() - started },
      'recording remuxed: seekable, duration recorded',
    );
  } catch (err) {
    if (isMissingProgram(err))
      log.warn(
        { ffmpeg: deps.config.FFMPEG_PATH },
        'ffmpeg/ffprobe not found: the recording is kept as uploaded, without duration or cues (players may not seek in it). Install ffmpeg.',
      );
    else
      log.error(
        { err: (err as Error).message },
        'recording could not be remuxed; kept as uploaded',
      );
  } finally {
    await rm(src, { force: true });
    await rm(out, { force: true });
  }
}

/**
 * Submit work with `recording_id`: the tester's own finished recording of this job, and each
 * finding's moment within its duration (when measured). Returns the recording's id or null.
 */
export async function recordingForSubmission(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
  recordingId: string | undefined,
  variant: SubmitVariant,
  details: FindingDetails[],
): Promise<string | null> {
  const given = recordingId?.trim();
  if (!given) return null;
  const rec = await findRecording(deps.db, given);
  if (!rec || rec.jobId !== jobId || rec.testerId !== caller.id)
    throw AppError.invalid(RECORDING_MESSAGES.unknownRecording, {
      recording_id: [RECORDING_MESSAGES.unknownRecording],
    });
  if (rec.status !== 'complete')
    throw AppError.conflict(RECORDING_MESSAGES.stillUploading, 'recording_uploading');
  // Remuxing takes seconds; wait a little for the duration rather than skip the check.
  const pending = [...deps.recordingWork];
  if (rec.durationMs === null && pending.length)
    await Promise.race([
      Promise.allSettled(pending),
      new Promise((r) => setTimeout(r, 5000).unref()),
    ]);
  const durationMs = (await findRecording(deps.db, given))?.durationMs ?? null;
  if (durationMs !== null) {
    details.forEach((d, i) => {
      // The last frame may be marked a moment after ffprobe's end: allow one second.
      if (d.at_ms !== null && d.at_ms > durationMs + 1000) {
        const msg = FINDING_MESSAGES.atMsBeyondRecording(i + 1);
        throw AppError.invalid(msg, { [`${findingFieldPrefix(variant, i + 1)}_at_ms`]: [msg] });
      }
    });
  }
  return rec.id;
}

/** The signed link the submission view hands to its readers (`<video src>` sends no bearer header). */
export function recordingUrl(
  deps: Pick<JobsDeps, 'links' | 'config'>,
  id: string,
  now = Date.now(),
): string {
  const ttl = Math.max(deps.config.FILE_URL_TTL_MS, RECORDING_LINK_MIN_MS);
  return `/api/recordings/${id}?sig=${deps.links.sign(`recording:${id}`, now + ttl)}`;
}

/** GET /api/recordings/:id: a valid signed link, or the job's poster, the recording's tester, the admin. */
export async function authorizeRecordingRead(
  deps: JobsDeps,
  id: string,
  access: { sig?: string; caller?: Caller },
): Promise<RecordingRow> {
  const rec = await findRecording(deps.db, id);
  if (access.sig !== undefined && deps.links.verify(`recording:${id}`, access.sig) === 'ok') {
    if (!rec || rec.status !== 'complete')
      throw AppError.notFound(RECORDING_MESSAGES.notFound, 'recording_not_found');
    return rec;
  }
  const caller = access.caller;
  if (!caller) {
    if (access.sig !== undefined && deps.links.verify(`recording:${id}`, access.sig) === 'expired')
      throw AppError.forbidden('This link has expired. Please reload the page.', 'link_expired');
    throw AppError.unauthorized('Please sign in.', 'unauthenticated');
  }
  if (!rec || rec.status !== 'complete')
    throw AppError.notFound(RECORDING_MESSAGES.notFound, 'recording_not_found');
  if (caller.type === 'admin' || (caller.type === 'tester' && rec.testerId === caller.id))
    return rec;
  if (
    caller.type === 'poster' &&
    (await getJob(deps.db, rec.jobId)).posterId === caller.id &&
    !(await recordingHeld(deps.db, rec.id))
  )
    return rec;
  throw AppError.forbidden(RECORDING_MESSAGES.cannotSee, 'not_allowed');
}

/** Deletes one recording's bytes and row. */
export async function deleteRecording(deps: JobsDeps, id: string): Promise<void> {
  const store = await deps.recordingStore;
  await store
    .remove(id)
    .catch((err) =>
      deps.logger.warn(
        { err: (err as Error).message, recordingId: id },
        'could not delete recording',
      ),
    );
  await deleteRecordingRow(deps.db, id);
}

/**
 * The worker's sweep: uploads idle for RECORDING_ABANDONED_MS and never submitted, and recordings
 * of jobs completed RECORDING_RETENTION_DAYS ago. Returns how many went, by reason.
 */
export async function sweepRecordings(
  deps: JobsDeps,
  now = new Date(),
): Promise<{ abandoned: number; retention: number }> {
  const due = await recordingsToSweep(
    deps.db,
    now,
    deps.config.RECORDING_ABANDONED_MS,
    deps.config.RECORDING_RETENTION_DAYS * 86_400_000,
  );
  const counts = { abandoned: 0, retention: 0 };
  for (const r of due) {
    await deleteRecording(deps, r.id);
    counts[r.reason]++;
  }
  if (due.length) deps.logger.info(counts, 'recordings swept');
  return counts;
}
