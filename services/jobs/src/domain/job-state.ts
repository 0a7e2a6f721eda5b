import { createEvent, type EventEnvelope } from '@htm/events';
import { AppError } from '@htm/service-kit/errors';
import { getCorrelationId } from '@htm/service-kit/context';
import type { Db, Tx } from '@htm/service-kit/db';
import {
  resultsExpectedBy,
  type AssistiveTech,
  type JobView,
  type RatingView,
  type WebhookEventType,
  type WebhookPayload,
} from '@htm/contracts';
import {
  checkoutRefusal,
  geoAllows,
  geoRulesFor,
  normalizeStatus,
  refusalFor,
  REFUSALS,
  REVISION_LIMIT,
  replacementExpectedBy,
  SESSION_CHECK_REASONS,
  TRANSITIONS,
  type GeoRule,
  type JobAction as TableAction,
  type JobStatus,
  type SessionCheckReason,
  type Transition,
} from '@htm/contracts/marketplace';
import type { JobRow, RatingRow } from '../db/schema.js';
import {
  findJob,
  updateJobByTransition,
  type TransitionTarget,
  type TransitionValues,
} from '../db/job.repository.js';
import { enqueueJobWebhook, type WebhookConfig } from './webhooks.js';
import { requestSummary } from '../db/summary.repository.js';

/**
 * Transitions that change a report summary's input (issue #51): a report in, accepted (its locked
 * parts open to the poster), or taken back with its job (revision expired, tester unapproved).
 */
export const SUMMARY_ACTIONS: ReadonlySet<TableAction> = new Set<TableAction>([
  'submit',
  'accept',
  'auto_accept',
  'revision_expired',
  'tester_unapproved',
  'session_released',
]);

/**
 * The job lifecycle (ARCHITECTURE.md "Job lifecycle"), as the marketplace rules module states it
 * (packages/contracts/src/marketplace.ts: TRANSITIONS). Callers load the job, ask `decide` whether
 * an action is allowed (a refusal is a 409 with a sentence), then apply the change with
 * `applyTransition` below: the repository's conditional UPDATE built from the same table (so a
 * race turns into the same refusal), and every effect the table's row names, in the same
 * transaction.
 */
export type { JobStatus };
export { geoAllows, geoRulesFor, normalizeStatus };

/** The table's actions, plus 'checkout' (the poster asks for a new checkout session: no status change). */
export type JobAction = TableAction | 'checkout';

export interface JobState {
  status: string;
  paymentStatus: string;
  revisionCount: number;
}

export const MAX_REVISIONS = REVISION_LIMIT;

/**
 * Checks an action against the job's state. Returns the status the job moves to, or throws a
 * 409 AppError explaining why not.
 */
export function decide(job: JobState, action: JobAction): JobStatus {
  if (action === 'checkout') {
    const status = normalizeStatus(job.status);
    const refusal =
      checkoutRefusal(job) ??
      (status === 'open'
        ? undefined
        : status === 'completed'
          ? REFUSALS.completed
          : REFUSALS.alreadyPaid);
    if (refusal) throw AppError.conflict(refusal.detail, refusal.code);
    return 'open';
  }
  const refusal = refusalFor(job, action);
  if (refusal) throw AppError.conflict(refusal.detail, refusal.code);
  return TRANSITIONS[action].to;
}

/** When an unsubmitted claim times out: CLAIM_TIMEOUT_MS, else the job's expected completion hours. */
export function claimDeadline(
  claimedAt: Date,
  expectedCompletionHours: number,
  claimTimeoutMs?: number,
): Date {
  return new Date(claimedAt.getTime() + (claimTimeoutMs ?? expectedCompletionHours * 3600_000));
}

export function addMs(at: Date, ms: number): Date {
  return new Date(at.getTime() + ms);
}

/** The tester a re-test is held for right now (RETEST_RESERVE_MS after payment), or null once open to all. */
export function reservedFor(
  job: { reservedTesterId: string | null; reservedUntil: Date | null },
  now: Date = new Date(),
): string | null {
  return job.reservedTesterId && job.reservedUntil && job.reservedUntil.getTime() > now.getTime()
    ? job.reservedTesterId
    : null;
}

/** What decides which jobs a tester may take (loaded by claim-job.ts testerStanding, cached by read-cache.ts). */
export interface TesterStanding {
  id: string;
  approved: boolean;
  country: string | null;
  /** Assistive technology the tester uses (identity's profile, through events). */
  assistiveTech: string[];
  /** siteKey()s of the poster sites the tester has submitted work on (fresh eyes). */
  testedSites: string[];
  /** Top-rated (rating_avg >= 4.5 over 3+ ratings): sees jobs in their priority window. */
  topRated: boolean;
  /** Geo rules for which a top-rated tester exists: their jobs have a priority window. */
  windowRules: GeoRule[];
}

/** The job as the API answers it (docs/api-contracts.md) and as the transitions' events carry it. */
export function toJobView(
  job: JobRow & { reportHeld?: boolean },
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
    recording_required: job.recordingRequired,
    assistive_tech: (job.assistiveTech as AssistiveTech | null) ?? null,
    retest_of: job.retestOf,
    reserved_until: iso(job.reservedUntil),
    paid_at: iso(job.paidAt),
    pack_id: job.packId ?? null,
    replaced_at: iso(job.replacedAt),
  };
  view.results_expected_by = resultsExpectedBy(view);
  if (job.status === 'submitted' && job.reportHeld) view.report_checking = true;
  if (posterInfo) view.poster_info = posterInfo;
  if (rating !== undefined) view.rating = rating ? toRatingView(rating) : null;
  return view;
}

export function toRatingView(r: RatingRow): RatingView {
  return { stars: r.stars, comment: r.comment, created_at: r.createdAt.toISOString() };
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** What a timer names: the job, and the holder / deadline / submission it was set for. */
export interface TimerTarget {
  jobId: string;
  testerId?: string;
  deadlineAt?: Date;
  submissionId?: string;
}

const sameTime = (a: Date | null, b: Date | undefined) =>
  b === undefined || (a !== null && a.getTime() === b.getTime());

/**
 * When the job, as the database holds it, says this timer is due (the transition table's `due`
 * column), or null when the job no longer waits for it (moved on, another holder, another
 * deadline or submission). Pure: the timer worker asks it after its action changed nothing, to
 * tell a timer that came early (run it again then) from a stale one (done).
 */
export function timerDueAt(
  job: Pick<
    JobRow,
    | 'status'
    | 'testerId'
    | 'currentSubmissionId'
    | 'claimDeadlineAt'
    | 'revisionDeadlineAt'
    | 'autoAcceptAt'
    | 'fillDeadlineAt'
    | 'packId'
  > | null,
  action: TableAction,
  target: TimerTarget,
): Date | null {
  const t = TRANSITIONS[action];
  if (!job || !t.due || !(t.from as readonly string[]).includes(job.status)) return null;
  if (target.testerId !== undefined && job.testerId !== target.testerId) return null;
  if (target.submissionId !== undefined && job.currentSubmissionId !== target.submissionId)
    return null;
  if (action === 'claim_timeout' && !sameTime(job.claimDeadlineAt, target.deadlineAt)) return null;
  if (action === 'revision_expired' && !sameTime(job.revisionDeadlineAt, target.deadlineAt))
    return null;
  if (action === 'close_unfilled' && !job.packId) return null;
  return job[t.due] ?? null;
}

/** The job, or 404 job_not_found. */
export async function getJob(db: Db | Tx, id: string): Promise<JobRow> {
  const job = await findJob(db, id);
  if (!job) throw AppError.notFound('Job not found.', 'job_not_found');
  return job;
}

/** What applyTransition's effects need: the outbox (ServiceEvents.record, in the caller's transaction) and the webhooks' settings. */
export interface TransitionDeps {
  events: { record(tx: Tx, ...events: EventEnvelope[]): Promise<void> };
  config: WebhookConfig;
}

/** What a transition's event says beyond the changed row: the caller knows it. */
export interface TransitionFacts {
  /** The admin who did it (claims assigned, acceptances by the admin). */
  actorId?: string;
  /** submit: a screen recording is attached. */
  hasRecording?: boolean;
  /** submit: the deadline of the hold the submission ended (its timer is removed). */
  heldUntil?: Date | null;
  /** accept / auto_accept: the minutes the tester said the accepted work took. */
  minutesSpent?: number | null;
  /** The correlation id to carry (default: the request's). */
  correlationId?: string | null;
  /** session_failed / replacement_requested: the replaced report and its check's reasons. */
  replaced?: { submissionId: string; reasons: SessionCheckReason[] };
  /**
   * submit: the report is held until its session check delivers it; the table's webhook
   * (job.submitted) is sent then (check-session.ts deliverReport), not now.
   */
  awaitsCheck?: boolean;
  /** session_released: the failed session given back to its job by the admin or an accepted appeal. */
  releasedBy?: 'admin' | 'appeal';
}

const at = (d: Date | null) => {
  if (!d) throw new Error('a transition event needs a time the transition sets');
  return d.toISOString();
};

/**
 * The data of each event of the transition table, from the changed row (and the caller's facts),
 * plus the new job view. Built here only (test/transition-events.test.ts).
 */
const EVENT_DATA: {
  [E in Transition['event']]: (row: JobRow, action: TableAction, f: TransitionFacts) => unknown;
} = {
  JobClaimed: (row, action, f) => ({
    jobId: row.id,
    testerId: row.testerId!,
    claimedAt: at(row.claimedAt),
    deadlineAt: at(row.claimDeadlineAt),
    by: action === 'assign' ? 'admin' : 'tester',
    posterId: row.posterId,
    geoRule: row.geoRule,
    ...(f.actorId ? { actorId: f.actorId } : {}),
  }),
  WorkSubmitted: (row, _action, f) => ({
    jobId: row.id,
    testerId: row.testerId!,
    submissionId: row.currentSubmissionId!,
    revision: row.revisionCount,
    submittedAt: at(row.submittedAt),
    autoAcceptAt: at(row.autoAcceptAt),
    posterId: row.posterId,
    hasRecording: f.hasRecording ?? false,
    ...(f.heldUntil ? { heldUntil: f.heldUntil.toISOString() } : {}),
    ...(f.awaitsCheck ? { awaitsCheck: true } : {}),
    ...(f.releasedBy ? { releasedBy: f.releasedBy } : {}),
  }),
  SubmissionAccepted: (row, _action, f) => ({
    jobId: row.id,
    testerId: row.testerId!,
    posterId: row.posterId,
    title: row.title,
    acceptedBy: row.acceptedBy,
    acceptedAt: at(row.completedAt),
    minutesSpent: f.minutesSpent ?? null,
    submissionId: row.currentSubmissionId!,
    ...(f.actorId ? { actorId: f.actorId } : {}),
  }),
  RevisionRequested: (row) => ({
    jobId: row.id,
    testerId: row.testerId!,
    reason: row.lastReview?.reason ?? '',
    requestedAt: row.lastReview?.at,
    deadlineAt: at(row.revisionDeadlineAt),
    posterId: row.posterId,
  }),
  JobReleased: (row) => ({
    jobId: row.id,
    testerId: row.releasedTesterId!,
    reason: row.releaseReason,
    posterId: row.posterId,
    geoRule: row.geoRule,
  }),
  ReplacementRequested: (row, action, f) => ({
    jobId: row.id,
    submissionId: f.replaced!.submissionId,
    testerId: row.releasedTesterId!,
    posterId: row.posterId,
    requestedBy: action === 'session_failed' ? 'check' : 'poster',
    reasons: f.replaced!.reasons,
    // The same instant the job view's replaced_at (and so its results_expected_by) counts from.
    requestedAt: (row.replacedAt ?? new Date()).toISOString(),
  }),
  PackSlotClosed: (row) => ({
    jobId: row.id,
    packId: row.packId!,
    posterId: row.posterId,
    title: row.title,
    closedAt: at(row.closedAt),
  }),
};

/** What a transition's webhook says beyond the job's id, title, status and link. */
const WEBHOOK_DATA: Partial<
  Record<
    WebhookEventType,
    (row: JobRow, action: TableAction, f: TransitionFacts) => Partial<WebhookPayload['data']>
  >
> = {
  'replacement.requested': (row, action, f) => ({
    requested_by: action === 'session_failed' ? 'check' : 'poster',
    reasons: (f.replaced?.reasons ?? []).map((r) => SESSION_CHECK_REASONS[r].owner),
    expected_by: replacementExpectedBy(row.replacedAt ?? new Date()).toISOString(),
  }),
};

/**
 * Every change of a job's status goes through here (the routes' use cases, the timers and the
 * event handlers), inside the caller's transaction:
 * 1. the repository's ONE conditional UPDATE whose WHERE is the action's row of the transition
 *    table (of simultaneous changes exactly one wins);
 * 2. the table row's event, recorded in the outbox with the new job view (`job`), its data from
 *    the changed row and the caller's `facts` (given, or computed from the new row by a function
 *    that may write more in the same transaction, e.g. the accepted submission);
 * 3. the row's webhook: a delivery for each endpoint of the poster that asks for it.
 * The row's timers follow from the recorded event (workers/timers.ts `timersOf`, run by the outbox
 * relay; the reconciler rebuilds any the database has and Redis lacks).
 * A lost race (no row) is answered as the table's `lost` says, here only: undefined ('stale':
 * timers, event handlers), its fixed refusal (claims: 409 job_taken without a second read), or the
 * job read again and refused with the reason it now has (else "changed").
 */
export async function applyTransition(
  tx: Tx,
  deps: TransitionDeps,
  job: TransitionTarget,
  action: TableAction,
  set: TransitionValues,
  facts: TransitionFacts | ((row: JobRow) => Promise<TransitionFacts>) = {},
): Promise<JobRow | undefined> {
  const t = TRANSITIONS[action];
  const row = await updateJobByTransition(tx, job, action, set);
  if (!row) {
    const lost = t.lost;
    if (lost === 'stale') return undefined;
    if ('refusal' in lost) throw AppError.conflict(lost.refusal.detail, lost.refusal.code);
    // The lost-race re-check: the job as it is now says why (completed, already submitted...).
    const now = await getJob(tx, job.id);
    const refusal = refusalFor(now, action) ?? lost.recheck;
    throw AppError.conflict(refusal.detail, refusal.code);
  }
  const f = typeof facts === 'function' ? await facts(row) : facts;
  const data = { ...(EVENT_DATA[t.event](row, action, f) as object), job: toJobView(row) };
  const event = createEvent(t.event, row.id, data as never, {
    correlationId: f.correlationId === undefined ? getCorrelationId() : f.correlationId,
  });
  await deps.events.record(tx, event);
  if (t.webhook && !f.awaitsCheck)
    await enqueueJobWebhook(tx, deps.config, {
      type: t.webhook,
      job: row,
      eventId: event.id,
      occurredAt: event.occurredAt,
      data: WEBHOOK_DATA[t.webhook]?.(row, action, f),
    });
  // 4. the job's report summary (and its pack's) is asked for again, computed off the request path.
  if (SUMMARY_ACTIONS.has(action)) {
    await requestSummary(tx, row.id, 'job');
    if (row.packId) await requestSummary(tx, row.packId, 'pack');
  }
  return row;
}
