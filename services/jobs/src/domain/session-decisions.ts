import { createEvent } from '@htm/events';
import { AppError, type Caller } from '@htm/service-kit';
import type { Tx } from '@htm/service-kit/db';
import type { HeldSessionView, SessionDecisionAnswer } from '@htm/contracts';
import {
  SESSION_CHECK_REASONS,
  checkedLine,
  type JobStatus,
  type SessionMetrics,
} from '@htm/contracts/marketplace';
import type { JobsDeps } from '../deps.js';
import {
  decideFailedSession,
  findFailedSession,
  listFailedSessions,
  setSubmissionHeld,
  type FailedSession,
} from '../db/session-check.repository.js';
import { overturnStrike } from '../db/appeal.repository.js';
import { addMs, applyTransition, type TransitionDeps } from './job-state.js';
import { recordingUrl } from './recordings.js';
import { recordStrike } from './release-job.js';
import { NO_METRICS } from './session-check.js';

/**
 * The admin's decisions on failed sessions ("Every session checked"): the queue of held ones with
 * what was measured, "Release to owner" (no strike; while the job still waits for its replacement
 * the report goes back to it as submitted, and its tester is paid once its owner accepts it) and
 * "Confirm fail" (a strike: only the admin's confirmation makes a failed check count against the
 * tester). An appeal of the failed check decides the same way (appeals.ts). Each decision is
 * recorded with SessionDecided (the admin service's audit log).
 */

const QUEUE_LIMIT = 200;

const notFound = () => AppError.notFound('No failed session with this id.', 'session_not_found');
const decided = () =>
  AppError.conflict('This session was decided already. Please reload.', 'session_decided');

export function toHeldSessionView(
  deps: Pick<JobsDeps, 'links' | 'config'>,
  f: FailedSession,
): HeldSessionView {
  const { check, submission: sub, job } = f;
  const reasons = check.reasons ?? [];
  const m: SessionMetrics = check.metrics ?? NO_METRICS;
  const decision = check.releasedAt
    ? {
        decision: 'released' as const,
        by: (check.releasedBy ?? 'admin') as 'admin' | 'appeal',
        at: check.releasedAt.toISOString(),
      }
    : check.confirmedAt
      ? {
          decision: 'confirmed' as const,
          by: 'admin' as const,
          at: check.confirmedAt.toISOString(),
        }
      : null;
  return {
    submission_id: sub.id,
    job_id: job.id,
    title: job.title,
    tester_id: sub.testerId,
    tester_name: sub.submittedByName ?? null,
    submitted_at: sub.submittedAt.toISOString(),
    checked_at: check.checkedAt?.toISOString() ?? null,
    line: checkedLine(m, reasons),
    reasons: reasons.map((code) => ({ code, text: SESSION_CHECK_REASONS[code].owner })),
    metrics: {
      recording_ms: m.recordingMs,
      talk_pct: m.talkPct,
      longest_idle_ms: m.longestIdleMs,
      items_total: m.itemsTotal,
      items_covered: m.itemsCovered,
      max_containment: m.maxContainment,
    },
    note: check.note ?? null,
    key_findings: sub.keyFindings,
    general_feedback: sub.generalFeedback ?? null,
    recording_url: sub.recordingId ? recordingUrl(deps, sub.recordingId) : null,
    job_status: job.status as JobStatus,
    appeal: f.appeal
      ? {
          id: f.appeal.id,
          status: f.appeal.status as 'open' | 'overturned' | 'upheld',
          message: f.appeal.message,
        }
      : null,
    decision,
  };
}

/** GET /api/admin/session-checks */
export async function listHeldSessions(
  deps: JobsDeps,
  status: 'held' | 'decided',
): Promise<HeldSessionView[]> {
  return (await listFailedSessions(deps.db, status, QUEUE_LIMIT)).map((f) =>
    toHeldSessionView(deps, f),
  );
}

type DecisionDeps = TransitionDeps & Pick<JobsDeps, 'config'>;
/** Who decides (the admin's queue, or an appeal's decision), which admin, and when. */
export interface DecidedBy {
  by: 'admin' | 'appeal';
  actorId: string;
  at: Date;
}

/**
 * Records the decision on the failed session (once: undefined when it was decided that way
 * already), runs its effect, and records SessionDecided; answers whether the owner reads the
 * report now.
 */
async function applyDecision(
  tx: Tx,
  deps: Pick<TransitionDeps, 'events'>,
  f: FailedSession,
  d: DecidedBy & { decision: 'released' | 'confirmed' },
  effect: () => Promise<boolean>,
): Promise<boolean | undefined> {
  const row = await decideFailedSession(tx, f.check.submissionId, d);
  if (!row) return undefined;
  const delivered = await effect();
  await deps.events.record(
    tx,
    createEvent('SessionDecided', row.jobId, {
      submissionId: row.submissionId,
      jobId: row.jobId,
      testerId: row.testerId,
      posterId: f.job.posterId,
      decision: d.decision,
      by: d.by,
      delivered,
      decidedAt: d.at.toISOString(),
      actorId: d.actorId,
    }),
  );
  return delivered;
}

/**
 * Releases a failed session in the caller's transaction: no strike (one the admin had confirmed
 * is overturned: an appeal's decision), and while its job still waits for a replacement nobody has
 * taken, the job takes the report back as submitted (session_released: WorkSubmitted, the owner's
 * e-mail and webhook, the auto-accept timer) and it is no longer held. Undefined when it was
 * released already; `delivered`: the owner reads it now; `strikeOverturned`: a strike went.
 */
export async function releaseFailedSession(
  tx: Tx,
  deps: DecisionDeps,
  f: FailedSession,
  who: DecidedBy,
): Promise<{ delivered: boolean; strikeOverturned: boolean } | undefined> {
  let strikeOverturned = false;
  const delivered = await applyDecision(tx, deps, f, { decision: 'released', ...who }, async () => {
    const { by, actorId, at } = who;
    strikeOverturned =
      !!f.check.confirmedAt && (await overturnStrike(tx, f.check.testerId, f.check.jobId, at));
    const sub = f.submission;
    const back = await applyTransition(
      tx,
      deps,
      { id: f.job.id },
      'session_released',
      {
        testerId: sub.testerId,
        submittedAt: at,
        autoAcceptAt: addMs(at, deps.config.AUTO_ACCEPT_AFTER_MS),
        currentSubmissionId: sub.id,
        revisionCount: sub.revision,
      },
      { hasRecording: !!sub.recordingId, releasedBy: by, actorId },
    );
    // Back to its job, or (the job went to another tester) to its owner as a report of its own,
    // paid by the platform (payments, on SessionDecided): never held again.
    await setSubmissionHeld(tx, sub.id, false);
    return !!back;
  });
  return delivered === undefined ? undefined : { delivered, strikeOverturned };
}

/**
 * Confirms a failed session in the caller's transaction: it counts as a strike of its tester
 * (TesterStrikeRecorded). False when it was decided already.
 */
export async function confirmFailedSession(
  tx: Tx,
  deps: DecisionDeps,
  f: FailedSession,
  who: DecidedBy,
): Promise<boolean> {
  const done = await applyDecision(tx, deps, f, { decision: 'confirmed', ...who }, async () => {
    await recordStrike(tx, deps, {
      testerId: f.check.testerId,
      jobId: f.check.jobId,
      reason: 'session_failed',
    });
    return false;
  });
  return done !== undefined;
}

/**
 * POST /api/admin/session-checks/:id/release and .../confirm: the admin's decision on a failed
 * session nobody decided yet (409 session_decided after a decision; a confirmed one is released
 * only by the tester's appeal).
 */
export async function decideSession(
  deps: JobsDeps,
  caller: Caller,
  submissionId: string,
  decision: 'release' | 'confirm',
): Promise<SessionDecisionAnswer> {
  const f = /^[0-9a-f-]{36}$/i.test(submissionId)
    ? await findFailedSession(deps.db, { submissionId })
    : undefined;
  if (!f) throw notFound();
  if (f.check.releasedAt || f.check.confirmedAt) throw decided();
  const who: DecidedBy = { by: 'admin', actorId: caller.id, at: new Date() };
  const delivered = await deps.events.inTransaction(async (tx) => {
    if (decision === 'confirm') {
      if (!(await confirmFailedSession(tx, deps, f, who))) throw decided();
      return false;
    }
    // The admin's release is for an undecided session (a confirmed one goes back only by appeal).
    if (f.check.confirmedAt) throw decided();
    const out = await releaseFailedSession(tx, deps, f, who);
    if (!out) throw decided();
    return out.delivered;
  });
  const now = (await findFailedSession(deps.db, { submissionId }))!;
  return { session: toHeldSessionView(deps, now), delivered };
}
