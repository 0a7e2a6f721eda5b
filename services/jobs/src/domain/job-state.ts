import { AppError } from '@htm/service-kit/errors';
import {
  checkoutRefusal,
  geoAllows,
  geoRulesFor,
  normalizeStatus,
  refusalFor,
  REFUSALS,
  REVISION_LIMIT,
  TRANSITIONS,
  type GeoRule,
  type JobAction as TableAction,
  type JobStatus,
} from '@htm/contracts/marketplace';

/**
 * The job lifecycle (ARCHITECTURE.md "Job lifecycle"), as the marketplace rules module states it
 * (packages/contracts/src/marketplace.ts: TRANSITIONS). Callers load the job, ask `decide` whether
 * an action is allowed (a refusal is a 409 with a sentence), then apply the change through the
 * repository's applyTransition, whose conditional UPDATE is built from the same table, so a race
 * turns into the same refusal.
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
