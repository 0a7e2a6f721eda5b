import {
  and,
  desc,
  eq,
  inArray,
  isNotNull,
  isNull,
  lt,
  lte,
  ne,
  notInArray,
  sql,
  type Placeholder,
  type SQL,
} from 'drizzle-orm';
import { rowsOf, type Db, type Tx } from '@htm/service-kit/db';
import {
  DEFAULT_STRIKE_LIMIT,
  type TesterRecord,
  REVISION_LIMIT,
  TOP_RATED,
  TRANSITIONS,
  type JobAction,
  type JobColumn,
  type JobMatch,
} from '@htm/contracts/marketplace';
import {
  jobs,
  ratings,
  strikes,
  submissions,
  users,
  type JobRow,
  type RatingRow,
  type UserRow,
} from './schema.js';

type Q = Db | Tx;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string) => UUID.test(s);

export async function findJob(db: Q, id: string): Promise<JobRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await db.select().from(jobs).where(eq(jobs.id, id)).limit(1);
  return row;
}

/**
 * Statements on the hot read path (every tester's job list), built and named once per
 * database handle: the SQL text is not rebuilt per request and Postgres keeps the plan.
 */
function hotStatements(db: Db) {
  const findUser = db
    .select()
    .from(users)
    .where(eq(users.id, sql.placeholder('id')))
    .limit(1)
    .prepare('jobs_find_user');
  const fit = {
    assistiveTech: sql.placeholder('assistiveTech'),
    testedSites: sql.placeholder('testedSites'),
    windowRules: sql.placeholder('windowRules'),
    windowCutoff: sql.placeholder('windowCutoff'),
  };
  const firstPage = availableJobsQuery(db, {
    geoRules: sql.placeholder('rules'),
    limit: sql.placeholder('limit'),
    ...fit,
  }).prepare('jobs_available_first_v3');
  const nextPage = availableJobsQuery(db, {
    geoRules: sql.placeholder('rules'),
    limit: sql.placeholder('limit'),
    after: { createdAt: sql.placeholder('afterTs'), id: sql.placeholder('afterId') },
    ...fit,
  }).prepare('jobs_available_next_v3');
  return { findUser, firstPage, nextPage };
}
const statements = new WeakMap<Db, ReturnType<typeof hotStatements>>();
function hot(db: Db) {
  let s = statements.get(db);
  if (!s) statements.set(db, (s = hotStatements(db)));
  return s;
}
export async function findUser(db: Db, id: string): Promise<UserRow | undefined> {
  const [row] = await hot(db).findUser.execute({ id });
  return row;
}

/** Jobs with the poster's e-mail and name (users projection first, else what the token said at creation). */
export async function listJobs(
  db: Q,
  where: SQL | undefined,
  limit = 500,
): Promise<Array<JobRow & { posterInfo: { email: string; name: string }; reportHeld: boolean }>> {
  const rows = await db
    .select({ job: jobs, uEmail: users.email, uName: users.name, held: submissions.held })
    .from(jobs)
    .leftJoin(users, eq(users.id, jobs.posterId))
    .leftJoin(submissions, eq(submissions.id, jobs.currentSubmissionId))
    .where(where)
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(limit);
  return rows.map((r) => ({
    ...r.job,
    posterInfo: { email: r.uEmail || r.job.posterEmail, name: r.uName || r.job.posterName },
    // The current report is held from the poster (its session check has not passed yet).
    reportHeld: r.held === true,
  }));
}

/** Marks an open, unpaid, not yet deleted job deleted; false when it is none of these any more. */
export async function markUnpaidJobDeleted(db: Q, id: string): Promise<boolean> {
  const rows = await db
    .update(jobs)
    .set({ deletedAt: new Date() })
    .where(
      and(
        eq(jobs.id, id),
        eq(jobs.paymentStatus, 'unpaid'),
        eq(jobs.status, 'open'),
        isNull(jobs.deletedAt),
      ),
    )
    .returning({ id: jobs.id });
  return rows.length > 0;
}

export const ACTIVE_CLAIM_STATUSES = ['claimed', 'revision_requested'] as const;

export async function countActiveClaims(db: Q, testerId: string): Promise<number> {
  const [r] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(jobs)
    .where(and(eq(jobs.testerId, testerId), inArray(jobs.status, [...ACTIVE_CLAIM_STATUSES])));
  return Number(r?.n ?? 0);
}

/** Serialises one tester's claims (MAX_ACTIVE_CLAIMS) until the transaction ends. */
export async function lockTester(tx: Tx, testerId: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`jobs:tester:${testerId}`}))`);
}

type ListParam = string[] | Placeholder;
const listParam = (v: ListParam) => (Array.isArray(v) ? sql.param(v) : v);

/**
 * What decides, beyond geo, which open jobs one tester sees: the assistive technology they use,
 * the poster sites they have tested (fresh eyes), and the priority window (jobs of `windowRules`
 * paid after `windowCutoff` are hidden; empty rules: no window for this tester).
 */
export interface TesterFit {
  assistiveTech: ListParam;
  testedSites: ListParam;
  windowRules: ListParam;
  windowCutoff: string | Placeholder;
}

/** The SQL side of freshEyesBlocks (the rules module, @htm/contracts/marketplace): keep the two the same rule. */
export function freshEyesFilter(testedSites: ListParam): SQL {
  return sql`NOT (${jobs.freshEyes} AND (${jobs.posterId} || '|' || ${jobs.siteHost}) = ANY(${listParam(testedSites)}::text[]))`;
}

/**
 * Paid open jobs a tester may take, newest first, keyset-paginated. Served by the partial
 * index jobs_available_idx (created_at DESC, id DESC WHERE status='open' AND payment_status='paid').
 */
export function availableJobsQuery(
  db: Q,
  opts: {
    geoRules: ListParam;
    limit: number | Placeholder;
    after?: { createdAt: string | Placeholder; id: string | Placeholder };
  } & Partial<TesterFit>,
) {
  const fit: TesterFit = {
    assistiveTech: [],
    testedSites: [],
    windowRules: [],
    windowCutoff: new Date(0).toISOString(),
    ...opts,
  };
  const conds: SQL[] = [
    eq(jobs.status, 'open'),
    eq(jobs.paymentStatus, 'paid'),
    sql`${jobs.geoRule} = ANY(${listParam(opts.geoRules)}::text[])`,
    sql`(${jobs.assistiveTech} IS NULL OR ${jobs.assistiveTech} = ANY(${listParam(fit.assistiveTech)}::text[]))`,
    freshEyesFilter(fit.testedSites),
    sql`(${jobs.paidAt} IS NULL OR ${jobs.paidAt} <= ${fit.windowCutoff}::timestamptz OR NOT (${jobs.geoRule} = ANY(${listParam(fit.windowRules)}::text[])))`,
    // Re-tests still held for their original tester are listed to that tester only (listReservedFor).
    sql`(${jobs.reservedUntil} IS NULL OR ${jobs.reservedUntil} <= now())`,
    // A pack is listed once: its first open slot (a claim of a taken slot moves on to the next one).
    sql`(${jobs.packId} IS NULL OR NOT EXISTS (SELECT 1 FROM jobs.jobs s WHERE s.pack_id = ${jobs.packId} AND s.status = 'open' AND s.payment_status = 'paid' AND s.id < ${jobs.id}))`,
  ];
  if (opts.after)
    conds.push(
      sql`(${jobs.createdAt}, ${jobs.id}) < (${opts.after.createdAt}::timestamptz, ${opts.after.id}::uuid)`,
    );
  return db
    .select({ job: jobs, cursorTs: sql<string>`${jobs.createdAt}::text` })
    .from(jobs)
    .where(and(...conds))
    .orderBy(sql`${jobs.createdAt} DESC NULLS LAST`, sql`${jobs.id} DESC NULLS LAST`)
    .limit(opts.limit);
}

/** Paid open re-tests held for this tester right now (shown at the top of their first page). */
export async function listReservedFor(
  db: Q,
  testerId: string,
  geoRules: string[],
): Promise<JobRow[]> {
  return db
    .select()
    .from(jobs)
    .where(
      and(
        eq(jobs.reservedTesterId, testerId),
        eq(jobs.status, 'open'),
        eq(jobs.paymentStatus, 'paid'),
        inArray(jobs.geoRule, geoRules),
        sql`${jobs.reservedUntil} > now()`,
      ),
    )
    .orderBy(desc(jobs.createdAt), desc(jobs.id));
}

/** One page of availableJobsQuery through the prepared statements. */
export async function listAvailableJobs(
  db: Db,
  opts: {
    geoRules: string[];
    limit: number;
    after?: { createdAt: string; id: string };
    fit: {
      assistiveTech: string[];
      testedSites: string[];
      windowRules: string[];
      windowCutoff: string;
    };
  },
) {
  const s = hot(db);
  const fit = opts.fit;
  return opts.after
    ? s.nextPage.execute({
        rules: opts.geoRules,
        limit: opts.limit,
        afterTs: opts.after.createdAt,
        afterId: opts.after.id,
        ...fit,
      })
    : s.firstPage.execute({ rules: opts.geoRules, limit: opts.limit, ...fit });
}

/** siteKey()s (poster|host) of every job this tester has submitted work on (fresh eyes). */
export async function testedSites(db: Q, testerId: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ key: sql<string>`${jobs.posterId} || '|' || ${jobs.siteHost}` })
    .from(submissions)
    .innerJoin(jobs, eq(jobs.id, submissions.jobId))
    .where(eq(submissions.testerId, testerId));
  return rows.map((r) => r.key).sort();
}

/**
 * The top-rated rule (the rules module's TOP_RATED / isTopRated) in SQL: the average of each
 * poster's average stars (one decimal, half up) >= 4.5, from at least 3 different posters.
 */

/** The stars each poster gave this tester: one {sum, count} per poster. */
export async function starsByPoster(
  db: Q,
  testerId: string,
): Promise<Array<{ sum: number; count: number }>> {
  const rows = await db
    .select({ sum: sql<number>`sum(${ratings.stars})::int`, count: sql<number>`count(*)::int` })
    .from(ratings)
    .where(and(eq(ratings.testerId, testerId), isNull(ratings.overturnedAt)))
    .groupBy(ratings.posterId);
  return rows.map((r) => ({ sum: Number(r.sum), count: Number(r.count) }));
}

/**
 * What the rules module's testerLevel decides from: the tester's accepted (completed) jobs, their
 * strikes in force (an overturned one no longer counts) and the stars each poster gave.
 */
export async function testerRecord(db: Q, testerId: string): Promise<TesterRecord> {
  const [[done], [struck], stars] = await Promise.all([
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(jobs)
      .where(and(eq(jobs.testerId, testerId), eq(jobs.status, 'completed'))),
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(strikes)
      .where(and(eq(strikes.testerId, testerId), isNull(strikes.overturnedAt))),
    starsByPoster(db, testerId),
  ]);
  return {
    jobsCompleted: Number(done?.n ?? 0),
    strikes: Number(struck?.n ?? 0),
    starsByPoster: stars,
  };
}

/** Countries of approved top-rated testers (the priority window opens only where one exists). */
export async function topRatedCountries(db: Q): Promise<Array<string | null>> {
  const perPoster = db
    .select({
      testerId: ratings.testerId,
      avg: sql<string>`avg(${ratings.stars})`.as('poster_avg'),
    })
    .from(ratings)
    .where(isNull(ratings.overturnedAt))
    .groupBy(ratings.testerId, ratings.posterId)
    .as('per_poster');
  const top = db
    .select({ testerId: perPoster.testerId })
    .from(perPoster)
    .groupBy(perPoster.testerId)
    .having(
      sql`count(*) >= ${TOP_RATED.minCount} AND round(avg(${perPoster.avg}) * 10) >= ${TOP_RATED.minAvgTenths}`,
    )
    .as('top');
  const rows = await db
    .selectDistinct({ country: users.country })
    .from(users)
    .innerJoin(top, eq(top.testerId, users.id))
    .where(
      and(
        eq(users.type, 'tester'),
        eq(users.approved, true),
        sql`${users.ratingCount} >= ${TOP_RATED.minCount}`,
      ),
    );
  return rows.map((r) => r.country);
}

/** minutes_spent of the latest `recent` submissions that give one ("usually N minutes"). */
export async function recentMinutes(db: Q, recent = 50): Promise<number[]> {
  const rows = await db
    .select({ m: submissions.minutesSpent })
    .from(submissions)
    .where(isNotNull(submissions.minutesSpent))
    .orderBy(desc(submissions.submittedAt))
    .limit(recent);
  return rows.map((r) => r.m!);
}

export async function findRating(db: Q, jobId: string): Promise<RatingRow | undefined> {
  const [row] = await db.select().from(ratings).where(eq(ratings.jobId, jobId)).limit(1);
  return row;
}

/** Ratings of these jobs by job id. */
export async function ratingsByJob(db: Q, jobIds: string[]): Promise<Map<string, RatingRow>> {
  if (!jobIds.length) return new Map();
  const rows = await db.select().from(ratings).where(inArray(ratings.jobId, jobIds));
  return new Map(rows.map((r) => [r.jobId, r]));
}

/** Stores the one rating of a job and adds it to the tester's standing; undefined when already rated. */
export async function insertRating(
  tx: Tx,
  r: {
    jobId: string;
    testerId: string;
    posterId: string;
    stars: number;
    comment: string | null;
    createdAt: Date;
  },
): Promise<RatingRow | undefined> {
  const [row] = await tx.insert(ratings).values(r).onConflictDoNothing().returning();
  if (!row) return undefined;
  await tx
    .insert(users)
    .values({ id: r.testerId, type: 'tester', ratingSum: r.stars, ratingCount: 1 })
    .onConflictDoUpdate({
      target: users.id,
      set: {
        ratingSum: sql`${users.ratingSum} + ${r.stars}`,
        ratingCount: sql`${users.ratingCount} + 1`,
        updatedAt: new Date(),
      },
    });
  return row;
}

/**
 * Strike against a tester (projection); returns the new count. At the strike limit identity
 * announced for this tester (users.strike_limit; the rules' default until one is announced) the
 * projection unapproves them too, so jobs refuses their claims from that strike on.
 */
export async function addStrike(tx: Tx, testerId: string): Promise<number> {
  const [row] = await tx
    .insert(users)
    .values({ id: testerId, type: 'tester', strikes: 1 })
    .onConflictDoUpdate({
      target: users.id,
      set: {
        strikes: sql`${users.strikes} + 1`,
        approved: sql`CASE WHEN ${users.strikes} + 1 >= COALESCE(${users.strikeLimit}, ${DEFAULT_STRIKE_LIMIT}::int) THEN false ELSE ${users.approved} END`,
        updatedAt: new Date(),
      },
    })
    .returning({ strikes: users.strikes });
  return row.strikes;
}

/** A job whose state has a deadline: claimed, submitted (auto-accept) or revision_requested. */
export interface TimedJob {
  id: string;
  status: string;
  testerId: string | null;
  currentSubmissionId: string | null;
  claimDeadlineAt: Date | null;
  autoAcceptAt: Date | null;
  revisionDeadlineAt: Date | null;
  fillDeadlineAt: Date | null;
}

/**
 * One page (by id) of the jobs that must have a timer: the database is the source of truth the
 * timer reconciler rebuilds BullMQ's delayed jobs from.
 */
export async function listTimedJobs(
  db: Q,
  after: string | undefined,
  limit: number,
): Promise<TimedJob[]> {
  const due = sql`(
    (${jobs.status} = 'claimed' AND ${jobs.claimDeadlineAt} IS NOT NULL)
    OR (${jobs.status} = 'submitted' AND ${jobs.autoAcceptAt} IS NOT NULL AND ${jobs.currentSubmissionId} IS NOT NULL)
    OR (${jobs.status} = 'revision_requested' AND ${jobs.revisionDeadlineAt} IS NOT NULL)
    OR (${jobs.status} = 'open' AND ${jobs.packId} IS NOT NULL AND ${jobs.fillDeadlineAt} IS NOT NULL)
  )`;
  return db
    .select({
      id: jobs.id,
      status: jobs.status,
      testerId: jobs.testerId,
      currentSubmissionId: jobs.currentSubmissionId,
      claimDeadlineAt: jobs.claimDeadlineAt,
      autoAcceptAt: jobs.autoAcceptAt,
      revisionDeadlineAt: jobs.revisionDeadlineAt,
      fillDeadlineAt: jobs.fillDeadlineAt,
    })
    .from(jobs)
    .where(after ? and(due, sql`${jobs.id} > ${after}`) : due)
    .orderBy(jobs.id)
    .limit(limit);
}

/**
 * Timers the database says should have fired more than `graceMs` ago but have not (the job is
 * still in the timed state): the `jobs_timers_overdue` metric. Above 0 for long means timers are
 * not being applied (the worker down, Redis or the database unreachable).
 */
export async function countOverdueTimers(db: Q, graceMs: number): Promise<number> {
  const before = new Date(Date.now() - graceMs);
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(jobs).where(sql`(
      (${jobs.status} = 'claimed' AND ${jobs.claimDeadlineAt} < ${before})
      OR (${jobs.status} = 'submitted' AND ${jobs.autoAcceptAt} < ${before} AND ${jobs.currentSubmissionId} IS NOT NULL)
      OR (${jobs.status} = 'revision_requested' AND ${jobs.revisionDeadlineAt} < ${before})
      OR (${jobs.status} = 'open' AND ${jobs.packId} IS NOT NULL AND ${jobs.fillDeadlineAt} < ${before})
    )`);
  return Number(row?.n ?? 0);
}

/**
 * Moves the deadline of a tester's hold (claimed: claim deadline; revision_requested: revision
 * deadline) to at least `until`; an earlier deadline only (never shortens). Not a status change.
 * True when a deadline moved.
 */
export async function extendHoldDeadline(
  db: Q,
  m: { jobId: string; testerId: string; until: Date },
): Promise<boolean> {
  const claimed = await db
    .update(jobs)
    .set({ claimDeadlineAt: m.until })
    .where(
      and(
        eq(jobs.id, m.jobId),
        eq(jobs.testerId, m.testerId),
        eq(jobs.status, 'claimed'),
        lt(jobs.claimDeadlineAt, m.until),
      ),
    )
    .returning({ id: jobs.id });
  if (claimed.length) return true;
  const revising = await db
    .update(jobs)
    .set({ revisionDeadlineAt: m.until })
    .where(
      and(
        eq(jobs.id, m.jobId),
        eq(jobs.testerId, m.testerId),
        eq(jobs.status, 'revision_requested'),
        lt(jobs.revisionDeadlineAt, m.until),
      ),
    )
    .returning({ id: jobs.id });
  return revising.length > 0;
}

// ---------------------------------------------------------------------------------------------
// State changes. Each is ONE conditional UPDATE, so a race never changes a job twice. A job's
// status changes only through updateJobByTransition (its WHERE is built from the rules module's
// transition table), called by the domain's applyTransition (domain/job-state.ts) alone.
// ---------------------------------------------------------------------------------------------

export type NewJob = typeof jobs.$inferInsert;

/** Inserts a new (unpaid, open) job. */
export async function insertJob(tx: Tx, values: NewJob): Promise<JobRow> {
  const [row] = await tx.insert(jobs).values(values).returning();
  return row;
}

/** Counts one more checkout attempt of a job; the attempt's number (payments' sessions are idempotent per attempt). */
export async function countCheckoutAttempt(db: Q, jobId: string): Promise<number> {
  const [counted] = await db
    .update(jobs)
    .set({ checkoutAttempts: sql`${jobs.checkoutAttempts} + 1` })
    .where(eq(jobs.id, jobId))
    .returning({ attempt: jobs.checkoutAttempts });
  return counted.attempt;
}

/** Remembers the job's latest checkout session. */
export async function setCheckoutSession(
  db: Q,
  jobId: string,
  sessionId: string,
): Promise<JobRow | undefined> {
  const [row] = await db
    .update(jobs)
    .set({ checkoutSessionId: sessionId })
    .where(eq(jobs.id, jobId))
    .returning();
  return row;
}

/**
 * payments' JobPaid: the job becomes paid (and live, even if its poster deleted it meanwhile: a
 * checkout paid in an old tab). A re-test (its original tester) or a job with an invited favourite is held for that tester until `reservedUntil`.
 * Undefined when it was paid already.
 */
export async function markJobPaid(
  tx: Tx,
  p: { jobId: string; paidAt: Date; sessionId: string; reservedUntil: Date; fillDeadlineAt: Date },
): Promise<
  | Pick<
      JobRow,
      | 'id'
      | 'posterId'
      | 'geoRule'
      | 'title'
      | 'expectedCompletionHours'
      | 'assistiveTech'
      | 'freshEyes'
      | 'siteHost'
      | 'reservedTesterId'
      | 'reservedUntil'
      | 'fillDeadlineAt'
    >
  | undefined
> {
  const [row] = await tx
    .update(jobs)
    .set({
      paymentStatus: 'paid',
      paidAt: p.paidAt,
      checkoutSessionId: p.sessionId,
      deletedAt: null,
      // Held only for a tester who may take it now (an invited favourite or a re-test's tester
      // the admin un-approved since would hold it for nobody).
      reservedUntil: sql`CASE WHEN ${jobs.reservedTesterId} IS NOT NULL AND EXISTS (SELECT 1 FROM ${users} WHERE ${users.id} = ${jobs.reservedTesterId} AND ${users.approved}) THEN ${p.reservedUntil.toISOString()}::timestamptz ELSE NULL END`,
      // A pack's slot nobody has claimed by then is closed and refunded (the fill timer).
      fillDeadlineAt: sql`CASE WHEN ${jobs.packId} IS NOT NULL THEN ${p.fillDeadlineAt.toISOString()}::timestamptz ELSE NULL END`,
    })
    .where(and(eq(jobs.id, p.jobId), ne(jobs.paymentStatus, 'paid')))
    .returning({
      id: jobs.id,
      posterId: jobs.posterId,
      geoRule: jobs.geoRule,
      title: jobs.title,
      expectedCompletionHours: jobs.expectedCompletionHours,
      assistiveTech: jobs.assistiveTech,
      freshEyes: jobs.freshEyes,
      siteHost: jobs.siteHost,
      reservedTesterId: jobs.reservedTesterId,
      reservedUntil: jobs.reservedUntil,
      fillDeadlineAt: jobs.fillDeadlineAt,
    });
  return row;
}

/** identity's UserRenamed: the jobs a user posted show the new name (the admin's lists, poster_info). */
export async function renamePoster(tx: Tx, userId: string, name: string): Promise<void> {
  await tx.update(jobs).set({ posterName: name }).where(eq(jobs.posterId, userId));
}

/** payments' CheckoutCancelled: an unpaid job stays unpublished; the first cancellation time is noted. */
export async function noteCheckoutCancelled(tx: Tx, jobId: string, at: Date): Promise<void> {
  await tx
    .update(jobs)
    .set({ checkoutCancelledAt: at })
    .where(
      and(eq(jobs.id, jobId), ne(jobs.paymentStatus, 'paid'), isNull(jobs.checkoutCancelledAt)),
    );
}

/** Values a transition's caller gives for the columns the table says it sets (SQL allowed: revision_count + 1). */
export type TransitionValues = { [K in JobColumn]?: NewJob[K] | SQL };
/**
 * The job as the caller loaded it: its id, and the columns the action's `match` must find
 * unchanged; for a timer's action (the table's `due`), the time the timer runs at.
 */
export type TransitionTarget = Pick<JobRow, 'id'> &
  Partial<Pick<JobRow, JobMatch>> & { asOf?: Date };

const CLEARED: { [K in JobColumn]: null | 0 } = {
  testerId: null,
  claimedAt: null,
  claimDeadlineAt: null,
  submittedAt: null,
  autoAcceptAt: null,
  revisionDeadlineAt: null,
  revisionCount: 0,
  lastReview: null,
  currentSubmissionId: null,
  completedAt: null,
  acceptedBy: null,
  releasedTesterId: null,
  releaseReason: null,
  replacedAt: null,
  closedAt: null,
};

/** The WHERE of an action's conditional UPDATE, built from the rules module's transition table. */
export function transitionWhere(
  job: TransitionTarget,
  action: JobAction,
  set: TransitionValues,
): SQL {
  const t = TRANSITIONS[action];
  const conds: Array<SQL | undefined> = [eq(jobs.id, job.id), inArray(jobs.status, [...t.from])];
  for (const guard of t.guards) {
    if (guard === 'paid') conds.push(eq(jobs.paymentStatus, 'paid'));
    else if (guard === 'revisions_left') conds.push(lt(jobs.revisionCount, REVISION_LIMIT));
    // A re-test held for its original tester stays theirs (checked against the database clock).
    else
      conds.push(
        sql`(${jobs.reservedUntil} IS NULL OR ${jobs.reservedUntil} <= now() OR ${jobs.reservedTesterId} = ${set.testerId as string})`,
      );
  }
  for (const column of t.match) {
    const value = job[column];
    if (value === undefined) throw new Error(`${action} must match the job's ${column}`);
    conds.push(value === null ? isNull(jobs[column]) : eq(jobs[column], value));
  }
  // A timer's action: only once the job's own deadline (the database's) has come.
  if (t.due) {
    if (!job.asOf) throw new Error(`${action} is a timer's action: give the time it runs at`);
    conds.push(lte(jobs[t.due], job.asOf));
  }
  return and(...conds)!;
}

/**
 * The one UPDATE of every status change (the domain's applyTransition calls it, and only it): its
 * WHERE is the action's row of the transition table (starting statuses, guards, the loaded job's
 * holder / deadline / submission); it sets the target status, the columns the caller gives (only
 * those the table lists) and clears the ones the table clears. Of simultaneous changes exactly
 * one finds its row. The new row, or undefined when none matched (a lost race or a stale timer):
 * what that means is the table's `lost`, applied in the domain.
 */
export async function updateJobByTransition(
  tx: Tx,
  job: TransitionTarget,
  action: JobAction,
  set: TransitionValues = {},
): Promise<JobRow | undefined> {
  const t = TRANSITIONS[action];
  const unexpected = Object.keys(set).filter((k) => !t.sets.includes(k as JobColumn));
  if (unexpected.length) throw new Error(`${action} does not set ${unexpected.join(', ')}`);
  const values: Record<string, unknown> = { status: t.to };
  for (const column of t.clears) values[column] = CLEARED[column];
  Object.assign(values, set);
  const [row] = await tx
    .update(jobs)
    .set(values)
    .where(transitionWhere(job, action, set))
    .returning();
  return row;
}

/**
 * identity un-approved a tester: the paid open jobs held for them (an invited favourite, a
 * re-test) are held no longer, open to every tester from `at`. The ids of those released.
 */
export async function releaseHoldsOf(tx: Tx, testerId: string, at: Date): Promise<string[]> {
  const rows = await tx
    .update(jobs)
    .set({ reservedUntil: at })
    .where(
      and(
        eq(jobs.reservedTesterId, testerId),
        eq(jobs.status, 'open'),
        sql`${jobs.reservedUntil} > ${at.toISOString()}::timestamptz`,
      ),
    )
    .returning({ id: jobs.id });
  return rows.map((r) => r.id);
}

/** The jobs a tester holds claimed (released when identity unapproves them). */
export async function listClaimedBy(
  db: Q,
  testerId: string,
): Promise<Array<Pick<JobRow, 'id' | 'testerId'>>> {
  return db
    .select({ id: jobs.id, testerId: jobs.testerId })
    .from(jobs)
    .where(
      and(
        eq(jobs.testerId, testerId),
        inArray(jobs.status, [...TRANSITIONS.tester_unapproved.from]),
      ),
    );
}

/** Whether its session check (#52) still holds this report from its poster (no report: false). */
export async function reportHeld(q: Q, submissionId: string | null): Promise<boolean> {
  if (!submissionId) return false;
  const [row] = await q
    .select({ held: submissions.held })
    .from(submissions)
    .where(eq(submissions.id, submissionId))
    .limit(1);
  return row?.held ?? false;
}

/** The accepted submission is marked accepted too; the minutes the tester said it took. */
export async function markSubmissionAccepted(
  tx: Tx,
  submissionId: string,
  by: 'poster' | 'admin' | 'auto',
  at: Date,
): Promise<number | null> {
  const [sub] = await tx
    .update(submissions)
    .set({ acceptedAt: at, acceptedBy: by })
    .where(eq(submissions.id, submissionId))
    .returning({ minutesSpent: submissions.minutesSpent });
  return sub?.minutesSpent ?? null;
}

/** What clear-all would delete, as the admin's preview shows it. */
export interface ClearPreviewRow {
  status: string;
  paymentStatus: string;
  jobs: number;
  cents: number;
}

/**
 * Jobs counted by status and payment status, the submissions, and a fingerprint of exactly this
 * set of jobs (each id with its status and payment status) and submissions: clear-all deletes only
 * when the fingerprint still matches the one the admin confirmed.
 */
export async function clearPreview(
  db: Q,
): Promise<{ rows: ClearPreviewRow[]; submissions: number; fingerprint: string }> {
  const groups = await db.execute(sql`
    SELECT status, payment_status, count(*)::int AS jobs, COALESCE(sum(budget_cents), 0)::int AS cents
    FROM jobs.jobs GROUP BY status, payment_status ORDER BY status, payment_status`);
  const [fp] = rowsOf<{ fingerprint: string; submissions: number }>(
    await db.execute(sql`
      SELECT md5(
        COALESCE((SELECT string_agg(id::text || ':' || status || ':' || payment_status, ',' ORDER BY id) FROM jobs.jobs), '')
        || '|' || COALESCE((SELECT string_agg(id::text, ',' ORDER BY id) FROM jobs.submissions), '')
      ) AS fingerprint,
      (SELECT count(*)::int FROM jobs.submissions) AS submissions`),
  );
  return {
    rows: rowsOf<{ status: string; payment_status: string; jobs: number; cents: number }>(
      groups,
    ).map((r) => ({
      status: r.status,
      paymentStatus: r.payment_status,
      jobs: Number(r.jobs),
      cents: Number(r.cents),
    })),
    submissions: Number(fp?.submissions ?? 0),
    fingerprint: fp?.fingerprint ?? '',
  };
}

/** Holds off every write to jobs and submissions until the clear-all transaction ends (reads go on). */
export async function lockForClear(tx: Tx): Promise<void> {
  await tx.execute(sql`LOCK TABLE jobs.jobs, jobs.submissions, jobs.files IN EXCLUSIVE MODE`);
}

/** Paid jobs nobody finished (not completed, nor a pack's slot closed: refunded already): clear-all refunds them. */
export async function paidUnfinishedJobIds(tx: Tx): Promise<string[]> {
  const rows = await tx
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.paymentStatus, 'paid'), notInArray(jobs.status, ['completed', 'closed'])));
  return rows.map((r) => r.id);
}

/** Deletes every job (clear-all); how many. Files and submissions: deleteAllSubmissions. */
export async function deleteAllJobs(tx: Tx): Promise<number> {
  const js = await tx.delete(jobs).returning({ id: jobs.id });
  return js.length;
}

/** Fields of the users projection an identity event sets. */
export type UserProjection = Partial<
  Pick<
    UserRow,
    | 'email'
    | 'name'
    | 'type'
    | 'approved'
    | 'country'
    | 'location'
    | 'assistiveTech'
    | 'strikeLimit'
  >
>;

/** Creates or updates a user of the projection (identity's events). */
export async function saveUser(tx: Tx, id: string, fields: UserProjection): Promise<void> {
  const updatedAt = new Date();
  await tx
    .insert(users)
    .values({ id, ...fields, updatedAt })
    .onConflictDoUpdate({ target: users.id, set: { ...fields, updatedAt } });
}

/** The poster's jobs (or all jobs: posterId undefined, the admin) that are not deleted, newest first. */
export function listPostedJobs(db: Q, posterId: string | undefined, limit: number) {
  return listJobs(
    db,
    posterId === undefined
      ? isNull(jobs.deletedAt)
      : and(eq(jobs.posterId, posterId), isNull(jobs.deletedAt)),
    limit,
  );
}

/** A tester's jobs (claimed, submitted, revision_requested, completed), newest first. */
export function listTesterJobs(db: Q, testerId: string, limit: number) {
  return listJobs(
    db,
    and(
      eq(jobs.testerId, testerId),
      inArray(jobs.status, ['claimed', 'submitted', 'revision_requested', 'completed']),
    ),
    limit,
  );
}
