import { AppError, type Caller } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import type { JobRow } from '../db/schema.js';
import {
  acceptanceRatePct,
  freshEyesBlocks,
  GEO_RULES,
  hasPriorityAccess,
  isTopRated,
  JOB_MESSAGES,
  PACK_SIZE,
  REFUSALS,
  testerLevel,
  type GeoRule,
  type TesterRecord,
  type TesterStandingView,
} from '@htm/contracts';
import { findOpenSlot, joinPack, packsOfTester } from '../db/pack.repository.js';
import { jobsReplacedFrom } from '../db/session-check.repository.js';
import {
  countActiveClaims,
  findUser,
  lockTester,
  testedSites,
  testerRecord,
  topRatedCountries,
} from '../db/job.repository.js';
import {
  applyTransition,
  claimDeadline,
  decide,
  geoAllows,
  getJob,
  reservedFor,
  type TesterStanding,
} from './job-state.js';

export type { TesterStanding };

/** Whether the stars posters gave make a tester top-rated (the rules module's; topRatedCountries is its SQL side). */
export { isTopRated };

const NO_RECORD: TesterRecord = { jobsCompleted: 0, strikes: 0, starsByPoster: [] };

/**
 * A tester's approval and country: the jobs service's own projection (identity events) wins;
 * the token's claims are used only while the projection has no row for them yet. With them what
 * decides which jobs they may take beyond geo (assistive tech, fresh eyes, priority window).
 */
export async function testerStanding(
  deps: Pick<JobsDeps, 'db' | 'config'>,
  caller: Caller,
): Promise<TesterStanding> {
  const [row, sites, topCountries, record] = await Promise.all([
    findUser(deps.db, caller.id),
    testedSites(deps.db, caller.id),
    deps.config.PRIORITY_WINDOW_MS > 0 ? topRatedCountries(deps.db) : Promise.resolve([]),
    deps.config.PRIORITY_WINDOW_MS > 0
      ? testerRecord(deps.db, caller.id)
      : Promise.resolve(NO_RECORD),
  ]);
  const known = row && row.approved !== null;
  return {
    id: caller.id,
    approved: known ? row.approved! : caller.approved,
    country: row?.country ?? caller.country,
    assistiveTech: row?.assistiveTech ?? [],
    testedSites: sites,
    // The level decides the priority window (the rules module's PRIORITY_LEVELS: Top, i.e. top-rated).
    topRated: hasPriorityAccess(testerLevel(record).level),
    windowRules: GEO_RULES.filter((rule) => topCountries.some((c) => geoAllows(rule, c))),
  };
}

/**
 * The tester's standing through the jobs read cache (emptied on any change to jobs or users, in
 * any process): the available-jobs list and a claim share it, so a claim right after a list read
 * costs no standing queries.
 */
export function cachedStanding(
  deps: Pick<JobsDeps, 'db' | 'config' | 'readCache'>,
  caller: Caller,
): Promise<TesterStanding> {
  return deps.readCache.standing(`${caller.id}|${caller.approved}|${caller.country}`, () =>
    testerStanding(deps, caller),
  );
}

/** GET /api/tester/standing: the tester's record, level and what the next level needs (the rules module's testerLevel). */
export async function readTesterStanding(
  deps: Pick<JobsDeps, 'db'>,
  testerId: string,
): Promise<TesterStandingView> {
  const record = await testerRecord(deps.db, testerId);
  const { level, next } = testerLevel(record);
  const count = record.starsByPoster.reduce((n, p) => n + p.count, 0);
  const sum = record.starsByPoster.reduce((n, p) => n + p.sum, 0);
  return {
    jobs_completed: record.jobsCompleted,
    acceptance_rate_pct: acceptanceRatePct(record),
    rating_avg: count ? Math.round((sum * 10) / count) / 10 : null,
    rating_count: count,
    level,
    priority_access: hasPriorityAccess(level),
    next_level: next,
  };
}

/** Whether the priority window still hides a job from this tester at `now`. */
export function inPriorityWindow(
  job: Pick<JobRow, 'paidAt' | 'geoRule'>,
  tester: Pick<TesterStanding, 'topRated' | 'windowRules'>,
  windowMs: number,
  now: Date,
): boolean {
  if (windowMs <= 0 || tester.topRated || !job.paidAt) return false;
  if (!tester.windowRules.includes(job.geoRule as GeoRule)) return false;
  return job.paidAt.getTime() > now.getTime() - windowMs;
}

/**
 * POST /api/jobs/:id/claim and /accept: the calling tester takes the job. A pack is listed once
 * (one of its open slots): when the slot asked for was just taken, the claim moves on to another
 * open slot of the same pack, so testers racing for a pack's listing each get a slot while any is left.
 */
export async function claimJob(deps: JobsDeps, caller: Caller, jobId: string): Promise<JobRow> {
  const standing = await cachedStanding(deps, caller);
  if (!standing.approved)
    throw AppError.forbidden('Your tester account is not approved yet.', 'tester_not_approved');
  let target = jobId;
  for (let tries = 0; ; tries++) {
    try {
      return await takeJob(deps, target, standing, 'tester');
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'job_taken') || tries >= PACK_SIZE.max)
        throw err;
      const job = await getJob(deps.db, target);
      // A double click or a client's retry after a lost answer: the job is already this tester's,
      // so the repeat answers like the first claim did instead of "taken by another tester".
      if (job.testerId === standing.id && job.status === 'claimed') return job;
      const next = job.packId ? await findOpenSlot(deps.db, job.packId, target) : undefined;
      if (!next) throw err;
      target = next;
    }
  }
}

/** POST /api/admin/assign/:jobId/:testerId: the admin gives the job to an approved tester. */
export async function assignJob(
  deps: JobsDeps,
  jobId: string,
  testerId: string,
  actorId?: string,
): Promise<JobRow> {
  await getJob(deps.db, jobId);
  const row = await findUser(deps.db, testerId);
  if (!row || row.type !== 'tester')
    throw AppError.notFound('Tester not found.', 'tester_not_found');
  if (!row.approved) throw AppError.conflict('This tester is not approved.', 'tester_not_approved');
  // The admin's choice of tester is not held back by the priority window.
  const standing: TesterStanding = {
    id: row.id,
    approved: true,
    country: row.country,
    assistiveTech: row.assistiveTech,
    testedSites: await testedSites(deps.db, row.id),
    topRated: true,
    windowRules: [],
  };
  return takeJob(deps, jobId, standing, 'admin', actorId);
}

/** Assistive technology, fresh eyes and the priority window: 403 for a tester, 409 for the admin. */
function assertTesterFits(
  job: ClaimableJob,
  tester: TesterStanding,
  by: 'tester' | 'admin',
  windowMs: number,
  now: Date,
  heldForTester = false,
): void {
  const refuse = (detail: string, code: string) =>
    by === 'admin' ? AppError.conflict(detail, code) : AppError.forbidden(detail, code);
  if (job.assistiveTech && !tester.assistiveTech.includes(job.assistiveTech)) {
    throw refuse(
      by === 'admin'
        ? 'This job is for a tester who uses the assistive technology it names, and this tester does not.'
        : JOB_MESSAGES.assistiveTechRequired,
      'assistive_tech_required',
    );
  }
  // A job held for this tester (a re-test, an invited favourite) is theirs: fresh eyes does not block them.
  if (!heldForTester && freshEyesBlocks(job, tester.testedSites)) {
    throw refuse(
      by === 'admin'
        ? 'This job asks for a tester new to this site, and this tester has tested it.'
        : JOB_MESSAGES.alreadyTestedSite,
      'already_tested_site',
    );
  }
  if (inPriorityWindow(job, tester, windowMs, now))
    throw refuse(JOB_MESSAGES.priorityWindow, 'priority_window');
}

/** What of a job decides whether a tester may take it. */
export type ClaimableJob = Pick<
  JobRow,
  | 'status'
  | 'paymentStatus'
  | 'revisionCount'
  | 'geoRule'
  | 'assistiveTech'
  | 'freshEyes'
  | 'posterId'
  | 'siteHost'
  | 'paidAt'
  | 'reservedTesterId'
  | 'reservedUntil'
>;

/**
 * Whether this tester may take this job now (pure: no database). The job's state first (409:
 * not paid, taken, completed), then a re-test held for its original tester (403, tester claims
 * only), geo, assistive technology, fresh eyes and the priority window (403 for a tester, 409 for
 * the admin; the priority window never holds back the admin's choice or a re-test held for this
 * tester). Throws the refusal; returns nothing when the tester fits.
 */
export function checkClaimEligibility(
  job: ClaimableJob,
  tester: TesterStanding,
  by: 'tester' | 'admin',
  priorityWindowMs: number,
  now: Date = new Date(),
): void {
  decide(job, by === 'admin' ? 'assign' : 'claim');
  const holder = reservedFor(job, now);
  if (by === 'tester' && holder && holder !== tester.id) {
    throw AppError.forbidden(
      'This job is held for another tester for now (a re-test or an invited tester); it opens to everyone when the hold ends.',
      'reserved_for_original_tester',
    );
  }
  if (!geoAllows(job.geoRule, tester.country)) {
    throw by === 'admin'
      ? AppError.conflict("This tester's country cannot take this job.", 'geo_not_allowed')
      : AppError.forbidden('This job is not available in your country.', 'geo_not_allowed');
  }
  // A re-test held for this tester is theirs: the priority window does not apply to it.
  assertTesterFits(
    job,
    tester,
    by,
    holder === tester.id ? 0 : priorityWindowMs,
    now,
    holder === tester.id,
  );
}

const jobTaken = () =>
  AppError.conflict('This job has already been taken by another tester.', 'job_taken');

/**
 * Claims of one job take turns in this process (ClaimGate): in a storm only the first claim of
 * each job reaches the database, and those that were waiting behind a winner answer 409 at once.
 */
function takeJob(
  deps: JobsDeps,
  jobId: string,
  tester: TesterStanding,
  by: 'tester' | 'admin',
  actorId?: string,
): Promise<JobRow> {
  return deps.claimGate.run(jobId, () => attemptClaim(deps, jobId, tester, by, actorId), jobTaken);
}

const alreadyInPack = (by: 'tester' | 'admin') =>
  AppError.conflict(
    by === 'admin'
      ? 'This tester already holds or held another test of this pack: each test of a pack goes to a different tester.'
      : REFUSALS.alreadyInPack.detail,
    REFUSALS.alreadyInPack.code,
  );

async function attemptClaim(
  deps: JobsDeps,
  jobId: string,
  tester: TesterStanding,
  by: 'tester' | 'admin',
  actorId?: string,
): Promise<JobRow> {
  const job = await getJob(deps.db, jobId);
  // A different person per slot: a tester who holds or held a slot of this pack takes no other.
  // Checked before the fresh-eyes rule, which would otherwise answer "you tested this site
  // before" for the pack's own first slot.
  if (
    job.packId &&
    job.status === 'open' &&
    (await packsOfTester(deps.db, tester.id)).includes(job.packId)
  )
    throw alreadyInPack(by);
  // The replacement of a tester's failed (or replaced) report goes to someone else.
  if (job.status === 'open' && (await jobsReplacedFrom(deps.db, tester.id, job.id)).length)
    throw AppError.conflict(
      by === 'admin' ? JOB_MESSAGES.replacedFromTester : JOB_MESSAGES.replacedFromYou,
      'session_replaced',
    );
  checkClaimEligibility(job, tester, by, deps.config.PRIORITY_WINDOW_MS);
  const max = deps.config.MAX_ACTIVE_CLAIMS;
  const claimedAt = new Date();
  const deadlineAt = claimDeadline(
    claimedAt,
    job.expectedCompletionHours,
    deps.config.CLAIM_TIMEOUT_MS,
  );
  // Per claim: one job read (most losers of a storm stop there: the job is no longer open), then
  // in one transaction the tester lock, the conditional UPDATE and, for its winner only, the
  // active-claims count and the outbox row. A lost race answers 409 from the UPDATE's empty
  // result: no second read of the job, no count.
  return deps.events.inTransaction(async (tx) => {
    await lockTester(tx, tester.id);
    // The one conditional UPDATE: of any number of simultaneous claims exactly one matches (the
    // others: 409 job_taken). A re-test held for its original tester is checked again there
    // against the clock (a tester's claim; the admin's assign is not held back).
    const row = (await applyTransition(
      tx,
      deps,
      { id: jobId },
      by === 'admin' ? 'assign' : 'claim',
      { testerId: tester.id, claimedAt, claimDeadlineAt: deadlineAt },
      { actorId },
    ))!;
    // The membership's primary key is the judge when one tester claims two slots at once.
    if (
      row.packId &&
      !(await joinPack(tx, { packId: row.packId, testerId: tester.id, jobId: row.id }))
    )
      throw alreadyInPack(by);
    // Counted after the UPDATE (this job included), under the tester lock: over the limit rolls it back.
    if ((await countActiveClaims(tx, tester.id)) > max) {
      throw AppError.conflict(
        by === 'admin'
          ? `This tester already holds ${max} active job${max === 1 ? '' : 's'}.`
          : `You can work on ${max} job${max === 1 ? '' : 's'} at a time. Submit your current work first.`,
        'too_many_claims',
      );
    }
    return row;
  });
}
