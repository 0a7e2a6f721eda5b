import { EMPTY_FINDING_DETAILS, type FindingView } from '@htm/contracts';
import type { RetestComparisonView, SessionCheckView, SubmissionView } from '@htm/contracts';
import {
  SESSION_CHECK_REASONS,
  checkedLine,
  type SessionVerdict,
} from '@htm/contracts/marketplace';
import type { FileRow, RecordingRow, SubmissionRow } from '../db/schema.js';
import type { FileLinkSigner } from '../providers/file-links.js';
import {
  withoutLockedParts,
  type RetestComparison,
  type SubmissionRead,
} from '../domain/review/read-submission.js';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** The submission object; `locked` hides everything but the preview. */
export function toSubmissionView(
  sub: SubmissionRow,
  fileRows: FileRow[],
  links: FileLinkSigner,
  locked: boolean,
  recording?: { row: RecordingRow; url: string },
): SubmissionView {
  const byId = new Map(fileRows.map((f) => [f.id, f]));
  const seen = withoutLockedParts(sub, locked);
  const fileIds = seen.fileIds?.filter((id) => byId.has(id)) ?? null;
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
    requirement_responses: seen.requirementResponses,
    general_feedback: seen.generalFeedback,
    file_urls: fileIds?.map((id) => links.url(id)) ?? null,
    file_names: fileIds?.map((id) => byId.get(id)!.originalName ?? null) ?? null,
    minutes_spent: sub.minutesSpent ?? null,
    claim_to_submit_minutes: sub.claimToSubmitMinutes ?? null,
    findings: toFindingViews(sub),
    task_answers: seen.taskAnswers ?? null,
    sus: seen.susAnswers ?? null,
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
  const view = toSubmissionView(
    r.submission,
    r.files,
    links,
    r.locked,
    r.recording && recordingUrl
      ? { row: r.recording, url: recordingUrl(r.recording.id) }
      : undefined,
  );
  if (r.check) view.session_check = toSessionCheckView(r.check);
  return view;
}

/** A report's session check as its reader sees it: the tester's reasons in their own words, the poster's warning in theirs. */
export function toSessionCheckView(c: NonNullable<SubmissionRead['check']>): SessionCheckView {
  const { row } = c;
  const reasons = row.reasons ?? [];
  const done = row.status === 'done' && !!row.verdict && !!row.metrics;
  return {
    status: done ? 'done' : 'checking',
    verdict: done ? (row.verdict as SessionVerdict) : null,
    line: done ? checkedLine(row.metrics!, reasons) : null,
    reasons: reasons.map((code) => ({
      code,
      text: SESSION_CHECK_REASONS[code][c.reader === 'tester' ? 'tester' : 'owner'],
    })),
    replacement_available: c.replacementAvailable,
  };
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
