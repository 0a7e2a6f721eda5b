import { randomUUID } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import sharp from 'sharp';
import { createEvent } from '@htm/events';
import { AppError, getCorrelationId, parseOrThrow, type Caller } from '@htm/service-kit';
import { JOB_MESSAGES, submitWorkDashboardSchema, submitWorkPosterFlowSchema } from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import type { JobRow, SubmissionRow } from '../db/schema.js';
import { findUser, getJob, lastReleaseReason, markSubmitted } from '../db/job.repository.js';
import { insertSubmission } from '../db/submission.repository.js';
import { addMs, decide } from './job-state.js';
import { unsupportedFile, type SubmissionForm, type SubmitVariant, type UploadedFile } from './uploads.js';

export type { SubmitVariant };

interface NormalisedSubmission {
  keyFindings: string[];
  requirementResponses: Array<{ requirement_index: number; response_text: string }>;
  generalFeedback: string | null;
  deviceUsed: string | null;
  browserUsed: string | null;
  minutesSpent: number | null;
}

const PREVIEW_MAX = 480;
/** Largest image decoded (width × height): 40 megapixels covers a full-page 4K screenshot. */
export const MAX_IMAGE_PIXELS = 40_000_000;
/** All frames of an animated image together (a GIF of 1,000 frames of 40 megapixels is refused). */
export const MAX_ANIMATION_PIXELS = 200_000_000;
/** Longest libvips may work on one image (re-encoding, preview) before it is refused. */
export const IMAGE_TIMEOUT_SECONDS = 15;

/**
 * An untrusted image for libvips: decoded on libuv's thread pool (never the request thread),
 * at most MAX_IMAGE_PIXELS per frame, stopped after IMAGE_TIMEOUT_SECONDS.
 */
function untrustedImage(path: string, opts: { animated?: boolean } = {}) {
  return sharp(path, { limitInputPixels: MAX_IMAGE_PIXELS, ...opts }).timeout({ seconds: IMAGE_TIMEOUT_SECONDS });
}

/** libvips gave up on an image after IMAGE_TIMEOUT_SECONDS. */
const timedOut = (err: unknown) => /timeout/i.test((err as Error)?.message ?? '');
const tooSlow = () => new AppError('too_large', 'This image is too complex to process. Please upload a simpler screenshot (PNG or JPEG).', { code: 'image_too_complex' });

export const RELEASED_MESSAGES: Record<string, { detail: string; code: string }> = {
  claim_timeout: { detail: JOB_MESSAGES.claimExpired, code: 'claim_expired' },
  revision_expired: { detail: JOB_MESSAGES.revisionExpired, code: 'revision_expired' },
};

/** The 403 for someone not holding the job: it says so when a timer took the job from this tester. */
async function notYourJob(deps: JobsDeps, jobId: string, testerId: string): Promise<AppError> {
  const released = RELEASED_MESSAGES[(await lastReleaseReason(deps.db, jobId, testerId)) ?? ''];
  if (released) return AppError.forbidden(released.detail, released.code);
  return AppError.forbidden('Only the tester holding this job can submit work for it.', 'not_job_tester');
}

/**
 * Submit work, step 1, before the route reads the body: only the tester holding the job, and
 * only while it waits for work (a stranger gets 403 whatever they send). Returns the job.
 */
export async function prepareSubmission(deps: JobsDeps, caller: Caller, jobId: string): Promise<JobRow> {
  const job = await getJob(deps.db, jobId);
  if (job.testerId !== caller.id) throw await notYourJob(deps, job.id, caller.id);
  decide(job, 'submit');
  return job;
}

/**
 * Submit work, both variants (spec section 5), step 2: the route has streamed the whole
 * multipart body to temporary files (type by content, size limits; http/multipart.ts) for the
 * job prepareSubmission returned. Then field validation, then images decoded and previewed; only
 * then are files stored and the submission written with WorkSubmitted in one transaction. Any
 * refusal leaves no row and no stored file (the route deletes the temporary files).
 */
export async function submitWork(deps: JobsDeps, caller: Caller, job: JobRow, variant: SubmitVariant, form: SubmissionForm): Promise<{ submission: SubmissionRow; job: JobRow }> {
  const stored: string[] = [];
  try {
    const data = validateFields(form.fields, variant, job);
    const images = form.files.filter((f) => f.kind === 'image');
    const allowVideo = variant === 'poster_flow';
    for (const img of images) await assertDecodable(img, allowVideo);
    // Stored originals carry no EXIF/GPS/XMP metadata (videos are stored as uploaded).
    for (const img of images) await stripMetadata(img, allowVideo);
    const preview = images[0] ? await makePreview(images[0], allowVideo) : undefined;

    // Everything is valid: store the files under generated names.
    const submissionId = randomUUID();
    const fileRows = form.files.map((f) => ({
      id: randomUUID(),
      jobId: job.id,
      submissionId,
      kind: 'original',
      storageKey: `${job.id}/${randomUUID()}.${f.ext}`,
      contentType: f.contentType,
      ext: f.ext,
      size: f.size,
      originalName: f.name,
    }));
    for (const [i, f] of form.files.entries()) {
      await deps.storage.putFile(fileRows[i].storageKey, f.tmpPath, f.contentType);
      stored.push(fileRows[i].storageKey);
    }
    let previewRow: (typeof fileRows)[number] | undefined;
    if (preview) {
      previewRow = { id: randomUUID(), jobId: job.id, submissionId, kind: 'preview', storageKey: `${job.id}/${randomUUID()}.webp`, contentType: 'image/webp', ext: 'webp', size: preview.length, originalName: null };
      await deps.storage.putBuffer(previewRow.storageKey, preview, 'image/webp');
      stored.push(previewRow.storageKey);
    }

    const profile = await findUser(deps.db, caller.id);
    const submittedAt = new Date();
    const autoAcceptAt = addMs(submittedAt, deps.config.AUTO_ACCEPT_AFTER_MS);
    const result = await deps.events.inTransaction(async (tx) => {
      const updated = await markSubmitted(tx, { jobId: job.id, testerId: caller.id, revisionCount: job.revisionCount, submissionId, submittedAt, autoAcceptAt });
      if (!updated) return undefined;
      const sub = await insertSubmission(
        tx,
        {
          id: submissionId,
          jobId: job.id,
          testerId: caller.id,
          revision: job.revisionCount,
          variant,
          submittedByName: profile?.name || caller.name,
          submittedByLocation: testerPlace(profile?.country ?? caller.country ?? null, profile?.location ?? caller.location ?? null),
          deviceUsed: data.deviceUsed,
          browserUsed: data.browserUsed,
          keyFindings: data.keyFindings,
          requirementResponses: data.requirementResponses,
          generalFeedback: data.generalFeedback,
          previewFileId: previewRow?.id ?? null,
          minutesSpent: data.minutesSpent,
          claimToSubmitMinutes: job.claimedAt ? Math.max(0, Math.round((submittedAt.getTime() - job.claimedAt.getTime()) / 60_000)) : null,
          fileIds: fileRows.map((f) => f.id),
          submittedAt,
          autoAcceptAt,
        },
        previewRow ? [...fileRows, previewRow] : fileRows,
      );
      await deps.events.record(
        tx,
        createEvent(
          'WorkSubmitted',
          job.id,
          { jobId: job.id, testerId: caller.id, submissionId, revision: job.revisionCount, submittedAt: submittedAt.toISOString(), autoAcceptAt: autoAcceptAt.toISOString(), posterId: job.posterId },
          { correlationId: getCorrelationId() },
        ),
      );
      return { submission: sub, job: updated };
    });
    if (!result) {
      decide(await getJob(deps.db, job.id), 'submit');
      throw AppError.conflict('This job changed while you were submitting. Please reload.', 'job_changed');
    }
    stored.length = 0; // committed: keep the files
    return result;
  } finally {
    await Promise.all(stored.map((k) => deps.storage.delete(k).catch(() => undefined)));
  }
}

function validateFields(fields: Record<string, string>, variant: SubmitVariant, job: JobRow): NormalisedSubmission {
  // requirement_responses arrives as a JSON string in multipart: the Detailed report's checklist,
  // or the Quick report's optional answers to it.
  let responses: unknown = [];
  if (fields.requirement_responses !== undefined && fields.requirement_responses.trim() !== '') {
    try {
      responses = JSON.parse(fields.requirement_responses);
    } catch {
      throw AppError.invalid(JOB_MESSAGES.responsesInvalid, { requirement_responses: [JOB_MESSAGES.responsesInvalid] });
    }
  }
  if (variant === 'dashboard') {
    const v = parseOrThrow(submitWorkDashboardSchema, { ...fields, requirement_responses: responses });
    return {
      keyFindings: v.key_findings,
      // Only the items the tester answered: the poster sees no empty rows.
      requirementResponses: checkResponses(v.requirement_responses, job).filter((r) => r.response_text !== ''),
      generalFeedback: v.feedback_text,
      deviceUsed: null,
      browserUsed: null,
      minutesSpent: v.minutes_spent,
    };
  }
  const v = parseOrThrow(submitWorkPosterFlowSchema, { ...fields, requirement_responses: responses });
  return {
    keyFindings: v.key_findings,
    requirementResponses: checkResponses(v.requirement_responses, job),
    generalFeedback: v.general_feedback,
    deviceUsed: v.device_used,
    browserUsed: v.browser_used,
    minutesSpent: v.minutes_spent,
  };
}

/**
 * Where the poster is told the tester is: the country decides it (the role screen's locations
 * are USA and PR only, so a Canadian tester's chosen location would say USA or PR).
 */
export function testerPlace(country: string | null, location: string | null): string | null {
  if (country === 'CA') return 'Canada';
  if (country === 'PR') return 'PR';
  if (country === 'US') return 'USA';
  return location;
}

/** Each response answers a different item of this job's checklist. */
function checkResponses<R extends { requirement_index: number }>(responses: R[], job: JobRow): R[] {
  const seen = new Set<number>();
  for (const r of responses) {
    if (r.requirement_index >= job.requirements.length || seen.has(r.requirement_index)) {
      const msg = 'Each response must answer a different requirement of this job.';
      throw AppError.invalid(msg, { requirement_responses: [msg] });
    }
    seen.add(r.requirement_index);
  }
  return responses;
}

async function assertDecodable(img: UploadedFile, allowVideo: boolean): Promise<void> {
  let pixels = 0;
  let frames = 1;
  try {
    // The header only: no pixels are decoded here.
    const meta = await sharp(img.tmpPath).metadata();
    if (!meta.width || !meta.height) throw new Error('no size');
    pixels = meta.width * (meta.pageHeight ?? meta.height);
    frames = meta.pages ?? 1;
  } catch {
    throw unsupportedFile(allowVideo);
  }
  if (pixels > MAX_IMAGE_PIXELS || pixels * frames > MAX_ANIMATION_PIXELS) {
    throw new AppError('too_large', `Images may be at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels.`, { code: 'image_too_many_pixels' });
  }
}

/**
 * Re-encodes an uploaded image in its own format without its metadata (EXIF with GPS, XMP, IPTC,
 * comments); the EXIF orientation is applied to the pixels first, so the picture looks the same.
 * Animated GIF/WebP keep their frames. The temporary file is replaced in place.
 */
async function stripMetadata(img: UploadedFile, allowVideo: boolean): Promise<void> {
  const clean = `${img.tmpPath}.clean`;
  try {
    const meta = await sharp(img.tmpPath, { limitInputPixels: MAX_IMAGE_PIXELS }).metadata();
    const animated = (meta.pages ?? 1) > 1;
    let pipeline = untrustedImage(img.tmpPath, { animated });
    if (!animated) pipeline = pipeline.rotate();
    if (meta.format === 'jpeg') pipeline = pipeline.jpeg({ quality: 92 });
    else if (meta.format === 'png') pipeline = pipeline.png();
    else if (meta.format === 'webp') pipeline = pipeline.webp({ quality: 92 });
    else if (meta.format === 'gif') pipeline = pipeline.gif();
    else throw new Error(`unexpected image format ${meta.format}`);
    const info = await pipeline.toFile(clean);
    await rename(clean, img.tmpPath);
    img.size = info.size;
  } catch (err) {
    await rm(clean, { force: true });
    throw timedOut(err) ? tooSlow() : unsupportedFile(allowVideo);
  }
}

/** A small WebP of the first image, re-encoded (so no metadata such as GPS survives). */
async function makePreview(img: UploadedFile, allowVideo: boolean): Promise<Buffer> {
  try {
    return await untrustedImage(img.tmpPath)
      .rotate()
      .resize({ width: PREVIEW_MAX, height: PREVIEW_MAX, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 70 })
      .toBuffer();
  } catch (err) {
    throw timedOut(err) ? tooSlow() : unsupportedFile(allowVideo);
  }
}
