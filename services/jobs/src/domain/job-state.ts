import { AppError } from '@htm/service-kit/errors';
import type { GeoRule, JobStatus } from '@htm/contracts';

/**
 * The job lifecycle as pure code (ARCHITECTURE.md "Job lifecycle"). Callers load the job,
 * ask `decide` whether an action is allowed (a refusal is a 409 with a sentence), then apply
 * the change with one conditional UPDATE that repeats the same precondition, so a race
 * turns into the same refusal.
 */
export type { JobStatus };

export type JobAction =
  | 'checkout' // poster asks for a (new) checkout session
  | 'claim' // tester claims (or "accepts") an open paid job
  | 'assign' // admin assigns to a tester
  | 'submit' // tester submits or resubmits work
  | 'accept' // poster or admin accepts the submission
  | 'auto_accept' // timer: review window ended
  | 'request_revision' // poster or admin asks for one revision
  | 'claim_timeout' // timer: claim not submitted in time
  | 'revision_expired'; // timer: revision not resubmitted in time

export interface JobState {
  status: string;
  paymentStatus: string;
  revisionCount: number;
}

export const MAX_REVISIONS = 1;

/** The spec also shows 'in_progress': it means claimed. */
export function normalizeStatus(s: string): JobStatus {
  if (s === 'in_progress') return 'claimed';
  if (s === 'open' || s === 'claimed' || s === 'submitted' || s === 'revision_requested' || s === 'completed') return s;
  throw new Error(`unknown job status ${s}`);
}

/** Which statuses an action may start from (the WHERE of its conditional UPDATE). */
export const FROM: Record<JobAction, readonly JobStatus[]> = {
  checkout: ['open'],
  claim: ['open'],
  assign: ['open'],
  submit: ['claimed', 'revision_requested'],
  accept: ['submitted'],
  auto_accept: ['submitted'],
  request_revision: ['submitted'],
  claim_timeout: ['claimed'],
  revision_expired: ['revision_requested'],
};

export const TO: Record<JobAction, JobStatus> = {
  checkout: 'open',
  claim: 'claimed',
  assign: 'claimed',
  submit: 'submitted',
  accept: 'completed',
  auto_accept: 'completed',
  request_revision: 'revision_requested',
  claim_timeout: 'open',
  revision_expired: 'open',
};

function refuse(detail: string, code: string): never {
  throw AppError.conflict(detail, code);
}

function refuseByStatus(action: JobAction, status: JobStatus): never {
  if (status === 'completed') refuse('This job is already completed.', 'job_completed');
  switch (action) {
    case 'checkout':
      return refuse('This job has already been paid for.', 'already_paid');
    case 'claim':
    case 'assign':
      return refuse('This job has already been taken by another tester.', 'job_taken');
    case 'submit':
      if (status === 'submitted') refuse('Work has already been submitted for this job and is waiting for review.', 'already_submitted');
      return refuse('This job is not claimed, so there is no work to submit.', 'job_not_claimed');
    case 'accept':
    case 'auto_accept':
    case 'request_revision':
      if (status === 'revision_requested') refuse('A revision has been requested; wait for the tester to resubmit.', 'revision_pending');
      return refuse('There is no submitted work to review yet.', 'nothing_to_review');
    case 'claim_timeout':
      return refuse('The claim is no longer active.', 'stale_timer');
    case 'revision_expired':
      return refuse('No revision is pending.', 'stale_timer');
  }
}

/**
 * Checks an action against the job's state. Returns the status the job moves to, or throws a
 * 409 AppError explaining why not.
 */
export function decide(job: JobState, action: JobAction): JobStatus {
  const status = normalizeStatus(job.status);
  if (action === 'checkout') {
    if (job.paymentStatus === 'paid') refuse('This job has already been paid for.', 'already_paid');
  }
  if ((action === 'claim' || action === 'assign') && status === 'open' && job.paymentStatus !== 'paid') {
    refuse('This job is not live yet: its payment has not gone through.', 'job_not_paid');
  }
  if (!FROM[action].includes(status)) refuseByStatus(action, status);
  if (action === 'request_revision' && job.revisionCount >= MAX_REVISIONS) {
    refuse('Only one revision is allowed per job. Please accept the work.', 'revision_limit');
  }
  return TO[action];
}

/** Whether a tester from `country` may take a job with `rule`. */
export function geoAllows(rule: GeoRule | string, country: string | null | undefined): boolean {
  if (rule === 'global_beta') return true;
  if (rule === 'us_pr') return country === 'US' || country === 'PR';
  if (rule === 'us_pr_ca') return country === 'US' || country === 'PR' || country === 'CA';
  return false;
}

/** Geo rules a tester from `country` may take (for the available-jobs query). */
export function geoRulesFor(country: string | null | undefined): GeoRule[] {
  return (['us_pr', 'us_pr_ca', 'global_beta'] as const).filter((r) => geoAllows(r, country));
}

/** When an unsubmitted claim times out: CLAIM_TIMEOUT_MS, else the job's expected completion hours. */
export function claimDeadline(claimedAt: Date, expectedCompletionHours: number, claimTimeoutMs?: number): Date {
  return new Date(claimedAt.getTime() + (claimTimeoutMs ?? expectedCompletionHours * 3600_000));
}

export function addMs(at: Date, ms: number): Date {
  return new Date(at.getTime() + ms);
}

/** The tester a re-test is held for right now (RETEST_RESERVE_MS after payment), or null once open to all. */
export function reservedFor(job: { reservedTesterId: string | null; reservedUntil: Date | null }, now: Date = new Date()): string | null {
  return job.reservedTesterId && job.reservedUntil && job.reservedUntil.getTime() > now.getTime() ? job.reservedTesterId : null;
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
