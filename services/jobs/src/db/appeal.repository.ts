import { and, asc, desc, eq, isNull, lte, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { LOW_RATING_MAX, type SessionCheckReason } from '@htm/contracts/marketplace';
import { failedSession } from './session-check.repository.js';
import {
  appeals,
  jobs,
  ratings,
  sessionChecks,
  strikes,
  users,
  type AppealRow,
  type RatingRow,
  type SessionCheckRow,
  type StrikeRow,
} from './schema.js';

type Q = Db | Tx;

export async function insertStrike(
  tx: Tx,
  s: { testerId: string; jobId: string; reason: string },
): Promise<void> {
  await tx.insert(strikes).values(s);
}

/** The tester's latest strike for the job, or undefined. */
export async function findStrike(
  db: Q,
  testerId: string,
  jobId: string,
): Promise<StrikeRow | undefined> {
  const [row] = await db
    .select()
    .from(strikes)
    .where(and(eq(strikes.testerId, testerId), eq(strikes.jobId, jobId)))
    .orderBy(desc(strikes.createdAt))
    .limit(1);
  return row;
}

/** The tester's rating for the job (one per job), or undefined. */
export async function findTesterRating(
  db: Q,
  testerId: string,
  jobId: string,
): Promise<RatingRow | undefined> {
  const [row] = await db
    .select()
    .from(ratings)
    .where(and(eq(ratings.testerId, testerId), eq(ratings.jobId, jobId)))
    .limit(1);
  return row;
}

/** Stores the appeal; undefined when the tester appealed this job's strike or rating before. */
export async function insertAppeal(
  tx: Tx,
  a: { testerId: string; jobId: string; kind: string; message: string },
): Promise<AppealRow | undefined> {
  const [row] = await tx.insert(appeals).values(a).onConflictDoNothing().returning();
  return row;
}

export async function findAppeal(db: Q, id: string): Promise<AppealRow | undefined> {
  const [row] = await db.select().from(appeals).where(eq(appeals.id, id)).limit(1);
  return row;
}

export type AppealWithContext = AppealRow & {
  jobTitle: string | null;
  strikeReason: string | null;
  stars: number | null;
  ratingComment: string | null;
  /** kind session_check: the failed check's reasons. */
  checkReasons: SessionCheckReason[] | null;
};

const withContext = {
  id: appeals.id,
  testerId: appeals.testerId,
  jobId: appeals.jobId,
  kind: appeals.kind,
  message: appeals.message,
  status: appeals.status,
  decisionNote: appeals.decisionNote,
  decidedBy: appeals.decidedBy,
  createdAt: appeals.createdAt,
  decidedAt: appeals.decidedAt,
  jobTitle: jobs.title,
  strikeReason: sql<
    string | null
  >`(SELECT s.reason FROM jobs.strikes s WHERE s.tester_id = ${appeals.testerId} AND s.job_id = ${appeals.jobId} ORDER BY s.created_at DESC LIMIT 1)`,
  stars: ratings.stars,
  ratingComment: ratings.comment,
  checkReasons: sql<
    SessionCheckReason[] | null
  >`(SELECT c.reasons FROM jobs.session_checks c WHERE c.tester_id = ${appeals.testerId} AND c.job_id = ${appeals.jobId} AND c.verdict = 'fail' ORDER BY c.checked_at DESC LIMIT 1)`,
};

/** Appeals by status, oldest first (the admin's queue), with the job's title and what is appealed. */
export async function listAppeals(
  db: Q,
  filter: { status?: string; testerId?: string; id?: string },
): Promise<AppealWithContext[]> {
  return db
    .select(withContext)
    .from(appeals)
    .leftJoin(jobs, eq(jobs.id, appeals.jobId))
    .leftJoin(ratings, and(eq(ratings.jobId, appeals.jobId), eq(appeals.kind, 'rating')))
    .where(
      and(
        filter.status ? eq(appeals.status, filter.status) : undefined,
        filter.testerId ? eq(appeals.testerId, filter.testerId) : undefined,
        filter.id ? eq(appeals.id, filter.id) : undefined,
      ),
    )
    .orderBy(asc(appeals.createdAt), asc(appeals.id))
    .limit(500);
}

/** The admin's decision, once: undefined when the appeal was decided already. */
export async function decideAppeal(
  tx: Tx,
  id: string,
  d: { status: 'overturned' | 'upheld'; note: string | null; by: string; at: Date },
): Promise<AppealRow | undefined> {
  const [row] = await tx
    .update(appeals)
    .set({ status: d.status, decisionNote: d.note, decidedBy: d.by, decidedAt: d.at })
    .where(and(eq(appeals.id, id), eq(appeals.status, 'open')))
    .returning();
  return row;
}

/** Overturns the tester's latest strike for the job and takes it off the projection's count. */
export async function overturnStrike(
  tx: Tx,
  testerId: string,
  jobId: string,
  at: Date,
): Promise<boolean> {
  const strike = await findStrike(tx, testerId, jobId);
  if (!strike || strike.overturnedAt) return false;
  await tx.update(strikes).set({ overturnedAt: at }).where(eq(strikes.id, strike.id));
  await tx
    .update(users)
    .set({ strikes: sql`GREATEST(${users.strikes} - 1, 0)`, updatedAt: at })
    .where(eq(users.id, testerId));
  return true;
}

/** Takes the job's rating out of the tester's average (projection and top-rated rule). */
export async function overturnRating(
  tx: Tx,
  jobId: string,
  at: Date,
): Promise<RatingRow | undefined> {
  const [row] = await tx
    .update(ratings)
    .set({ overturnedAt: at })
    .where(and(eq(ratings.jobId, jobId), isNull(ratings.overturnedAt)))
    .returning();
  if (!row) return undefined;
  await tx
    .update(users)
    .set({
      ratingSum: sql`GREATEST(${users.ratingSum} - ${row.stars}, 0)`,
      ratingCount: sql`GREATEST(${users.ratingCount} - 1, 0)`,
      updatedAt: at,
    })
    .where(eq(users.id, row.testerId));
  return row;
}

/** The tester's strikes and low ratings (what they may see and appeal), newest first. */
export async function listTesterMarks(
  db: Q,
  testerId: string,
): Promise<{
  strikes: Array<StrikeRow & { jobTitle: string | null }>;
  ratings: Array<RatingRow & { jobTitle: string | null }>;
  failedChecks: Array<SessionCheckRow & { jobTitle: string | null }>;
}> {
  const s = await db
    .select({ strike: strikes, jobTitle: jobs.title })
    .from(strikes)
    .leftJoin(jobs, eq(jobs.id, strikes.jobId))
    .where(eq(strikes.testerId, testerId))
    .orderBy(desc(strikes.createdAt))
    .limit(200);
  const r = await db
    .select({ rating: ratings, jobTitle: jobs.title })
    .from(ratings)
    .leftJoin(jobs, eq(jobs.id, ratings.jobId))
    .where(and(eq(ratings.testerId, testerId), lte(ratings.stars, LOW_RATING_MAX)))
    .orderBy(desc(ratings.createdAt))
    .limit(200);
  // Failed session checks that sent the job to another tester (appealable whether confirmed or not).
  const c = await db
    .select({ check: sessionChecks, jobTitle: jobs.title })
    .from(sessionChecks)
    .leftJoin(jobs, eq(jobs.id, sessionChecks.jobId))
    .where(and(eq(sessionChecks.testerId, testerId), failedSession))
    .orderBy(desc(sessionChecks.checkedAt))
    .limit(200);
  return {
    strikes: s.map((x) => ({ ...x.strike, jobTitle: x.jobTitle })),
    ratings: r.map((x) => ({ ...x.rating, jobTitle: x.jobTitle })),
    failedChecks: c.map((x) => ({ ...x.check, jobTitle: x.jobTitle })),
  };
}
