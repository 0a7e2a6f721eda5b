import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { favourites, jobs, submissions, users } from './schema.js';

type Q = Db | Tx;

/** Whether the poster accepted this tester's work on one of their jobs (a completed job the tester did). */
export async function acceptedWorkOf(db: Q, posterId: string, testerId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(
      and(eq(jobs.posterId, posterId), eq(jobs.testerId, testerId), eq(jobs.status, 'completed')),
    )
    .limit(1);
  return Boolean(row);
}

/** Adds the favourite; false when it was one already. */
export async function insertFavourite(db: Q, posterId: string, testerId: string): Promise<boolean> {
  const rows = await db
    .insert(favourites)
    .values({ posterId, testerId })
    .onConflictDoNothing()
    .returning({ testerId: favourites.testerId });
  return rows.length > 0;
}

export async function deleteFavourite(db: Q, posterId: string, testerId: string): Promise<void> {
  await db
    .delete(favourites)
    .where(and(eq(favourites.posterId, posterId), eq(favourites.testerId, testerId)));
}

export async function isFavourite(db: Q, posterId: string, testerId: string): Promise<boolean> {
  const [row] = await db
    .select({ testerId: favourites.testerId })
    .from(favourites)
    .where(and(eq(favourites.posterId, posterId), eq(favourites.testerId, testerId)))
    .limit(1);
  return Boolean(row);
}

/** Whether the tester may take jobs now (the users projection of identity's approval). */
export async function isApprovedTester(db: Q, testerId: string): Promise<boolean> {
  const [row] = await db
    .select({ approved: users.approved })
    .from(users)
    .where(and(eq(users.id, testerId), eq(users.type, 'tester')))
    .limit(1);
  return row?.approved === true;
}

export interface FavouriteRecord {
  testerId: string;
  name: string;
  ratingSum: number;
  ratingCount: number;
  jobsDone: number;
}

/**
 * The poster's favourites (newest first, or one tester): the name from the users projection (else
 * the name on the tester's latest submission), their stars and how many jobs they completed.
 */
export async function listFavourites(
  db: Q,
  posterId: string,
  testerId?: string,
): Promise<FavouriteRecord[]> {
  return db
    .select({
      testerId: favourites.testerId,
      name: sql<string>`COALESCE(NULLIF(${users.name}, ''), (SELECT ${submissions.submittedByName} FROM ${submissions} WHERE ${submissions.testerId} = ${favourites.testerId} ORDER BY ${submissions.submittedAt} DESC LIMIT 1), '')`,
      ratingSum: sql<number>`COALESCE(${users.ratingSum}, 0)::int`,
      ratingCount: sql<number>`COALESCE(${users.ratingCount}, 0)::int`,
      jobsDone: sql<number>`(SELECT count(*) FROM ${jobs} WHERE ${jobs.testerId} = ${favourites.testerId} AND ${jobs.status} = 'completed')::int`,
    })
    .from(favourites)
    .leftJoin(users, eq(users.id, favourites.testerId))
    .where(
      testerId
        ? and(eq(favourites.posterId, posterId), eq(favourites.testerId, testerId))
        : eq(favourites.posterId, posterId),
    )
    .orderBy(desc(favourites.createdAt), asc(favourites.testerId));
}
