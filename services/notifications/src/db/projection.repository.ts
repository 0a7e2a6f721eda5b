import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { siteKey } from '@htm/contracts/marketplace';
import { jobs, reportSummaries, testedSites, users } from './schema.js';

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

/** A tester's role choice: approval, country (UserRoleChosen of a tester). */
export async function recordTester(
  db: Q,
  u: { id: string; email: string; name: string; approved: boolean; country: string | null },
): Promise<void> {
  const set = { ...u, email: u.email.toLowerCase(), updatedAt: new Date() };
  await db.insert(users).values(set).onConflictDoUpdate({ target: users.id, set });
}

/** Whether a tester (someone whose approval identity announced) has this address. */
export async function isKnownTester(db: Q, email: string): Promise<boolean> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.email, email.toLowerCase()), isNotNull(users.approved)))
    .limit(1);
  return Boolean(row);
}

/** Records a tester's approval; answers whether it just turned true (it was not true before). */
export async function recordApproval(
  db: Q,
  u: {
    id: string;
    email: string;
    name: string;
    approved: boolean;
    country: string | null;
    assistiveTech?: string[];
  },
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
    country: u.country,
    ...(u.assistiveTech ? { assistiveTech: u.assistiveTech } : {}),
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
  j: {
    id: string;
    posterId: string;
    title: string;
    url: string;
    geoRule: string;
    expectedCompletionHours: number;
  },
): Promise<void> {
  const { id: _id, ...set } = j;
  await db.insert(jobs).values(j).onConflictDoUpdate({ target: jobs.id, set });
}

/** jobs' JobPublished: the job is paid and open to the testers it admits. */
export async function publishJob(
  db: Q,
  j: {
    id: string;
    posterId: string;
    title?: string;
    geoRule: string;
    paidAt: Date;
    expectedCompletionHours?: number;
    assistiveTech?: string | null;
    freshEyes?: boolean;
    siteHost?: string | null;
    reservedTesterId?: string | null;
    reservedUntil?: Date | null;
  },
) {
  const set = {
    posterId: j.posterId,
    geoRule: j.geoRule,
    paidAt: j.paidAt,
    status: 'open',
    ...(j.title !== undefined ? { title: j.title } : {}),
    ...(j.expectedCompletionHours !== undefined
      ? { expectedCompletionHours: j.expectedCompletionHours }
      : {}),
    assistiveTech: j.assistiveTech ?? null,
    freshEyes: j.freshEyes ?? false,
    siteHost: j.siteHost ?? null,
    reservedTesterId: j.reservedTesterId ?? null,
    reservedUntil: j.reservedUntil ?? null,
  };
  const [row] = await db
    .insert(jobs)
    .values({ id: j.id, title: j.title ?? '', ...set })
    .onConflictDoUpdate({ target: jobs.id, set })
    .returning();
  return row;
}

/** Taken by a tester (JobClaimed), or waiting for one again (JobReleased). */
export async function setJobStatus(db: Q, id: string, status: 'open' | 'taken'): Promise<void> {
  await db.update(jobs).set({ status }).where(eq(jobs.id, id));
}

/** A tester submitted work on this job: its site is not new to them any more (fresh eyes). */
export async function recordTestedSite(db: Q, testerId: string, jobId: string): Promise<void> {
  const job = await findJob(db, jobId);
  if (!job?.siteHost) return;
  await db
    .insert(testedSites)
    .values({ testerId, siteHost: siteKey(job.posterId, job.siteHost) })
    .onConflictDoNothing();
}

export async function findJob(db: Q, id: string) {
  const [row] = await db.select().from(jobs).where(eq(jobs.id, id)).limit(1);
  return row;
}

/** Every job of the projection goes (the admin cleared all jobs). */
export async function clearJobs(db: Q): Promise<void> {
  await db.execute(sql`DELETE FROM ${jobs}`);
  await db.execute(sql`DELETE FROM ${reportSummaries}`);
}
