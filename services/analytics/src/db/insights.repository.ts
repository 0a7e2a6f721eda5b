import { and, between, eq, sql } from 'drizzle-orm';
import { rowsOf, type Db } from '@htm/service-kit/db';
import { daily, dailyDemand, durations, jobs, testers, type DailyRow } from './schema.js';

/** The day rows that exist between two days (both included), oldest first. */
export async function dayRows(db: Db, from: string, to: string): Promise<DailyRow[]> {
  return db
    .select()
    .from(daily)
    .where(between(daily.day, from, to))
    .orderBy(daily.day);
}

/** A duration metric's histogram over the days: [bucket, count]. */
export async function histogram(
  db: Db,
  metric: string,
  from: string,
  to: string,
): Promise<Array<[number, number]>> {
  const rows = await db
    .select({ bucket: durations.bucket, count: sql<number>`SUM(${durations.count})::int` })
    .from(durations)
    .where(and(eq(durations.metric, metric), between(durations.day, from, to)))
    .groupBy(durations.bucket)
    .orderBy(durations.bucket);
  return rows.map((r) => [r.bucket, Number(r.count)]);
}

export async function demandByGeoRule(
  db: Db,
  from: string,
  to: string,
): Promise<Record<string, number>> {
  const rows = await db
    .select({ geoRule: dailyDemand.geoRule, count: sql<number>`SUM(${dailyDemand.count})::int` })
    .from(dailyDemand)
    .where(between(dailyDemand.day, from, to))
    .groupBy(dailyDemand.geoRule);
  return Object.fromEntries(rows.map((r) => [r.geoRule, Number(r.count)]));
}

/**
 * Paid, unfinished jobs nobody holds now (never claimed, or released after their last claim),
 * counted as waiting longer than each threshold (hours) since they were paid or last released.
 */
export async function waitingCounts(
  db: Db,
  thresholdsHours: readonly number[],
  now: Date,
): Promise<number[]> {
  const cols = thresholdsHours.map(
    (h, i) =>
      sql`COUNT(*) FILTER (WHERE GREATEST(${jobs.paidAt}, ${jobs.lastReleasedAt}) < ${new Date(now.getTime() - h * 3600_000).toISOString()}::timestamptz)::int AS ${sql.identifier(`c${i}`)}`,
  );
  const r = await db.execute(sql`
    SELECT ${sql.join(cols, sql`, `)}
    FROM ${jobs}
    WHERE ${jobs.completedAt} IS NULL AND ${jobs.paidAt} IS NOT NULL
      AND (${jobs.lastClaimedAt} IS NULL OR ${jobs.lastReleasedAt} > ${jobs.lastClaimedAt})`);
  const row = rowsOf<Record<string, number>>(r)[0] ?? {};
  return thresholdsHours.map((_, i) => Number(row[`c${i}`] ?? 0));
}

export async function approvedTestersByCountry(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .select({
      country: sql<string>`COALESCE(${testers.country}, 'unknown')`,
      count: sql<number>`COUNT(*)::int`,
    })
    .from(testers)
    .where(eq(testers.approved, true))
    .groupBy(sql`1`);
  return Object.fromEntries(rows.map((r) => [r.country, Number(r.count)]));
}

export async function activeTesters(db: Db, since: Date): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`COUNT(*)::int` })
    .from(testers)
    .where(sql`${testers.lastActiveAt} >= ${since.toISOString()}::timestamptz`);
  return Number(row?.count ?? 0);
}

/** Tests delivered (accepted by the poster, the admin or automatically) over the whole history. */
export async function deliveredTotal(db: Db): Promise<number> {
  const [row] = await db
    .select({
      count: sql<number>`COALESCE(SUM(${daily.completedPoster} + ${daily.completedAdmin} + ${daily.completedAuto}), 0)::int`,
    })
    .from(daily);
  return Number(row?.count ?? 0);
}

/** A duration metric's histogram over the whole history: [bucket, count]. */
export async function histogramAllTime(db: Db, metric: string): Promise<Array<[number, number]>> {
  const rows = await db
    .select({ bucket: durations.bucket, count: sql<number>`SUM(${durations.count})::int` })
    .from(durations)
    .where(eq(durations.metric, metric))
    .groupBy(durations.bucket)
    .orderBy(durations.bucket);
  return rows.map((r) => [r.bucket, Number(r.count)]);
}
