import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { createEvent } from '@htm/events';
import { EXAMPLE_SUBMISSION } from '@htm/contracts/example-report';
import type { JobsDeps } from '../deps.js';
import { sessionCheckThresholds } from '../config.js';
import type { Tx } from '@htm/service-kit/db';
import { SESSION_CHECK_REASONS, TRANSITIONS, checkedLine } from '@htm/contracts/marketplace';
import type { JobRow, SessionCheckRow } from '../db/schema.js';
import { findJob } from '../db/job.repository.js';
import { findRecording } from '../db/recording.repository.js';
import { findSubmission } from '../db/submission.repository.js';
import {
  deferSessionCheck,
  finishSessionCheck,
  markSessionReplaced,
  reportsToCompare,
  setSubmissionHeld,
  unholdCurrentSubmission,
} from '../db/session-check.repository.js';
import { applyTransition } from './job-state.js';
import { requestSummaryOf } from './summaries.js';
import { enqueueJobWebhook } from './webhooks.js';
import { isMissingProgram } from '../providers/media-tools.js';
import {
  evaluateSession,
  NO_METRICS,
  reportText,
  type RecordingEvidence,
} from './session-check.js';

/** The example report's words: a known duplicate (a report copying it is not original). */
const EXAMPLE_TEXT = reportText({
  keyFindings: (EXAMPLE_SUBMISSION.findings ?? []).map((f) => f.text),
  findingDetails: EXAMPLE_SUBMISSION.findings ?? [],
  requirementResponses: EXAMPLE_SUBMISSION.requirement_responses ?? [],
  generalFeedback: EXAMPLE_SUBMISSION.general_feedback ?? null,
});

/** A recording not measured yet (its remux still running) is waited for this many tries. */
const WAIT_FOR_REMUX_TRIES = 3;
/** Tries of a check whose recording could not be read before it is judged without the recording's measures. */
export const SESSION_CHECK_MAX_TRIES = 5;
const retryAfter = (tries: number) => new Date(Date.now() + Math.min(5000 * 2 ** tries, 300_000));

export type CheckResult = 'done' | 'deferred' | 'gone';

/**
 * Measures the recording (when one is attached): downloads it to the temporary area and asks the
 * media provider for its silences and still screens. Null evidence when nothing could be
 * measured (no ffmpeg: the checks then claim nothing about the recording).
 */
async function measureRecording(
  deps: JobsDeps,
  recordingId: string,
  knownMs: number | null,
): Promise<{ evidence: RecordingEvidence; note: string | null }> {
  const t = sessionCheckThresholds(deps.config);
  const store = await deps.recordingStore;
  const file = path.join(deps.tmpDir, `check-${recordingId}`);
  try {
    await mkdir(deps.tmpDir, { recursive: true });
    await store.download(recordingId, file);
    const facts = await deps.media.analyse(file, {
      noiseDb: t.silenceNoiseDb,
      minMs: t.silenceMinMs,
      freezeNoise: t.freezeNoise,
      fps: t.freezeFps,
    });
    return {
      evidence: {
        durationMs: knownMs ?? facts.durationMs,
        silences: facts.silences,
        stills: facts.stills,
      },
      note: null,
    };
  } catch (err) {
    if (!isMissingProgram(err)) throw err;
    return {
      evidence: { durationMs: knownMs, silences: [], stills: [] },
      note: 'ffmpeg not found: talk time and idle stretches not measured',
    };
  } finally {
    await rm(file, { force: true });
  }
}

/**
 * A held report reaches its poster (its check passed, or the admin released it): no longer held,
 * its job's summary asked for again, and the submit transition's webhook (job.submitted) sent now
 * rather than at submission. False when there is nothing to deliver: the report is not the one
 * its job waits a review for any more (the job moved on), or it was not held.
 */
export async function deliverReport(
  tx: Tx,
  deps: Pick<JobsDeps, 'config'>,
  job: JobRow,
  submissionId: string,
  at: Date,
): Promise<boolean> {
  if (!(await unholdCurrentSubmission(tx, job.id, submissionId))) return false;
  await requestSummaryOf(tx, job);
  await enqueueJobWebhook(tx, deps.config, {
    type: TRANSITIONS.submit.webhook!,
    job: { ...job, status: 'submitted' },
    eventId: `delivered-${submissionId}`,
    occurredAt: at.toISOString(),
  });
  return true;
}

/**
 * One leased check (the session-check worker calls it): gathers the evidence, judges it
 * (session-check.ts), and records the outcome with SessionChecked in one transaction. A recording
 * still being made seekable is waited for; a recording that cannot be read is tried again with a
 * growing wait, then judged without its measures (the note says so) so no report waits forever.
 */
export async function runSessionCheck(deps: JobsDeps, row: SessionCheckRow): Promise<CheckResult> {
  const log = deps.logger.child({ submissionId: row.submissionId, jobId: row.jobId });
  const sub = await findSubmission(deps.db, row.submissionId);
  const job = sub && (await findJob(deps.db, sub.jobId));
  if (!sub || !job) {
    // Cleared with the jobs: nothing to check.
    await deps.events.inTransaction((tx) =>
      finishSessionCheck(tx, row.submissionId, {
        verdict: 'pass',
        reasons: [],
        metrics: NO_METRICS,
        note: 'submission gone',
        checkedAt: new Date(),
      }),
    );
    return 'gone';
  }
  let recording: RecordingEvidence | null = null;
  let note: string | null = null;
  if (sub.recordingId) {
    const rec = await findRecording(deps.db, sub.recordingId);
    if (rec && rec.durationMs === null && row.attempts <= WAIT_FOR_REMUX_TRIES) {
      await deferSessionCheck(deps.db, row.submissionId, retryAfter(row.attempts), null);
      return 'deferred';
    }
    if (rec) {
      try {
        ({ evidence: recording, note } = await measureRecording(deps, rec.id, rec.durationMs));
      } catch (err) {
        const message = (err as Error).message;
        if (row.attempts < SESSION_CHECK_MAX_TRIES) {
          log.warn(
            { err: message, attempt: row.attempts },
            'session check: recording unreadable; tried again later',
          );
          await deferSessionCheck(deps.db, row.submissionId, retryAfter(row.attempts), message);
          return 'deferred';
        }
        recording = { durationMs: rec.durationMs, silences: [], stills: [] };
        note = `recording could not be measured: ${message}`.slice(0, 500);
      }
    }
  }
  const compared = await reportsToCompare(deps.db, sub, job.packId);
  const outcome = evaluateSession(
    {
      recordingRequired: job.recordingRequired,
      recording,
      requirementsCount: job.requirements.length,
      responses: sub.requirementResponses,
      findings: sub.findingDetails,
      text: reportText(sub),
      others: [...compared.map((r) => reportText(r)), EXAMPLE_TEXT],
    },
    sessionCheckThresholds(deps.config),
  );
  const checkedAt = new Date();
  await deps.events.inTransaction(async (tx) => {
    const done = await finishSessionCheck(tx, row.submissionId, { ...outcome, note, checkedAt });
    if (!done) return; // another process finished it first
    // Pass or borderline: the report reaches its poster now (with its warning when borderline).
    const delivered =
      outcome.verdict !== 'fail' && (await deliverReport(tx, deps, job, sub.id, checkedAt));
    const event = createEvent('SessionChecked', sub.jobId, {
      submissionId: sub.id,
      jobId: sub.jobId,
      testerId: sub.testerId,
      posterId: job.posterId,
      title: job.title,
      ...outcome,
      checkedAt: checkedAt.toISOString(),
      delivered,
    });
    await deps.events.record(tx, event);
    await enqueueJobWebhook(tx, deps.config, {
      type: 'session.checked',
      job,
      eventId: event.id,
      occurredAt: event.occurredAt,
      data: {
        verdict: outcome.verdict,
        checked_line: checkedLine(outcome.metrics, outcome.reasons),
        reasons: outcome.reasons.map((r) => SESSION_CHECK_REASONS[r].owner),
      },
    });
    if (outcome.verdict !== 'fail') return;
    // Failed: the report is held from the poster and the job goes back to Available Jobs for
    // another tester, on the same payment (ReplacementRequested recorded by the transition). A job
    // that moved on first (the poster accepted it within the seconds the check took) keeps its
    // report: it has reached the poster already.
    const reopened = await applyTransition(
      tx,
      deps,
      { id: sub.jobId, currentSubmissionId: sub.id },
      'session_failed',
      { releasedTesterId: sub.testerId, releaseReason: 'session_failed', replacedAt: new Date() },
      { replaced: { submissionId: sub.id, reasons: outcome.reasons }, correlationId: null },
    );
    if (!reopened) return;
    await setSubmissionHeld(tx, sub.id, true);
    await markSessionReplaced(tx, sub.id, 'check');
  });
  log.info(
    { verdict: outcome.verdict, reasons: outcome.reasons, metrics: outcome.metrics, note },
    'session checked',
  );
  return 'done';
}
