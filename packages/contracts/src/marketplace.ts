import type { WebhookEventType } from './reports.js';

/**
 * The marketplace's rules, stated once (issue #29). Every service and the web app derive from
 * this module: the job transition table (what each action starts from, ends in, changes, records
 * and refuses), the money, the strike, revision and top-rated rules, geo admission, assistive
 * technology, fresh eyes and the limits of the two report forms. Pure data and functions: no I/O, no zod,
 * no imports, so anything may import it (test/marketplace-rules.test.ts fails when a service or
 * the web app writes one of these rules again).
 *
 * Configurable values (the strike limit: identity's TESTER_STRIKE_LIMIT) have their default here;
 * the service that owns the setting announces the value it uses in its events, and other services
 * act on the announced value, never on this default.
 */

// ---- statuses, countries, geo admission, assistive technology ----

/** `closed`: a paid slot of a pack nobody claimed within the fill window, refunded ("Five testers for $5"). */
export const JOB_STATUSES = [
  'open',
  'claimed',
  'submitted',
  'revision_requested',
  'completed',
  'closed',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** What the web app and the live channel show for each status (the spec's "revision requested"). */
export const JOB_STATUS_LABELS: Record<JobStatus, string> = {
  open: 'open',
  claimed: 'claimed',
  submitted: 'submitted',
  revision_requested: 'revision requested',
  completed: 'completed',
  closed: 'closed (refunded)',
};

export const USER_COUNTRIES = ['US', 'PR', 'CA'] as const;
export type UserCountry = (typeof USER_COUNTRIES)[number];

/** Which testers a job's geo rule admits, by the tester's country ('any': every country, none included). */
export const GEO_ADMISSION = {
  us_pr: ['US', 'PR'],
  us_pr_ca: ['US', 'PR', 'CA'],
  global_beta: 'any',
} as const satisfies Record<string, readonly UserCountry[] | 'any'>;
export type GeoRule = keyof typeof GEO_ADMISSION;
export const GEO_RULES = Object.keys(GEO_ADMISSION) as [GeoRule, ...GeoRule[]];
/** A job's geo rule when the poster names none. */
export const DEFAULT_GEO_RULE: GeoRule = 'us_pr';

/** Whether a tester from `country` may take a job with `rule` (an unknown rule admits nobody). */
export function geoAllows(rule: string, country: string | null | undefined): boolean {
  const admitted = (GEO_ADMISSION as Record<string, readonly string[] | 'any' | undefined>)[rule];
  if (admitted === 'any') return true;
  return !!admitted && !!country && admitted.includes(country);
}

/**
 * Who can test from where, in words (landing, tester signup, Choose Your Role), from GEO_ADMISSION:
 * the country is where the tester is while testing; each job's rule names the countries it admits.
 */
export const WHO_CAN_TEST = {
  summary:
    'Testers in the United States, Puerto Rico and Canada can sign up. Each job says where its testers may be: the US and Puerto Rico (most jobs), the US, Puerto Rico and Canada, or anywhere (beta). VPNs are not allowed.',
  country: 'Country: where you are when you test. It decides which jobs you see.',
  location:
    'Location: the market you test for (the USA or Puerto Rico). In the US or Puerto Rico it follows your country; from Canada, pick the market you know best. It does not say where you live.',
} as const;

/** Geo rules a tester from `country` may take. */
export function geoRulesFor(country: string | null | undefined): GeoRule[] {
  return GEO_RULES.filter((r) => geoAllows(r, country));
}

/** Assistive technology a tester uses (profile) or a job asks for ("Beyond the peers, part 1"). */
export const ASSISTIVE_TECH = [
  'screen_reader',
  'keyboard_only',
  'screen_magnifier',
  'voice_control',
  'switch_access',
  'captions',
] as const;
export type AssistiveTech = (typeof ASSISTIVE_TECH)[number];

// ---- fresh eyes ("Beyond the peers, part 1") ----
// A job with `fresh_eyes` on is neither shown to nor claimable by a tester who has submitted work
// on an earlier job of the same poster for the same site (same host, case-insensitive, a leading
// `www.` ignored).

/** The "same site" key of a URL: its host, lower-case, without a leading `www.`. */
export function siteHost(url: string): string {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return '';
  }
  return host.toLowerCase().replace(/^www\./, '');
}

/** A poster's site as one string: what a tester has "seen" (jobs' testedSites, notifications' digest). */
export function siteKey(posterId: string, host: string): string {
  return `${posterId}|${host}`;
}

/**
 * THE fresh-eyes rule for one job and one tester: true when the job asks for fresh eyes and the
 * tester has already tested this poster's site (`testedSites`: siteKey()s of the jobs they
 * submitted work on). The jobs service's available-jobs query applies the same rule in SQL
 * (freshEyesFilter in its job.repository.ts); change both together (e.g. re-tests).
 */
export function freshEyesBlocks(
  job: { freshEyes: boolean; posterId: string; siteHost: string },
  testedSites: readonly string[],
): boolean {
  return job.freshEyes && testedSites.includes(siteKey(job.posterId, job.siteHost));
}

// ---- money (cents) ----

/** What a poster pays per test. */
export const PRICE_PER_TEST_CENTS = 100;
/** What the tester earns for an accepted test. */
export const TESTER_SHARE_CENTS = 82;
/** What the platform keeps. */
export const PLATFORM_FEE_CENTS = PRICE_PER_TEST_CENTS - TESTER_SHARE_CENTS;

/**
 * A failed session released after all (an upheld appeal, or the admin's release) once its job had
 * gone to another tester: the owner's one payment pays the tester whose report completes the job,
 * and the platform pays this tester their TESTER_SHARE_CENTS, once, booked with this source.
 */
// Why: the owner is never charged twice, and a tester whose report was fine is never left unpaid.
export const PLATFORM_FUNDED_EARNING = {
  appeal: 'platform: upheld session appeal',
  admin: 'platform: released session',
} as const;
/** Whether the platform pays the released session's tester (the job's $1 pays someone else). */
export const platformFundsRelease = (d: { decision: string; delivered: boolean }): boolean =>
  d.decision === 'released' && !d.delivered;

/**
 * Default of payments' CASH_OUT_MIN_CENTS: a tester may cash out their pending earnings once they
 * reach this much ("Fair and fast for testers"). Payments announces the value it uses in
 * GET /api/tester/my-earnings (`cash_out.min_usd`); the web app shows that, never this default.
 */
export const DEFAULT_CASH_OUT_MIN_CENTS = 500;

/**
 * Reasons and one appeal ("Fair and fast for testers"): a tester may appeal each strike and each
 * rating of LOW_RATING_MAX stars or fewer once, within APPEAL_WINDOW_MS of it; such a rating must
 * say why.
 */
export const APPEAL_WINDOW_MS = 14 * 24 * 3600_000;
export const LOW_RATING_MAX = 2;
export const APPEAL_MESSAGE_MIN = 10;
export const APPEAL_MESSAGE_MAX = 1000;

/** "$0.82" */
export const formatUsd = (cents: number): string => `$${(cents / 100).toFixed(2)}`;
/** "$1" for whole dollars, else "$0.82". */
export const formatPrice = (cents: number): string =>
  cents % 100 === 0 ? `$${cents / 100}` : formatUsd(cents);

// ---- packs: several testers for one site in one checkout ("Five testers for $5") ----

/** How many testers a poster may order in one checkout (POST /api/jobs `testers`), and the default. */
export const PACK_SIZE = { min: 1, max: 10, default: 1 } as const;
/** What a pack of `testers` costs: one unit of PRICE_PER_TEST_CENTS per tester. */
export const packPriceCents = (testers: number): number => testers * PRICE_PER_TEST_CENTS;
/** Default of the jobs service's PACK_FILL_WINDOW_MS: a slot nobody claimed this long after payment is closed and refunded. */
export const PACK_FILL_WINDOW_DEFAULT_MS = 7 * 24 * 3_600_000;

// ---- testers' standing ----

/**
 * Default of identity's TESTER_STRIKE_LIMIT: this many strikes (missed claim or revision deadlines)
 * unapprove a tester. Identity announces the limit it uses (TesterApprovalChanged, UserRoleChosen:
 * `strikeLimit`); jobs acts on that.
 */
export const DEFAULT_STRIKE_LIMIT = 3;

/**
 * Top-rated: the average of each poster's average stars (one decimal, half up) >= 4.5, from at
 * least 3 different posters. A poster is one voice however many jobs they rated, so one colluding
 * poster cannot make a tester top-rated.
 */
export const TOP_RATED = { minCount: 3, minAvgTenths: 45 } as const;
/** The rule over the stars each poster gave: one {sum, count} per poster. */
export function isTopRated(byPoster: ReadonlyArray<{ sum: number; count: number }>): boolean {
  const voices = byPoster.filter((p) => p.count > 0);
  if (voices.length < TOP_RATED.minCount) return false;
  const tenths = (voices.reduce((acc, p) => acc + p.sum / p.count, 0) * 10) / voices.length;
  return Math.round(tenths + 1e-9) >= TOP_RATED.minAvgTenths;
}

/**
 * Levels ("Fair and fast for testers", part 4): what the tester dashboard shows and what decides
 * the jobs service's priority window. Top is exactly the top-rated rule above (isTopRated); Trusted
 * asks for TRUSTED.minJobs accepted jobs with at least TRUSTED.minAcceptancePct % of finished
 * claims accepted (the rest ran out of time: strikes not overturned); everyone else is New.
 */
export const TESTER_LEVELS = ['new', 'trusted', 'top'] as const;
export type TesterLevel = (typeof TESTER_LEVELS)[number];
export const TESTER_LEVEL_LABELS: Record<TesterLevel, string> = {
  new: 'New',
  trusted: 'Trusted',
  top: 'Top',
};
export const TRUSTED = { minJobs: 5, minAcceptancePct: 80 } as const;
/** Which levels see a newly paid job during PRIORITY_WINDOW_MS (the window itself: jobs' config). */
export const PRIORITY_LEVELS: readonly TesterLevel[] = ['top'];

/** What a level is decided from: accepted jobs, strikes in force, and the stars each poster gave. */
export interface TesterRecord {
  jobsCompleted: number;
  strikes: number;
  starsByPoster: ReadonlyArray<{ sum: number; count: number }>;
}

/** Accepted jobs over finished claims (accepted + strikes), a whole percent; null before any. */
export function acceptanceRatePct(
  r: Pick<TesterRecord, 'jobsCompleted' | 'strikes'>,
): number | null {
  const finished = r.jobsCompleted + r.strikes;
  return finished ? Math.round((r.jobsCompleted * 100) / finished) : null;
}

/** The average of each poster's average stars, in tenths (half up), as isTopRated counts it; null without ratings. */
export function posterAverageTenths(byPoster: TesterRecord['starsByPoster']): number | null {
  const voices = byPoster.filter((p) => p.count > 0);
  if (!voices.length) return null;
  return Math.round(
    (voices.reduce((acc, p) => acc + p.sum / p.count, 0) * 10) / voices.length + 1e-9,
  );
}

/** The tester's level and, below Top, what the next level still needs (one sentence per missing thing). */
export function testerLevel(r: TesterRecord): {
  level: TesterLevel;
  next: { level: TesterLevel; needs: string[] } | null;
} {
  if (isTopRated(r.starsByPoster)) return { level: 'top', next: null };
  const rate = acceptanceRatePct(r);
  const trustedNeeds: string[] = [];
  if (r.jobsCompleted < TRUSTED.minJobs) {
    const more = TRUSTED.minJobs - r.jobsCompleted;
    trustedNeeds.push(
      `${more} more accepted job${more === 1 ? '' : 's'} (${TRUSTED.minJobs} in all)`,
    );
  }
  if (rate !== null && rate < TRUSTED.minAcceptancePct)
    trustedNeeds.push(
      `an acceptance rate of ${TRUSTED.minAcceptancePct}% or more (yours: ${rate}%)`,
    );
  if (trustedNeeds.length) return { level: 'new', next: { level: 'trusted', needs: trustedNeeds } };
  const voices = r.starsByPoster.filter((p) => p.count > 0).length;
  const avg = posterAverageTenths(r.starsByPoster);
  const topNeeds: string[] = [];
  if (voices < TOP_RATED.minCount) {
    const more = TOP_RATED.minCount - voices;
    topNeeds.push(
      `ratings from ${more} more poster${more === 1 ? '' : 's'} (${TOP_RATED.minCount} different posters in all)`,
    );
  }
  if (avg === null || avg < TOP_RATED.minAvgTenths)
    topNeeds.push(
      `an average of ${TOP_RATED.minAvgTenths / 10} stars or more, each poster counted once${avg === null ? '' : ` (yours: ${(avg / 10).toFixed(1)})`}`,
    );
  return { level: 'trusted', next: { level: 'top', needs: topNeeds } };
}

/** Whether a tester at `level` sees newly paid jobs during the priority window. */
export const hasPriorityAccess = (level: TesterLevel): boolean => PRIORITY_LEVELS.includes(level);

// ---- revisions and windows ----

/** Revisions a poster may ask for per job. */
export const REVISION_LIMIT = 1;
const HOUR = 3_600_000;
/** Defaults of the jobs service's AUTO_ACCEPT_AFTER_MS and REVISION_WINDOW_MS (fixed contracts). */
export const WINDOWS_MS = { autoAccept: 96 * HOUR, revision: 48 * HOUR } as const;
/** "96 hours" (a window in whole hours, as the web app and the e-mails say it). */
export const formatHours = (ms: number): string => {
  const h = Math.round(ms / HOUR);
  return `${h} hour${h === 1 ? '' : 's'}`;
};

/**
 * The money and the windows as the web app and the e-mails say them, derived from the rules
 * above (test/marketplace-rules.test.ts fails on "$0.82" or "48 hours" typed in again).
 */
export const RULE_WORDS = {
  /** "$1": what a poster pays per test. */
  price: formatPrice(PRICE_PER_TEST_CENTS),
  /** "$0.82": what a tester earns for an accepted test. */
  testerShare: formatUsd(TESTER_SHARE_CENTS),
  /** "$0.18": what the platform keeps. */
  platformFee: formatUsd(PLATFORM_FEE_CENTS),
  /** "18%": the platform's share of the price. */
  platformFeePct: `${Math.round((PLATFORM_FEE_CENTS * 100) / PRICE_PER_TEST_CENTS)}%`,
  /** "48 hours": the tester's window to resubmit after a revision request. */
  revisionWindow: formatHours(WINDOWS_MS.revision),
  /** "96 hours": the poster's review window, then the submission is accepted automatically. */
  autoAcceptWindow: formatHours(WINDOWS_MS.autoAccept),
} as const;

// ---- the two report forms ----

/** Files a submission may carry (both forms). */
export const REPORT_FILE_LIMITS = {
  imageMaxBytes: 10 * 1024 * 1024,
  videoMaxBytes: 100 * 1024 * 1024,
  maxFiles: 5,
} as const;
/** The Quick report (tester dashboard, POST /api/jobs/:id/submit-work). */
export const QUICK_REPORT_LIMITS = {
  feedbackMin: 10,
  feedbackMax: 1000,
  keyFindingMin: 5,
  keyFindingMax: 120,
  responseMax: 500,
  responsesMax: 50,
  minutesMin: 1,
  minutesMax: 240,
} as const;
/** The Detailed report (poster flow, POST /api/jobs/:id/submissions). */
export const DETAILED_REPORT_LIMITS = {
  bulletMax: 100,
  deviceMax: 50,
  browserMax: 50,
  responseMin: 10,
  responseMax: 500,
  responsesMax: 50,
  generalFeedbackMax: 2000,
  minutesMin: 1,
  minutesMax: 240,
} as const;

// ---- the job transition table ----

export type JobAction =
  | 'claim' // tester claims (or "accepts") an open paid job
  | 'assign' // admin assigns to a tester
  | 'submit' // tester submits or resubmits work
  | 'accept' // poster or admin accepts the submission
  | 'auto_accept' // timer: review window ended
  | 'request_revision' // poster or admin asks for one revision
  | 'claim_timeout' // timer: claim not submitted in time
  | 'revision_expired' // timer: revision not resubmitted in time
  | 'tester_unapproved' // identity unapproved the tester: their claimed jobs go back
  | 'close_unfilled' // timer: a pack's slot nobody claimed within the fill window (refunded)
  | 'session_failed' // the session check failed: the report is held, the job goes to another tester
  | 'replacement_requested' // the poster asks for a free replacement of a borderline session (once per job)
  | 'session_released'; // the admin (or an accepted appeal) gives a failed session back to a job still waiting for its replacement

/** Columns of a job a transition sets or clears (the jobs service's schema names). */
export type JobColumn =
  | 'testerId'
  | 'claimedAt'
  | 'claimDeadlineAt'
  | 'submittedAt'
  | 'autoAcceptAt'
  | 'revisionDeadlineAt'
  | 'revisionCount'
  | 'lastReview'
  | 'currentSubmissionId'
  | 'completedAt'
  | 'acceptedBy'
  | 'releasedTesterId'
  | 'releaseReason'
  | 'replacedAt'
  | 'closedAt';

/** Columns of the loaded job the UPDATE must still find unchanged (who holds it, which deadline...). */
export type JobMatch =
  'testerId' | 'revisionCount' | 'currentSubmissionId' | 'claimDeadlineAt' | 'revisionDeadlineAt';

/**
 * The jobs service's timers, by the deadline each fires at: the claim's (claimDeadlineAt), the
 * auto-accept of a submission (autoAcceptAt), the revision window's (revisionDeadlineAt).
 */
export type JobTimer = 'claim_timeout' | 'auto_accept' | 'revision_window';

/** Conditions beyond the status: paid, revisions left, a re-test held for another tester. */
export type JobGuard = 'paid' | 'revisions_left' | 'not_reserved_for_other';

/** The deadline column a timer's action waits for (the database's value, never the timer's own). */
export type JobDue = 'autoAcceptAt' | 'claimDeadlineAt' | 'revisionDeadlineAt' | 'fillDeadlineAt';

export interface Refusal {
  code: string;
  detail: string;
}

export interface Transition {
  from: readonly JobStatus[];
  to: JobStatus;
  guards: readonly JobGuard[];
  match: readonly JobMatch[];
  /**
   * A timer's action: applies only once this column of the job, as the database holds it, is at
   * or before the time the timer runs (a timer added early by hand, or fired early, changes nothing).
   */
  due?: JobDue;
  /** Columns the caller gives values for. */
  sets: readonly JobColumn[];
  /** Columns reset (null; revisionCount 0). */
  clears: readonly JobColumn[];
  /** The event recorded with the change. */
  event:
    | 'JobClaimed'
    | 'WorkSubmitted'
    | 'SubmissionAccepted'
    | 'RevisionRequested'
    | 'JobReleased'
    | 'PackSlotClosed'
    | 'ReplacementRequested';
  /** The webhook the change sends to the poster's endpoints that ask for it (jobs writes the deliveries in the same transaction). */
  webhook?: WebhookEventType;
  /**
   * The timers the change starts (each fires at the deadline the change sets) and ends (those of
   * the hold it finishes: removed at once; left alone they would fire and find the job moved on).
   */
  timers?: { starts?: JobTimer; ends?: readonly JobTimer[] };
  /** The refusal (409) for each status the action cannot start from. */
  refusals: Partial<Record<JobStatus, Refusal>>;
  /**
   * When the conditional UPDATE finds no row (a lost race): 'stale' for timers and event handlers
   * (nothing happens), a fixed refusal (no second read), or 'recheck' (read the job again: its
   * refusal, else `changed`).
   */
  lost: 'stale' | { refusal: Refusal } | { recheck: Refusal };
}

export const REFUSALS = {
  completed: { code: 'job_completed', detail: 'This job is already completed.' },
  notPaid: {
    code: 'job_not_paid',
    detail: 'This job is not live yet: its payment has not gone through.',
  },
  alreadyPaid: { code: 'already_paid', detail: 'This job has already been paid for.' },
  taken: { code: 'job_taken', detail: 'This job has already been taken by another tester.' },
  alreadySubmitted: {
    code: 'already_submitted',
    detail: 'Work has already been submitted for this job and is waiting for review.',
  },
  notClaimed: {
    code: 'job_not_claimed',
    detail: 'This job is not claimed, so there is no work to submit.',
  },
  revisionPending: {
    code: 'revision_pending',
    detail: 'A revision has been requested; wait for the tester to resubmit.',
  },
  nothingToReview: {
    code: 'nothing_to_review',
    detail: 'There is no submitted work to review yet.',
  },
  revisionLimit: {
    code: 'revision_limit',
    detail: 'Only one revision is allowed per job. Please accept the work.',
  },
  claimGone: { code: 'stale_timer', detail: 'The claim is no longer active.' },
  noRevision: { code: 'stale_timer', detail: 'No revision is pending.' },
  changedReviewing: {
    code: 'job_changed',
    detail: 'This job changed while you were reviewing. Please reload.',
  },
  changedSubmitting: {
    code: 'job_changed',
    detail: 'This job changed while you were submitting. Please reload.',
  },
  closed: { code: 'job_closed', detail: 'This job was closed unfilled and its payment refunded.' },
  alreadyInPack: {
    code: 'already_in_pack',
    detail:
      'You already took a test of this site in this pack: each test of a pack goes to a different tester.',
  },
  slotTaken: { code: 'stale_timer', detail: 'This slot was taken before its fill window ended.' },
  nothingToReplace: {
    code: 'nothing_to_replace',
    detail: 'Only a submitted report waiting for your review can be replaced.',
  },
  replacementTaken: {
    code: 'replacement_taken',
    detail: 'Another tester has taken this job, so the held report can no longer go to its owner.',
  },
} as const satisfies Record<string, Refusal>;

const R = REFUSALS;
const review = {
  open: R.nothingToReview,
  claimed: R.nothingToReview,
  revision_requested: R.revisionPending,
  completed: R.completed,
  closed: R.closed,
};
/** A report can be replaced only while it waits for the poster's review. */
const replaceRefusals = {
  open: R.nothingToReplace,
  claimed: R.nothingToReplace,
  revision_requested: R.nothingToReplace,
  completed: R.completed,
  closed: R.closed,
};
/** Everything a new holder starts without. */
const FRESH_HOLD: readonly JobColumn[] = [
  'submittedAt',
  'autoAcceptAt',
  'revisionDeadlineAt',
  'revisionCount',
  'lastReview',
  'currentSubmissionId',
];
/** A job going back to open for the next tester (old submissions stay for the record). */
const RELEASE_CLEARS: readonly JobColumn[] = [
  'testerId',
  'claimedAt',
  'claimDeadlineAt',
  'submittedAt',
  'autoAcceptAt',
  'revisionDeadlineAt',
  'currentSubmissionId',
  'revisionCount',
];

export const TRANSITIONS: Record<JobAction, Transition> = {
  claim: {
    from: ['open'],
    to: 'claimed',
    guards: ['paid', 'not_reserved_for_other'],
    match: [],
    sets: ['testerId', 'claimedAt', 'claimDeadlineAt'],
    clears: FRESH_HOLD,
    event: 'JobClaimed',
    webhook: 'job.claimed',
    timers: { starts: 'claim_timeout' },
    refusals: {
      claimed: R.taken,
      submitted: R.taken,
      revision_requested: R.taken,
      completed: R.completed,
      closed: R.closed,
    },
    lost: { refusal: R.taken },
  },
  assign: {
    from: ['open'],
    to: 'claimed',
    guards: ['paid'],
    match: [],
    sets: ['testerId', 'claimedAt', 'claimDeadlineAt'],
    clears: FRESH_HOLD,
    event: 'JobClaimed',
    webhook: 'job.claimed',
    timers: { starts: 'claim_timeout' },
    refusals: {
      claimed: R.taken,
      submitted: R.taken,
      revision_requested: R.taken,
      completed: R.completed,
      closed: R.closed,
    },
    lost: { refusal: R.taken },
  },
  submit: {
    from: ['claimed', 'revision_requested'],
    to: 'submitted',
    guards: [],
    match: ['testerId', 'revisionCount'],
    sets: ['submittedAt', 'autoAcceptAt', 'currentSubmissionId'],
    clears: ['claimDeadlineAt', 'revisionDeadlineAt'],
    event: 'WorkSubmitted',
    webhook: 'job.submitted',
    timers: { starts: 'auto_accept', ends: ['claim_timeout', 'revision_window'] },
    refusals: {
      open: R.notClaimed,
      submitted: R.alreadySubmitted,
      completed: R.completed,
      closed: R.closed,
    },
    lost: { recheck: R.changedSubmitting },
  },
  accept: {
    from: ['submitted'],
    to: 'completed',
    guards: [],
    match: ['currentSubmissionId'],
    sets: ['completedAt', 'acceptedBy', 'lastReview'],
    clears: ['autoAcceptAt'],
    event: 'SubmissionAccepted',
    webhook: 'job.completed',
    timers: { ends: ['auto_accept'] },
    refusals: review,
    lost: { recheck: R.changedReviewing },
  },
  auto_accept: {
    from: ['submitted'],
    to: 'completed',
    guards: [],
    match: ['currentSubmissionId'],
    due: 'autoAcceptAt',
    sets: ['completedAt', 'acceptedBy', 'lastReview'],
    clears: ['autoAcceptAt'],
    event: 'SubmissionAccepted',
    webhook: 'job.completed',
    // Its own timer is the one running: removing it is a no-op (the rows of one event agree).
    timers: { ends: ['auto_accept'] },
    refusals: review,
    lost: 'stale',
  },
  request_revision: {
    from: ['submitted'],
    to: 'revision_requested',
    guards: ['revisions_left'],
    match: ['revisionCount'],
    sets: ['revisionCount', 'revisionDeadlineAt', 'lastReview'],
    clears: ['autoAcceptAt'],
    event: 'RevisionRequested',
    webhook: 'job.revision_requested',
    timers: { starts: 'revision_window' },
    refusals: review,
    lost: { recheck: R.changedReviewing },
  },
  claim_timeout: {
    from: ['claimed'],
    to: 'open',
    guards: [],
    match: ['testerId', 'claimDeadlineAt'],
    due: 'claimDeadlineAt',
    sets: ['releasedTesterId', 'releaseReason'],
    clears: RELEASE_CLEARS,
    event: 'JobReleased',
    refusals: {
      open: R.claimGone,
      submitted: R.claimGone,
      revision_requested: R.claimGone,
      completed: R.completed,
      closed: R.closed,
    },
    lost: 'stale',
  },
  revision_expired: {
    from: ['revision_requested'],
    to: 'open',
    guards: [],
    match: ['testerId', 'revisionDeadlineAt'],
    due: 'revisionDeadlineAt',
    sets: ['releasedTesterId', 'releaseReason'],
    clears: RELEASE_CLEARS,
    event: 'JobReleased',
    refusals: {
      open: R.noRevision,
      claimed: R.noRevision,
      submitted: R.noRevision,
      completed: R.completed,
      closed: R.closed,
    },
    lost: 'stale',
  },
  tester_unapproved: {
    // Submitted work stays: only what the tester has not submitted goes back.
    from: ['claimed'],
    to: 'open',
    guards: [],
    match: ['testerId'],
    sets: ['releasedTesterId', 'releaseReason'],
    clears: RELEASE_CLEARS,
    event: 'JobReleased',
    refusals: {
      open: R.claimGone,
      submitted: R.claimGone,
      revision_requested: R.claimGone,
      completed: R.completed,
      closed: R.closed,
    },
    lost: 'stale',
  },
  close_unfilled: {
    // Only a paid slot of a pack (the caller's WHERE adds pack_id IS NOT NULL) still open at the end of its fill window.
    from: ['open'],
    to: 'closed',
    guards: ['paid'],
    match: [],
    due: 'fillDeadlineAt',
    sets: ['closedAt'],
    clears: [],
    event: 'PackSlotClosed',
    refusals: {
      claimed: R.slotTaken,
      submitted: R.slotTaken,
      revision_requested: R.slotTaken,
      completed: R.completed,
      closed: R.closed,
    },
    lost: 'stale',
  },
  session_failed: {
    // The report is held from the poster; the same payment buys the next tester's report.
    from: ['submitted'],
    to: 'open',
    guards: [],
    match: ['currentSubmissionId'],
    // replacedAt: the owner's "results expected by" starts again from here.
    sets: ['releasedTesterId', 'releaseReason', 'replacedAt'],
    clears: RELEASE_CLEARS,
    event: 'ReplacementRequested',
    webhook: 'replacement.requested',
    timers: { ends: ['auto_accept'] },
    refusals: replaceRefusals,
    lost: 'stale',
  },
  replacement_requested: {
    from: ['submitted'],
    to: 'open',
    guards: [],
    match: ['currentSubmissionId'],
    sets: ['releasedTesterId', 'releaseReason', 'replacedAt'],
    clears: RELEASE_CLEARS,
    event: 'ReplacementRequested',
    webhook: 'replacement.requested',
    timers: { ends: ['auto_accept'] },
    refusals: replaceRefusals,
    lost: { recheck: R.changedReviewing },
  },
  session_released: {
    // A failed session turned out fine (the admin, or an accepted appeal) while its job still
    // waited for a replacement: the report goes to its owner after all, as if just submitted.
    from: ['open'],
    to: 'submitted',
    guards: ['paid'],
    match: [],
    sets: ['testerId', 'submittedAt', 'autoAcceptAt', 'currentSubmissionId', 'revisionCount'],
    // The report is back: no replacement's window any more.
    clears: [
      'releasedTesterId',
      'releaseReason',
      'replacedAt',
      'claimDeadlineAt',
      'revisionDeadlineAt',
    ],
    event: 'WorkSubmitted',
    webhook: 'job.submitted',
    // The same timers as submit's (rows of one event agree); it ends no hold.
    timers: { starts: 'auto_accept', ends: ['claim_timeout', 'revision_window'] },
    refusals: {
      claimed: R.replacementTaken,
      submitted: R.replacementTaken,
      revision_requested: R.replacementTaken,
      completed: R.completed,
      closed: R.closed,
    },
    // A tester claimed the replacement meanwhile: the caller goes on without the job.
    lost: 'stale',
  },
};
export const JOB_ACTIONS = Object.keys(TRANSITIONS) as JobAction[];

/** What of a job decides whether an action may start. */
export interface JobStateView {
  status: string;
  paymentStatus: string;
  revisionCount: number;
}

/** The spec also shows 'in_progress': it means claimed. */
export function normalizeStatus(s: string): JobStatus {
  if (s === 'in_progress') return 'claimed';
  if ((JOB_STATUSES as readonly string[]).includes(s)) return s as JobStatus;
  throw new Error(`unknown job status ${s}`);
}

/**
 * Why `action` may not start from this job's state (the status, then the guards the job's own
 * columns decide), or undefined when it may. Matches and the re-test hold are the caller's.
 */
export function refusalFor(job: JobStateView, action: JobAction): Refusal | undefined {
  const t = TRANSITIONS[action];
  const status = normalizeStatus(job.status);
  if (t.guards.includes('paid') && status === 'open' && job.paymentStatus !== 'paid')
    return R.notPaid;
  if (!t.from.includes(status)) return t.refusals[status] ?? R.completed;
  if (t.guards.includes('revisions_left') && job.revisionCount >= REVISION_LIMIT)
    return R.revisionLimit;
  return undefined;
}

/** Checkout is not a status change: a paid job cannot be paid again. */
export function checkoutRefusal(job: Pick<JobStateView, 'paymentStatus'>): Refusal | undefined {
  return job.paymentStatus === 'paid' ? R.alreadyPaid : undefined;
}

/**
 * The job's status and payment status after each event the live channel reports (the poster's,
 * the tester's and the admin's screens update from it): the transitions' events, plus payments'.
 */
export const LIVE_JOB_STATE: Readonly<
  Record<string, { status: JobStatus; payment_status: 'paid' | 'unpaid' }>
> = {
  JobPaid: { status: 'open', payment_status: 'paid' },
  JobPublished: { status: 'open', payment_status: 'paid' },
  CheckoutCancelled: { status: 'open', payment_status: 'unpaid' },
  ...Object.fromEntries(
    Object.values(TRANSITIONS).map((t) => [
      t.event,
      { status: t.to, payment_status: 'paid' as const },
    ]),
  ),
};

// ---- session checks: every session checked before the owner sees it ("Every session checked") ----

/**
 * Defaults of the session checks (the jobs service's SESSION_CHECK_* settings override each one).
 * A recording, when the job asks for one, lasts at least `minRecordingMs`; the tester talks for
 * at least `minTalkPct` % of it (audio louder than `silenceNoiseDb` for longer than
 * `silenceMinMs` gaps); no stretch without speech AND without any change on screen lasts longer
 * than `maxIdleMs` (the screen compared `freezeFps` times a second; a change below
 * `freezeNoise` of the picture counts as none). Originality: a report whose three-word phrases are
 * found, for `duplicateContainment` or more of them, in another report (the tester's own earlier
 * ones, the other reports of the same job or pack, the example report) is a copy; reports under
 * `minShingles` phrases are too short to judge.
 */
export const SESSION_CHECK_DEFAULTS = {
  minRecordingMs: 3 * 60_000,
  minTalkPct: 20,
  maxIdleMs: 2 * 60_000,
  silenceNoiseDb: -35,
  silenceMinMs: 2000,
  freezeNoise: 0.003,
  freezeFps: 1,
  duplicateContainment: 0.5,
  minShingles: 8,
} as const;
export type SessionCheckThresholds = {
  -readonly [K in keyof typeof SESSION_CHECK_DEFAULTS]: number;
};

/**
 * Why a session did not pass. Hard reasons hold the report whatever else; a single soft reason
 * delivers it with a warning (borderline) and the owner may get a free replacement; two or more
 * soft reasons hold it.
 */
export const SESSION_CHECK_REASONS = {
  no_recording: {
    hard: true,
    tester: 'The job asked for a screen recording and none was attached.',
    owner: 'No screen recording, though the job asked for one.',
  },
  recording_short: {
    hard: false,
    tester: 'The recording is shorter than the job needs.',
    owner: 'The recording is short.',
  },
  little_talk: {
    hard: false,
    tester: 'You talked for too little of the recording: say what you see and think as you go.',
    owner: 'The tester talks for little of the recording.',
  },
  idle_stretch: {
    hard: false,
    tester: 'The recording has a long stretch with no talking and nothing happening on screen.',
    owner: 'The recording has a long idle stretch.',
  },
  unanswered: {
    hard: false,
    tester: 'Some things to check have neither an answer nor a finding.',
    owner: 'Some things to check were not answered.',
  },
  moment_outside: {
    hard: false,
    tester: 'A finding points to a moment after the end of the recording.',
    owner: 'A finding points past the end of the recording.',
  },
  copied_text: {
    hard: true,
    tester: 'Your report repeats the text of another report instead of your own words.',
    owner: 'The report repeats the text of another report.',
  },
} as const satisfies Record<string, { hard: boolean; tester: string; owner: string }>;
export type SessionCheckReason = keyof typeof SESSION_CHECK_REASONS;
export const SESSION_CHECK_REASON_CODES = Object.keys(SESSION_CHECK_REASONS) as [
  SessionCheckReason,
  ...SessionCheckReason[],
];

export const SESSION_VERDICTS = ['pass', 'borderline', 'fail'] as const;
export type SessionVerdict = (typeof SESSION_VERDICTS)[number];

/** No reason: pass; exactly one soft reason: borderline; a hard reason or two soft ones: fail. */
export function sessionVerdict(reasons: readonly SessionCheckReason[]): SessionVerdict {
  if (!reasons.length) return 'pass';
  if (reasons.some((r) => SESSION_CHECK_REASONS[r].hard)) return 'fail';
  return reasons.length === 1 ? 'borderline' : 'fail';
}

/** What a check measured (null: not measured, e.g. no recording). */
export interface SessionMetrics {
  recordingMs: number | null;
  talkPct: number | null;
  longestIdleMs: number | null;
  itemsTotal: number;
  itemsCovered: number;
  /** The largest share of this report's phrases found in one other report, 0-1. */
  maxContainment: number | null;
}

/** "6:12" */
export const formatClock = (ms: number): string => {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

/** How long a replacement may take: the promise the owner is told (24-48 h from when the job opens again). */
export const REPLACEMENT_TURNAROUND = '24-48 hours';
const REPLACEMENT_TURNAROUND_MAX_MS = 48 * 3_600_000;
/** The latest a replacement's report is expected, when the job went back to Available Jobs at `from`. */
export const replacementExpectedBy = (from: Date): Date =>
  new Date(from.getTime() + REPLACEMENT_TURNAROUND_MAX_MS);

/** The report's "Checked" line: "6:12 recorded, 64% talking, 3 of 3 things checked, original text". */
export function checkedLine(m: SessionMetrics, reasons: readonly SessionCheckReason[]): string {
  const parts: string[] = [];
  if (m.recordingMs !== null) parts.push(`${formatClock(m.recordingMs)} recorded`);
  if (m.talkPct !== null) parts.push(`${m.talkPct}% talking`);
  if (m.itemsTotal > 0)
    parts.push(
      `${m.itemsCovered} of ${m.itemsTotal} thing${m.itemsTotal === 1 ? '' : 's'} checked`,
    );
  parts.push(reasons.includes('copied_text') ? 'text found in another report' : 'original text');
  return parts.join(', ');
}
