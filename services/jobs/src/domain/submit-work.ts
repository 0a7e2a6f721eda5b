import { randomUUID } from 'node:crypto';
import { AppError, parseOrThrow, type Caller } from '@htm/service-kit';
import {
  FINDING_MESSAGES,
  JOB_MESSAGES,
  findingDetailsSchema,
  findingFieldPrefix,
  hasFindingDetails,
  submitWorkDashboardSchema,
  submitWorkPosterFlowSchema,
  taskFieldsSchema,
  TASK_MESSAGES,
  type FindingDetails,
  type TaskAnswerView,
} from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import type { JobRow, SubmissionRow } from '../db/schema.js';
import { extendHoldDeadline, findUser } from '../db/job.repository.js';
import { insertSubmission } from '../db/submission.repository.js';
import { queueSessionCheck } from '../db/session-check.repository.js';
import { decideFindingPairs } from '../db/summary.repository.js';
import { sameProblemAnswers } from './summaries.js';
import {
  ImageTooComplexError,
  MAX_ANIMATION_PIXELS,
  MAX_IMAGE_PIXELS,
  imageSize,
  replaceFile,
  webpPreview,
  withoutMetadata,
} from '../providers/image-processor.js';
import { addMs, applyTransition, decide, getJob } from './job-state.js';
import { recordingForSubmission } from './recordings.js';
import {
  isStorageFull,
  storageFull,
  unsupportedFile,
  type SubmissionForm,
  type SubmitVariant,
  type UploadedFile,
} from './uploads.js';

export type { SubmitVariant };

interface NormalisedSubmission {
  keyFindings: string[];
  /** One per key finding, same order. */
  findingDetails: FindingDetails[];
  /** Findings 1-3's details by their number (moments are checked against the recording with it). */
  findingDetailsByNumber: FindingDetails[];
  requirementResponses: Array<{ requirement_index: number; response_text: string }>;
  generalFeedback: string | null;
  deviceUsed: string | null;
  browserUsed: string | null;
  minutesSpent: number | null;
  taskAnswers: TaskAnswerView[];
  susAnswers: number[] | null;
  /** The form's numbers (1-3) of the stored findings, in their order. */
  keyFindingNumbers: number[];
}

const PREVIEW_MAX = 480;
const tooSlow = () =>
  new AppError(
    'too_large',
    'This image is too complex to process. Please upload a simpler screenshot (PNG or JPEG).',
    { code: 'image_too_complex' },
  );
/** What the tester is told about an image the processor could not read. */
const imageError = (err: unknown, allowVideo: boolean) =>
  err instanceof ImageTooComplexError ? tooSlow() : unsupportedFile(allowVideo);

export const RELEASED_MESSAGES: Record<string, { detail: string; code: string }> = {
  claim_timeout: { detail: JOB_MESSAGES.claimExpired, code: 'claim_expired' },
  revision_expired: { detail: JOB_MESSAGES.revisionExpired, code: 'revision_expired' },
};

/** The 403 for someone not holding the job: it says so when a timer took the job from this tester. */
function notYourJob(
  job: Pick<JobRow, 'releasedTesterId' | 'releaseReason'>,
  testerId: string,
): AppError {
  const released =
    job.releasedTesterId === testerId ? RELEASED_MESSAGES[job.releaseReason ?? ''] : undefined;
  if (released) return AppError.forbidden(released.detail, released.code);
  return AppError.forbidden(
    'Only the tester holding this job can submit work for it.',
    'not_job_tester',
  );
}

/**
 * Submit work, step 1, before the route reads the body: only the tester holding the job, and
 * only while it waits for work (a stranger gets 403 whatever they send). Returns the job.
 */
export async function prepareSubmission(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
): Promise<JobRow> {
  const job = await getJob(deps.db, jobId);
  if (job.testerId !== caller.id) throw notYourJob(job, caller.id);
  decide(job, 'submit');
  return job;
}

/** After we failed to store a tester's upload, their claim (or revision window) lasts at least this much longer. */
export const STORAGE_FAILURE_GRACE_MS = 60 * 60_000;

/**
 * Submit work, when storing the upload failed because our disk or storage is full (ENOSPC
 * anywhere: the temporary files, the image rewrite, the storage provider): the failure is ours,
 * so the tester's clock must not run out because of it. Their claim deadline (or revision
 * deadline) moves to at least STORAGE_FAILURE_GRACE_MS from now (the timer worker's rebuild
 * schedules the new deadline; the old timer finds the deadline changed and does nothing).
 * Returns the 507 to answer.
 */
export async function storageFailed(
  deps: JobsDeps,
  caller: Caller,
  job: JobRow,
  err: unknown,
): Promise<AppError> {
  const until = new Date(Date.now() + STORAGE_FAILURE_GRACE_MS);
  const extended = await extendHoldDeadline(deps.db, {
    jobId: job.id,
    testerId: caller.id,
    until,
  }).catch(() => false);
  deps.logger.error(
    {
      err: (err as Error)?.message,
      jobId: job.id,
      testerId: caller.id,
      deadlineExtendedTo: extended ? until.toISOString() : null,
    },
    'upload could not be stored: storage full',
  );
  return storageFull();
}

export { isStorageFull };

/**
 * Submit work, both variants (spec section 5), step 2: the route has streamed the whole
 * multipart body to temporary files (type by content, size limits; http/multipart.ts) for the
 * job prepareSubmission returned. Then field validation, then images decoded and previewed; only
 * then are files stored and the submission written with WorkSubmitted in one transaction. Any
 * refusal leaves no row and no stored file (the route deletes the temporary files).
 */
export async function submitWork(
  deps: JobsDeps,
  caller: Caller,
  job: JobRow,
  variant: SubmitVariant,
  form: SubmissionForm,
): Promise<{ submission: SubmissionRow; job: JobRow }> {
  const stored: string[] = [];
  try {
    const data = validateFields(form.fields, variant, job);
    const recordingId = await recordingForSubmission(
      deps,
      caller,
      job.id,
      form.fields.recording_id,
      variant,
      data.findingDetailsByNumber,
    );
    // The tester's "same problem" answers (issue #51), after writing their own findings.
    const sameAs = await sameProblemAnswers(
      deps,
      job,
      data.keyFindingNumbers.flatMap((n, index) => {
        const ref = form.fields[`${findingFieldPrefix(variant, n)}_same_as`];
        return ref?.trim() ? [{ n, index, ref }] : [];
      }),
    );
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
      previewRow = {
        id: randomUUID(),
        jobId: job.id,
        submissionId,
        kind: 'preview',
        storageKey: `${job.id}/${randomUUID()}.webp`,
        contentType: 'image/webp',
        ext: 'webp',
        size: preview.length,
        originalName: null,
      };
      await deps.storage.putBuffer(previewRow.storageKey, preview, 'image/webp');
      stored.push(previewRow.storageKey);
    }

    const profile = await findUser(deps.db, caller.id);
    const submittedAt = new Date();
    const autoAcceptAt = addMs(submittedAt, deps.config.AUTO_ACCEPT_AFTER_MS);
    // Checked before the poster sees it: held until the check delivers it (check-session.ts).
    const checked = deps.config.SESSION_CHECKS === 'on';
    const result = await deps.events.inTransaction(async (tx) => {
      // Lost race (the job moved on): the 409 it now deserves, from applyTransition.
      const updated = (await applyTransition(
        tx,
        deps,
        { id: job.id, testerId: caller.id, revisionCount: job.revisionCount },
        'submit',
        { submittedAt, autoAcceptAt, currentSubmissionId: submissionId },
        { hasRecording: recordingId !== null, heldUntil: heldUntil(job), awaitsCheck: checked },
      ))!;
      const sub = await insertSubmission(
        tx,
        {
          id: submissionId,
          jobId: job.id,
          testerId: caller.id,
          revision: job.revisionCount,
          variant,
          submittedByName: profile?.name || caller.name,
          submittedByLocation: testerPlace(
            profile?.country ?? caller.country ?? null,
            profile?.location ?? caller.location ?? null,
          ),
          deviceUsed: data.deviceUsed,
          browserUsed: data.browserUsed,
          keyFindings: data.keyFindings,
          findingDetails: data.findingDetails,
          requirementResponses: data.requirementResponses,
          generalFeedback: data.generalFeedback,
          previewFileId: previewRow?.id ?? null,
          minutesSpent: data.minutesSpent,
          claimToSubmitMinutes: job.claimedAt
            ? Math.max(0, Math.round((submittedAt.getTime() - job.claimedAt.getTime()) / 60_000))
            : null,
          fileIds: fileRows.map((f) => f.id),
          recordingId,
          taskAnswers: data.taskAnswers,
          susAnswers: data.susAnswers,
          submittedAt,
          autoAcceptAt,
          held: checked,
        },
        previewRow ? [...fileRows, previewRow] : fileRows,
      );
      // Checked off the request path (workers/session-checks.ts) before the poster sees it.
      if (checked)
        await queueSessionCheck(tx, { submissionId, jobId: job.id, testerId: caller.id });
      if (sameAs.length && job.packId)
        for (const a of sameAs)
          await decideFindingPairs(
            tx,
            job.packId,
            [[{ submissionId, index: a.index }, a.other]],
            true,
            'tester',
            submittedAt,
          );
      return { submission: sub, job: updated };
    });
    stored.length = 0; // committed: keep the files
    return result;
  } finally {
    await Promise.all(stored.map((k) => deps.storage.delete(k).catch(() => undefined)));
  }
}

/** The deadline of the hold a submission ends (the claim's, or the revision window's), for WorkSubmitted. */
function heldUntil(job: JobRow): Date | null {
  return job.status === 'revision_requested' ? job.revisionDeadlineAt : job.claimDeadlineAt;
}

function validateFields(
  fields: Record<string, string>,
  variant: SubmitVariant,
  job: JobRow,
): NormalisedSubmission {
  const common = variantFields(fields, variant, job);
  // Issue #51's optional fields: a finding's thing to check, task answers and SUS.
  for (const [i, d] of common.findingDetailsByNumber.entries()) {
    if (d.requirement_index != null && d.requirement_index >= job.requirements.length) {
      const msg = FINDING_MESSAGES.requirementInvalid(i + 1);
      throw AppError.invalid(msg, {
        [`${findingFieldPrefix(variant, i + 1)}_requirement_index`]: [msg],
      });
    }
  }
  const tasks = parseOrThrow(taskFieldsSchema, {
    task_answers: jsonField(fields, 'task_answers', TASK_MESSAGES.answersInvalid),
    sus: jsonField(fields, 'sus', TASK_MESSAGES.susInvalid),
  });
  return {
    ...common,
    taskAnswers: checkResponses(
      tasks.task_answers,
      job,
      'task_answers',
      TASK_MESSAGES.requirementInvalid,
    ),
    susAnswers: tasks.sus,
  };
}

/** A multipart field holding JSON (undefined when absent or blank); bad JSON is a 400 naming the field. */
function jsonField(fields: Record<string, string>, name: string, message: string): unknown {
  const raw = fields[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    throw AppError.invalid(message, { [name]: [message] });
  }
}

function variantFields(
  fields: Record<string, string>,
  variant: SubmitVariant,
  job: JobRow,
): Omit<NormalisedSubmission, 'taskAnswers' | 'susAnswers'> {
  // requirement_responses arrives as a JSON string in multipart: the Detailed report's checklist,
  // or the Quick report's optional answers to it.
  let responses: unknown = [];
  if (fields.requirement_responses !== undefined && fields.requirement_responses.trim() !== '') {
    try {
      responses = JSON.parse(fields.requirement_responses);
    } catch {
      throw AppError.invalid(JOB_MESSAGES.responsesInvalid, {
        requirement_responses: [JOB_MESSAGES.responsesInvalid],
      });
    }
  }
  // The variant's own fields first (their messages as before), then the findings' details.
  if (variant === 'dashboard') {
    const v = parseOrThrow(submitWorkDashboardSchema, {
      ...fields,
      requirement_responses: responses,
    });
    const details = findingDetails(fields, variant);
    // Empty findings 2 and 3 are dropped; their details must be empty too.
    const given = [1, 2, 3].filter((n) => !!fields[`key_finding_${n}`]?.trim());
    return {
      keyFindings: v.key_findings,
      findingDetails: given.map((n) => details[n - 1]),
      findingDetailsByNumber: details,
      keyFindingNumbers: given,
      // Only the items the tester answered: the poster sees no empty rows.
      requirementResponses: checkResponses(v.requirement_responses, job).filter(
        (r) => r.response_text !== '',
      ),
      generalFeedback: v.feedback_text,
      deviceUsed: null,
      browserUsed: null,
      minutesSpent: v.minutes_spent,
    };
  }
  const v = parseOrThrow(submitWorkPosterFlowSchema, {
    ...fields,
    requirement_responses: responses,
  });
  const bulletDetails = findingDetails(fields, variant);
  return {
    keyFindings: v.key_findings,
    findingDetails: bulletDetails,
    findingDetailsByNumber: bulletDetails,
    keyFindingNumbers: [1, 2, 3],
    requirementResponses: checkResponses(v.requirement_responses, job),
    generalFeedback: v.general_feedback,
    deviceUsed: v.device_used,
    browserUsed: v.browser_used,
    minutesSpent: v.minutes_spent,
  };
}

/**
 * The details of findings 1-3 (all optional): each bad value a 400 naming its field; details
 * beside an empty finding are refused rather than silently dropped.
 */
function findingDetails(fields: Record<string, string>, variant: SubmitVariant): FindingDetails[] {
  const details = parseOrThrow(findingDetailsSchema(variant), fields);
  for (const [i, d] of details.entries()) {
    const prefix = findingFieldPrefix(variant, i + 1);
    if (hasFindingDetails(d) && !fields[prefix]?.trim()) {
      const msg = FINDING_MESSAGES.detailsWithoutText(i + 1);
      throw AppError.invalid(msg, { [prefix]: [msg] });
    }
  }
  return details;
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

/** Each response (or task answer) answers a different item of this job's checklist. */
function checkResponses<R extends { requirement_index: number }>(
  responses: R[],
  job: JobRow,
  field = 'requirement_responses',
  msg = 'Each response must answer a different requirement of this job.',
): R[] {
  const seen = new Set<number>();
  for (const r of responses) {
    if (r.requirement_index >= job.requirements.length || seen.has(r.requirement_index)) {
      throw AppError.invalid(msg, { [field]: [msg] });
    }
    seen.add(r.requirement_index);
  }
  return responses;
}

async function assertDecodable(img: UploadedFile, allowVideo: boolean): Promise<void> {
  let size: { pixels: number; frames: number };
  try {
    size = await imageSize(img.tmpPath);
  } catch {
    throw unsupportedFile(allowVideo);
  }
  if (size.pixels > MAX_IMAGE_PIXELS || size.pixels * size.frames > MAX_ANIMATION_PIXELS) {
    throw new AppError(
      'too_large',
      `Images may be at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels.`,
      { code: 'image_too_many_pixels' },
    );
  }
}

/**
 * The uploaded image without its metadata (EXIF with GPS, XMP, IPTC, comments), in place of the
 * temporary file. A decode failure is the file's (415, or 413 when too complex); a write failure
 * (disk full) is ours and answers 507.
 */
async function stripMetadata(img: UploadedFile, allowVideo: boolean): Promise<void> {
  let clean: Buffer;
  try {
    clean = await withoutMetadata(img.tmpPath);
  } catch (err) {
    throw imageError(err, allowVideo);
  }
  await replaceFile(img.tmpPath, clean);
  img.size = clean.length;
}

/** A small WebP of the first image, re-encoded (so no metadata such as GPS survives). */
async function makePreview(img: UploadedFile, allowVideo: boolean): Promise<Buffer> {
  try {
    return await webpPreview(img.tmpPath, PREVIEW_MAX);
  } catch (err) {
    throw imageError(err, allowVideo);
  }
}
