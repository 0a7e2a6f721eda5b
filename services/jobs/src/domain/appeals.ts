import { createEvent } from '@htm/events';
import { AppError, getCorrelationId, type Caller } from '@htm/service-kit';
import {
  JOB_MESSAGES,
  type AppealBody,
  type AppealDecisionBody,
  type AppealableView,
  type AppealView,
} from '@htm/contracts';
import {
  APPEAL_WINDOW_MS,
  LOW_RATING_MAX,
  SESSION_CHECK_REASONS,
  type SessionCheckReason,
} from '@htm/contracts/marketplace';
import type { JobsDeps } from '../deps.js';
import { getJob } from './job-state.js';
import { findJob } from '../db/job.repository.js';
import { requestSummaryOf } from './summaries.js';
import { confirmFailedSession, releaseFailedSession } from './session-decisions.js';
import { findFailedSession } from '../db/session-check.repository.js';
import {
  decideAppeal as storeDecision,
  findAppeal,
  findStrike,
  findTesterRating,
  insertAppeal,
  listAppeals,
  listTesterMarks,
  overturnRating,
  overturnStrike,
  type AppealWithContext,
} from '../db/appeal.repository.js';

/** The sentence a strike's reason shows the tester (the same words as the release notice). */
export function strikeReasonText(reason: string | null): string {
  if (reason === 'claim_timeout') return JOB_MESSAGES.claimExpired;
  if (reason === 'revision_expired') return JOB_MESSAGES.revisionExpired;
  if (reason === 'session_failed')
    return 'Your report did not pass the checks, and the admin confirmed it.';
  return 'This job was taken back from you.';
}

/** A failed session check's reasons in the tester's words, as one sentence list. */
export function checkReasonText(reasons: readonly SessionCheckReason[] | null): string {
  const words = (reasons ?? []).map((r) => SESSION_CHECK_REASONS[r].tester);
  return words.length
    ? `Your report did not pass the checks: ${words.join(' ')}`
    : 'Your report did not pass the checks.';
}

/** A low rating's reason: its stars and the poster's comment. */
export function ratingReasonText(stars: number, comment: string | null): string {
  return `${stars} ${stars === 1 ? 'star' : 'stars'}: ${comment ?? 'the poster gave no reason.'}`;
}

export function toAppealView(a: AppealWithContext): AppealView {
  return {
    id: a.id,
    job_id: a.jobId,
    job_title: a.jobTitle ?? '',
    tester_id: a.testerId,
    kind: a.kind as AppealView['kind'],
    reason:
      a.kind === 'rating' && a.stars !== null
        ? ratingReasonText(a.stars, a.ratingComment)
        : a.kind === 'session_check'
          ? checkReasonText(a.checkReasons)
          : strikeReasonText(a.strikeReason),
    stars: a.kind === 'rating' ? a.stars : null,
    message: a.message,
    status: a.status as AppealView['status'],
    decision_note: a.decisionNote,
    created_at: a.createdAt.toISOString(),
    decided_at: a.decidedAt?.toISOString() ?? null,
  };
}

async function viewOf(deps: JobsDeps, id: string): Promise<AppealView> {
  const [row] = await listAppeals(deps.db, { id });
  return toAppealView(row);
}

/**
 * POST /api/appeals: a tester appeals their strike or their rating of 1-2 stars for a job, once,
 * within APPEAL_WINDOW_MS of it. A released (unapproved) tester may appeal too: that is the point.
 */
export async function fileAppeal(
  deps: JobsDeps,
  caller: Caller,
  body: AppealBody,
  now = new Date(),
): Promise<AppealView> {
  const job = await getJob(deps.db, body.job_id);
  let markedAt: Date;
  let kind = body.kind;
  const strike = kind === 'strike' ? await findStrike(deps.db, caller.id, job.id) : undefined;
  // A confirmed failed check's strike is appealed as the check itself: one appeal for both.
  if (strike?.reason === 'session_failed') kind = 'session_check';
  if (kind === 'session_check') {
    const failed = await findFailedSession(deps.db, { testerId: caller.id, jobId: job.id });
    if (!failed)
      throw AppError.forbidden(
        'You have no failed session check for this job to appeal.',
        'not_your_appeal',
      );
    if (failed.check.releasedAt)
      throw AppError.conflict(
        'This report was released already: there is nothing to appeal.',
        'not_appealable',
      );
    markedAt = failed.check.checkedAt ?? failed.check.createdAt;
  } else if (kind === 'strike') {
    if (!strike)
      throw AppError.forbidden('You have no strike for this job to appeal.', 'not_your_appeal');
    markedAt = strike.createdAt;
  } else {
    const rating = await findTesterRating(deps.db, caller.id, job.id);
    if (!rating)
      throw AppError.forbidden('You have no rating for this job to appeal.', 'not_your_appeal');
    if (rating.stars > LOW_RATING_MAX)
      throw AppError.conflict(
        `Only ratings of ${LOW_RATING_MAX} stars or fewer can be appealed.`,
        'not_appealable',
      );
    markedAt = rating.createdAt;
  }
  if (now.getTime() - markedAt.getTime() > APPEAL_WINDOW_MS)
    throw AppError.conflict(
      `Appeals are open for ${Math.round(APPEAL_WINDOW_MS / 86_400_000)} days; this one closed on ${new Date(markedAt.getTime() + APPEAL_WINDOW_MS).toISOString().slice(0, 10)}.`,
      'appeal_window_closed',
    );
  const row = await deps.events.inTransaction(async (tx) => {
    const appeal = await insertAppeal(tx, {
      testerId: caller.id,
      jobId: job.id,
      kind,
      message: body.message,
    });
    if (!appeal) return undefined;
    await deps.events.record(
      tx,
      createEvent(
        'AppealFiled',
        appeal.id,
        {
          appealId: appeal.id,
          testerId: caller.id,
          jobId: job.id,
          kind,
          message: body.message,
          filedAt: appeal.createdAt.toISOString(),
        },
        { correlationId: getCorrelationId() },
      ),
    );
    return appeal;
  });
  if (!row)
    throw AppError.conflict(
      `You have already appealed this ${kind === 'session_check' ? 'failed check' : kind}; each can be appealed once.`,
      'already_appealed',
    );
  return viewOf(deps, row.id);
}

/** GET /api/admin/appeals?status= */
export async function listAppealsFor(
  deps: JobsDeps,
  status: AppealView['status'],
): Promise<AppealView[]> {
  return (await listAppeals(deps.db, { status })).map(toAppealView);
}

/**
 * POST /api/admin/appeals/:id/decision. Overturn: the strike leaves the tester's count (identity
 * re-approves a tester that strike released, on AppealDecided) or the rating leaves the average.
 * The decision, its effect and AppealDecided are one transaction; a decided appeal stays decided.
 */
export async function decideAppeal(
  deps: JobsDeps,
  caller: Caller,
  id: string,
  body: AppealDecisionBody,
): Promise<AppealView> {
  const appeal = /^[0-9a-f-]{36}$/i.test(id) ? await findAppeal(deps.db, id) : undefined;
  if (!appeal) throw AppError.notFound('No such appeal.', 'appeal_not_found');
  const at = new Date();
  const overturn = body.decision === 'overturn';
  const decided = await deps.events.inTransaction(async (tx) => {
    const row = await storeDecision(tx, appeal.id, {
      status: overturn ? 'overturned' : 'upheld',
      note: body.note || null,
      by: caller.id,
      at,
    });
    if (!row) return undefined;
    let stars: number | null = null;
    let strikeOverturned: boolean | undefined;
    // A failed session check: overturned, the session is released (back to its owner while the
    // job still waits for its replacement); upheld, the failure is confirmed as a strike.
    if (row.kind === 'session_check') {
      const failed = await findFailedSession(tx, { testerId: row.testerId, jobId: row.jobId });
      const who = { by: 'appeal' as const, actorId: caller.id, at };
      if (failed && overturn)
        strikeOverturned =
          (await releaseFailedSession(tx, deps, failed, who))?.strikeOverturned ?? false;
      if (failed && !overturn && !failed.check.confirmedAt && !failed.check.releasedAt)
        await confirmFailedSession(tx, deps, failed, who);
    }
    if (overturn && row.kind === 'strike') await overturnStrike(tx, row.testerId, row.jobId, at);
    if (overturn && row.kind === 'rating')
      stars = (await overturnRating(tx, row.jobId, at))?.stars ?? null;
    // An accepted appeal changes what the job's report counts for: its summary is computed again.
    if (overturn) {
      const job = await findJob(tx, row.jobId);
      if (job) await requestSummaryOf(tx, job);
    }
    if (row.kind === 'rating' && stars === null)
      stars = (await findTesterRating(tx, row.testerId, row.jobId))?.stars ?? null;
    await deps.events.record(
      tx,
      createEvent(
        'AppealDecided',
        row.testerId,
        {
          appealId: row.id,
          testerId: row.testerId,
          jobId: row.jobId,
          kind: row.kind as AppealView['kind'],
          decision: body.decision,
          note: row.decisionNote,
          stars,
          ...(strikeOverturned !== undefined ? { strikeOverturned } : {}),
          decidedAt: at.toISOString(),
          actorId: caller.id,
        },
        { correlationId: getCorrelationId() },
      ),
    );
    return row;
  });
  if (!decided) throw AppError.conflict('This appeal was decided already.', 'appeal_decided');
  deps.readCache.invalidate('users');
  return viewOf(deps, decided.id);
}

/** GET /api/appeals: the tester's strikes and ratings of 1-2 stars with their reasons, and their appeals. */
export async function listMyMarks(deps: JobsDeps, caller: Caller): Promise<AppealableView[]> {
  const marks = await listTesterMarks(deps.db, caller.id);
  const mine = new Map(
    (await listAppeals(deps.db, { testerId: caller.id })).map((a) => [
      `${a.kind}:${a.jobId}`,
      toAppealView(a),
    ]),
  );
  const until = (d: Date) => new Date(d.getTime() + APPEAL_WINDOW_MS).toISOString();
  const items: AppealableView[] = [
    // A confirmed failed check's strike is listed as the failed check (one appeal for both).
    ...marks.failedChecks.map((c) => ({
      job_id: c.jobId,
      job_title: c.jobTitle ?? '',
      kind: 'session_check' as const,
      reason: checkReasonText(c.reasons),
      stars: null,
      at: (c.checkedAt ?? c.createdAt).toISOString(),
      appealable_until: until(c.checkedAt ?? c.createdAt),
      overturned: !!c.releasedAt,
      appeal: mine.get(`session_check:${c.jobId}`) ?? null,
    })),
    ...marks.strikes
      .filter((s) => s.reason !== 'session_failed')
      .map((s) => ({
        job_id: s.jobId,
        job_title: s.jobTitle ?? '',
        kind: 'strike' as const,
        reason: strikeReasonText(s.reason),
        stars: null,
        at: s.createdAt.toISOString(),
        appealable_until: until(s.createdAt),
        overturned: !!s.overturnedAt,
        appeal: mine.get(`strike:${s.jobId}`) ?? null,
      })),
    ...marks.ratings.map((r) => ({
      job_id: r.jobId,
      job_title: r.jobTitle ?? '',
      kind: 'rating' as const,
      reason: ratingReasonText(r.stars, r.comment),
      stars: r.stars,
      at: r.createdAt.toISOString(),
      appealable_until: until(r.createdAt),
      overturned: !!r.overturnedAt,
      appeal: mine.get(`rating:${r.jobId}`) ?? null,
    })),
  ];
  return items.sort((a, b) => b.at.localeCompare(a.at));
}
