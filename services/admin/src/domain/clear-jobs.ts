import { createHash, randomBytes } from 'node:crypto';
import { CLEAR_JOBS_MESSAGES, type ClearJobsPreview, type ClearJobsResult } from '@htm/contracts';
import { AppError } from '@htm/service-kit';
import type { AdminDeps } from '../deps.js';
import type { JobsClient } from '../clients/jobs.client.js';
import {
  countWaitlistEntriesOfKind,
  deleteWaitlistEntriesOfKind,
} from '../db/waitlist.repository.js';
import {
  pruneClearConfirmations,
  saveClearConfirmation,
  useClearConfirmation,
} from '../db/audit.repository.js';

/** How long a clear-all confirmation lives. */
export const CLEAR_CONFIRMATION_MS = 5 * 60 * 1000;

/**
 * What is stored of a confirmation: a hash of the token and the admin session (the access
 * token's `sid`) that asked for the preview, so the token confirms nothing in another session of
 * the same admin (another browser, a stolen copy of the token) any more than for another admin.
 */
const hashOf = (token: string, sessionId: string | undefined) =>
  createHash('sha256')
    .update(`${sessionId ?? ''}\0${token}`)
    .digest('base64url');

/**
 * Step 1 of "clear all jobs": what would go (jobs by status, submissions, job requests), what
 * money it touches (paid jobs nobody finished are refunded; completed ones keep their earnings),
 * and a confirmation for exactly this state: single use, 5 minutes, this admin session only
 * (`sessionId`). Only its hash is stored.
 */
export async function previewClearJobs(
  deps: AdminDeps,
  jobs: JobsClient,
  adminId: string,
  sessionId: string | undefined,
): Promise<ClearJobsPreview> {
  const p = await jobs.previewClear();
  const jobRequests = await countWaitlistEntriesOfKind(deps.db, 'job_request');
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + CLEAR_CONFIRMATION_MS);
  const { fingerprint, ...counts } = p;
  const preview = { ...counts, job_requests: jobRequests };
  // The job requests are admin's own rows: part of what was confirmed.
  await saveClearConfirmation(deps.db, {
    tokenHash: hashOf(token, sessionId),
    adminId,
    fingerprint: `${fingerprint}|${jobRequests}`,
    preview,
    expiresAt,
  });
  await pruneClearConfirmations(deps.db).catch(() => undefined);
  return { ...preview, confirmation: token, expires_at: expiresAt.toISOString() };
}

/**
 * Step 2: with the confirmation of a preview (used up here, whatever follows), jobs deletes every
 * job and submission only if they are still exactly those previewed (else 409
 * clear_preview_stale: preview again), then admin deletes its job requests. The audit log gets
 * the row from jobs' JobsCleared event (who, counts, refunds).
 */
export async function clearJobs(
  deps: AdminDeps,
  jobs: JobsClient,
  adminId: string,
  sessionId: string | undefined,
  confirmation: string,
): Promise<ClearJobsResult> {
  const confirmed = await useClearConfirmation(deps.db, hashOf(confirmation, sessionId), adminId);
  if (!confirmed)
    throw AppError.conflict(CLEAR_JOBS_MESSAGES.confirmationInvalid, 'confirmation_invalid');
  const [jobsFingerprint, jobRequests] = confirmed.fingerprint.split('|');
  if (String(await countWaitlistEntriesOfKind(deps.db, 'job_request')) !== jobRequests) {
    throw AppError.conflict(
      'The jobs changed since the preview, so nothing was cleared. Please review the new counts and confirm again.',
      'clear_preview_stale',
    );
  }
  const cleared = await jobs.clearAll(jobsFingerprint, adminId);
  const waitlistDeleted = await deleteWaitlistEntriesOfKind(deps.db, 'job_request');
  deps.logger.info(
    { ...cleared, waitlist_deleted: waitlistDeleted, adminId },
    'admin cleared all jobs',
  );
  return {
    jobs_deleted: cleared.jobs_deleted,
    submissions_deleted: cleared.submissions_deleted,
    waitlist_deleted: waitlistDeleted,
    refunded_jobs: cleared.refunded_jobs,
  };
}
