import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { jobs, users } from './schema.js';

type Q = Db | Tx;

/** Records (or updates) where a user is written to. */
export async function upsertUser(
  db: Q,
  u: { id: string; email: string; name: string },
): Promise<void> {
  await db
    .insert(users)
    .values({ ...u, email: u.email.toLowerCase() })
    .onConflictDoUpdate({
      target: users.id,
      set: { email: u.email.toLowerCase(), name: u.name, updatedAt: new Date() },
    });
}

/** Records a tester's approval; answers whether it just turned true (it was not true before). */
export async function recordApproval(
  db: Q,
  u: { id: string; email: string; name: string; approved: boolean },
): Promise<boolean> {
  const [before] = await db
    .select({ approved: users.approved })
    .from(users)
    .where(eq(users.id, u.id))
    .for('update');
  const set = {
    email: u.email.toLowerCase(),
    name: u.name,
    approved: u.approved,
    updatedAt: new Date(),
  };
  await db
    .insert(users)
    .values({ id: u.id, ...set })
    .onConflictDoUpdate({ target: users.id, set });
  return u.approved && before?.approved !== true;
}

export async function findUser(db: Q, id: string) {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row;
}

export async function upsertJob(
  db: Q,
  j: { id: string; posterId: string; title: string },
): Promise<void> {
  await db
    .insert(jobs)
    .values(j)
    .onConflictDoUpdate({ target: jobs.id, set: { posterId: j.posterId, title: j.title } });
}

export async function findJob(db: Q, id: string) {
  const [row] = await db.select().from(jobs).where(eq(jobs.id, id)).limit(1);
  return row;
}

/** Every job of the projection goes (the admin cleared all jobs). */
export async function clearJobs(db: Q): Promise<void> {
  await db.execute(sql`DELETE FROM ${jobs}`);
}
