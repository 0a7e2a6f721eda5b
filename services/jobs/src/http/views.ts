import { EMPTY_FINDING_DETAILS, type FindingView } from '@htm/contracts';
import type {
  AssistiveTech,
  GeoRule,
  JobStatus,
  JobView,
  RatingView,
  RetestComparisonView,
  SubmissionView,
} from '@htm/contracts';
import type { FileRow, JobRow, RatingRow, RecordingRow, SubmissionRow } from '../db/schema.js';
import type { FileLinkSigner } from '../storage/file-links.js';
import type { RetestComparison, SubmissionRead } from '../domain/read-submission.js';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function toRatingView(r: RatingRow): RatingView {
  return { stars: r.stars, comment: r.comment, created_at: r.createdAt.toISOString() };
}

/**
 * The job object of docs/api-contracts.md; poster_info only when given (admin); `rating` only
 * in the poster's and the admin's lists (null until rated).
 */
export function toJobView(
  job: JobRow,
  posterInfo?: { email: string; name: string },
  rating?: RatingRow | null,
): JobView {
  const view: JobView = {
    id: job.id,
    title: job.title,
    url: job.url,
    what_to_test: job.whatToTest,
    budget: 1,
    expected_completion_hours: job.expectedCompletionHours,
    geo_rule: job.geoRule as GeoRule,
    requirements: job.requirements,
    status: job.status as JobStatus,
    payment_status: job.paymentStatus === 'paid' ? 'paid' : 'unpaid',
    poster_id: job.posterId,
    tester_id: job.testerId,
    last_review: job.lastReview ?? null,
    revision_count: job.revisionCount,
    created_at: job.createdAt.toISOString(),
    claimed_at: iso(job.claimedAt),
    submitted_at: iso(job.submittedAt),
    completed_at: iso(job.completedAt),
    claim_deadline_at: iso(job.claimDeadlineAt),
    auto_accept_at: iso(job.autoAcceptAt),
    revision_deadline_at: iso(job.revisionDeadlineAt),
    fresh_eyes: job.freshEyes,
    assistive_tech: (job.assistiveTech as AssistiveTech | null) ?? null,
    retest_of: job.retestOf,
    reserved_until: iso(job.reservedUntil),
    paid_at: iso(job.paidAt),
    pack_id: job.packId ?? null,
  };
  if (posterInfo) view.poster_info = posterInfo;
  if (rating !== undefined) view.rating = rating ? toRatingView(rating) : null;
  return view;
}

/** The submission object; `locked` hides everything but the preview. */
export function toSubmissionView(
  sub: SubmissionRow,
  fileRows: FileRow[],
  links: FileLinkSigner,
  locked: boolean,
  recording?: { row: RecordingRow; url: string },
): SubmissionView {
  const byId = new Map(fileRows.map((f) => [f.id, f]));
  return {
    id: sub.id,
    job_id: sub.jobId,
    revision: sub.revision,
    submitted_at: sub.submittedAt.toISOString(),
    locked,
    auto_accept_at: sub.acceptedAt ? null : iso(sub.autoAcceptAt),
    submitted_by_snapshot: { name: sub.submittedByName, location: sub.submittedByLocation },
    human_preview: {
      device_used: sub.deviceUsed,
      browser_used: sub.browserUsed,
      key_findings_bullets: sub.keyFindings,
      small_image_url: sub.previewFileId ? links.url(sub.previewFileId) : null,
    },
    requirement_responses: locked ? null : sub.requirementResponses,
    general_feedback: locked ? null : sub.generalFeedback,
    file_urls: locked ? null : sub.fileIds.filter((id) => byId.has(id)).map((id) => links.url(id)),
    file_names: locked
      ? null
      : sub.fileIds.filter((id) => byId.has(id)).map((id) => byId.get(id)!.originalName ?? null),
    minutes_spent: sub.minutesSpent ?? null,
    claim_to_submit_minutes: sub.claimToSubmitMinutes ?? null,
    findings: toFindingViews(sub),
    recording: recording
      ? {
          id: recording.row.id,
          url: recording.url,
          mime_type: recording.row.mimeType ?? 'video/webm',
          duration_ms: recording.row.durationMs ?? null,
          size_bytes: recording.row.sizeBytes ?? 0,
        }
      : null,
  };
}

/** The key findings with their details, in finding order (older submissions: details all null). */
export function toFindingViews(sub: SubmissionRow): FindingView[] {
  return sub.keyFindings.map((text, i) => ({
    text,
    ...EMPTY_FINDING_DETAILS,
    ...(sub.findingDetails?.[i] ?? {}),
  }));
}

/** A submission as its reader may see it (readSubmission). */
export function toSubmissionReadView(
  r: SubmissionRead,
  links: FileLinkSigner,
  recordingUrl?: (id: string) => string,
): SubmissionView {
  return toSubmissionView(
    r.submission,
    r.files,
    links,
    r.locked,
    r.recording && recordingUrl
      ? { row: r.recording, url: recordingUrl(r.recording.id) }
      : undefined,
  );
}

/** GET /api/jobs/:id/before-after: rows pair requirement responses by index and key findings by position. */
export function toRetestComparisonView(
  c: RetestComparison,
  links: FileLinkSigner,
): RetestComparisonView {
  const before = c.before ? toSubmissionReadView(c.before, links) : null;
  const after = c.after ? toSubmissionReadView(c.after, links) : null;
  const responseOf = (v: SubmissionView | null, i: number) =>
    v?.requirement_responses?.find((r) => r.requirement_index === i)?.response_text ?? null;
  const beforeFindings = before?.human_preview.key_findings_bullets ?? [];
  const afterFindings = after?.human_preview.key_findings_bullets ?? [];
  return {
    job_id: c.job.id,
    retest_of: c.retestOf,
    before: c.beforeFindingsOnly ? null : before,
    after,
    requirements: c.job.requirements.map((requirement, i) => ({
      requirement_index: i,
      requirement,
      before: responseOf(before, i),
      after: responseOf(after, i),
    })),
    key_findings: Array.from(
      { length: Math.max(beforeFindings.length, afterFindings.length) },
      (_, i) => ({
        index: i,
        before: beforeFindings[i] ?? null,
        after: afterFindings[i] ?? null,
      }),
    ),
  };
}
