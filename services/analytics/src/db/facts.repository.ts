import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import {
  daily,
  dailyDemand,
  durations,
  handledEvents,
  jobs,
  summaries,
  testers,
  type DailyCounter,
  type JobFacts,
} from './schema.js';

type Q = Db | Tx;

/** Adds to a day's counters (the row is created on first use). */
export async function addToDay(
  tx: Q,
  day: string,
  add: Partial<Record<DailyCounter, number>>,
): Promise<void> {
  const entries = Object.entries(add).filter(([, v]) => v) as Array<[DailyCounter, number]>;
  if (!entries.length) return;
  const set: Record<string, unknown> = {};
  for (const [k] of entries) set[k] = sql`${daily[k]} + excluded.${sql.identifier(daily[k].name)}`;
  await tx
    .insert(daily)
    .values({ day, ...Object.fromEntries(entries) })
    .onConflictDoUpdate({ target: daily.day, set });
}

export async function addDemand(tx: Q, day: string, geoRule: string): Promise<void> {
  await tx
    .insert(dailyDemand)
    .values({ day, geoRule, count: 1 })
    .onConflictDoUpdate({
      target: [dailyDemand.day, dailyDemand.geoRule],
      set: { count: sql`${dailyDemand.count} + 1` },
    });
}

export async function addDuration(
  tx: Q,
  day: string,
  metric: string,
  bucket: number,
): Promise<void> {
  await tx
    .insert(durations)
    .values({ day, metric, bucket, count: 1 })
    .onConflictDoUpdate({
      target: [durations.day, durations.metric, durations.bucket],
      set: { count: sql`${durations.count} + 1` },
    });
}

export interface JobPatch {
  geoRule?: string;
  postedAt?: Date;
  paidAt?: Date;
  claimedAt?: Date;
  releasedAt?: Date;
  submittedAt?: Date;
  completedAt?: Date;
}

const earliest = (a: Date | null, b: Date | undefined) => (b && (!a || b < a) ? b : a);
const latest = (a: Date | null, b: Date | undefined) => (b && (!a || b > a) ? b : a);

/**
 * Folds what one event says into the job's row (locked for the rest of the transaction, so two
 * streams' events for one job apply one after the other); answers the row before and after.
 */
export async function foldJob(
  tx: Tx,
  jobId: string,
  p: JobPatch,
): Promise<{ before: JobFacts; after: JobFacts }> {
  await tx.insert(jobs).values({ jobId }).onConflictDoNothing();
  const [before] = await tx.select().from(jobs).where(eq(jobs.jobId, jobId)).for('update');
  const after: JobFacts = {
    ...before,
    geoRule: p.geoRule ?? before.geoRule,
    postedAt: earliest(before.postedAt, p.postedAt),
    paidAt: earliest(before.paidAt, p.paidAt),
    firstClaimedAt: earliest(before.firstClaimedAt, p.claimedAt),
    lastClaimedAt: latest(before.lastClaimedAt, p.claimedAt),
    lastReleasedAt: latest(before.lastReleasedAt, p.releasedAt),
    firstSubmittedAt: earliest(before.firstSubmittedAt, p.submittedAt),
    completedAt: earliest(before.completedAt, p.completedAt),
  };
  return { before, after };
}

/** Writes a job's row as folded (and the durations flags the caller settled). */
export async function saveJob(tx: Tx, row: JobFacts): Promise<void> {
  const { jobId, ...rest } = row;
  await tx.update(jobs).set(rest).where(eq(jobs.jobId, jobId));
}

/** The admin cleared every job: none is waiting any more (the history per day stays). */
export async function clearJobs(tx: Q): Promise<void> {
  await tx.execute(sql`DELETE FROM ${jobs}`);
  await tx.execute(sql`DELETE FROM ${summaries}`);
}

/**
 * The first summary of a job's or pack's reports as they were after `lastSubmissionAt`: true
 * once per scope and last submission (a later submission counts again; a recomputation for the
 * same reports, or an older event arriving late, does not).
 */
export async function firstSummaryOf(
  tx: Q,
  scopeId: string,
  lastSubmissionAt: Date,
): Promise<boolean> {
  const rows = await tx
    .insert(summaries)
    .values({ scopeId, lastSubmissionAt })
    .onConflictDoUpdate({
      target: summaries.scopeId,
      set: { lastSubmissionAt },
      where: sql`${summaries.lastSubmissionAt} < ${lastSubmissionAt.toISOString()}::timestamptz`,
    })
    .returning({ scopeId: summaries.scopeId });
  return rows.length > 0;
}

/** A tester's approval and country, unless a later identity event already said otherwise. */
export async function recordTesterApproval(
  tx: Q,
  t: { userId: string; approved: boolean; country: string | null; asOf: Date },
): Promise<void> {
  await tx
    .insert(testers)
    .values({ userId: t.userId, approved: t.approved, country: t.country, approvalAsOf: t.asOf })
    .onConflictDoUpdate({
      target: testers.userId,
      set: { approved: t.approved, country: t.country, approvalAsOf: t.asOf },
      setWhere: sql`${testers.approvalAsOf} IS NULL OR ${testers.approvalAsOf} <= ${t.asOf.toISOString()}::timestamptz`,
    });
}

/** A tester claimed or submitted at `at` (the latest activity is kept). */
export async function recordTesterActivity(tx: Q, userId: string, at: Date): Promise<void> {
  await tx
    .insert(testers)
    .values({ userId, lastActiveAt: at })
    .onConflictDoUpdate({
      target: testers.userId,
      set: { lastActiveAt: sql`GREATEST(${testers.lastActiveAt}, excluded.last_active_at)` },
    });
}

/** Empties the projection and the handled event ids in one transaction (the rebuild's first step). */
export async function dropProjection(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(
      sql`TRUNCATE ${daily}, ${dailyDemand}, ${durations}, ${jobs}, ${summaries}, ${testers}, ${handledEvents}`,
    );
  });
}
