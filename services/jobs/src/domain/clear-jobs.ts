import { createEvent } from '@htm/events';
import type { ClearJobsPreview } from '@htm/contracts';
import { AppError, getCorrelationId } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import {
  clearPreview,
  deleteAllJobs,
  lockForClear,
  paidUnfinishedJobIds,
} from '../db/job.repository.js';
import { deleteAllSubmissions } from '../db/submission.repository.js';
import { deleteAllRecordings } from '../db/recording.repository.js';
import { deleteAllPacks } from '../db/pack.repository.js';
import { deleteAllSummaries } from '../db/summary.repository.js';
import { deleteAllSiteChecks } from '../db/share.repository.js';

/**
 * GET /internal/jobs/clear-preview: the jobs part of the admin's preview (ClearJobsPreview without
 * the job requests and the admin's confirmation), and the fingerprint of exactly those jobs.
 */
export type ClearPreview = Omit<
  ClearJobsPreview,
  'job_requests' | 'confirmation' | 'expires_at'
> & { fingerprint: string };

export async function previewClear(deps: JobsDeps): Promise<ClearPreview> {
  const p = await clearPreview(deps.db);
  const out: ClearPreview = {
    jobs_total: 0,
    jobs_by_status: {},
    submissions: p.submissions,
    paid_unfinished: 0,
    paid_unfinished_cents: 0,
    paid_completed: 0,
    paid_completed_cents: 0,
    unpaid: 0,
    fingerprint: p.fingerprint,
  };
  for (const r of p.rows) {
    out.jobs_total += r.jobs;
    out.jobs_by_status[r.status] = (out.jobs_by_status[r.status] ?? 0) + r.jobs;
    if (r.paymentStatus !== 'paid') out.unpaid += r.jobs;
    // A pack's slot closed unfilled was refunded then: clear-all refunds it no more (paidUnfinishedJobIds).
    else if (r.status === 'closed') continue;
    else if (r.status === 'completed') {
      out.paid_completed += r.jobs;
      out.paid_completed_cents += r.cents;
    } else {
      out.paid_unfinished += r.jobs;
      out.paid_unfinished_cents += r.cents;
    }
  }
  return out;
}

/**
 * POST /internal/jobs/clear {fingerprint} (admin service): deletes every job, submission and file,
 * but only when the jobs are still exactly those the admin previewed (writes wait on a table lock
 * meanwhile): otherwise 409 clear_preview_stale and nothing is deleted. JobsCleared names the paid
 * jobs nobody finished, which payments refunds.
 */
export async function clearJobs(
  deps: JobsDeps,
  fingerprint: string,
  actorId?: string,
): Promise<{ jobs_deleted: number; submissions_deleted: number; refunded_jobs: number }> {
  const { result, keys, recordingIds } = await deps.events.inTransaction(async (tx) => {
    await lockForClear(tx);
    const now = await clearPreview(tx);
    if (now.fingerprint !== fingerprint) {
      throw AppError.conflict(
        'The jobs changed since the preview, so nothing was cleared. Please review the new counts and confirm again.',
        'clear_preview_stale',
      );
    }
    const refundJobIds = await paidUnfinishedJobIds(tx);
    const { storageKeys, submissionsDeleted } = await deleteAllSubmissions(tx);
    const recordingIds = await deleteAllRecordings(tx);
    const jobsDeleted = await deleteAllJobs(tx);
    await deleteAllPacks(tx);
    await deleteAllSummaries(tx);
    await deleteAllSiteChecks(tx);
    const r = {
      jobs_deleted: jobsDeleted,
      submissions_deleted: submissionsDeleted,
      refunded_jobs: refundJobIds.length,
    };
    await deps.events.record(
      tx,
      createEvent(
        'JobsCleared',
        'all-jobs',
        {
          jobsDeleted: r.jobs_deleted,
          submissionsDeleted: r.submissions_deleted,
          refundJobIds,
          ...(actorId ? { actorId } : {}),
        },
        { correlationId: getCorrelationId() },
      ),
    );
    return { result: r, keys: storageKeys, recordingIds };
  });
  for (const k of keys)
    await deps.storage
      .delete(k)
      .catch((err) =>
        deps.logger.warn({ err: (err as Error).message, key: k }, 'could not delete file'),
      );
  const recordings = await deps.recordingStore;
  for (const id of recordingIds)
    await recordings
      .remove(id)
      .catch((err) =>
        deps.logger.warn(
          { err: (err as Error).message, recordingId: id },
          'could not delete recording',
        ),
      );
  return result;
}
