import { and, eq, gte, isNotNull, sql } from 'drizzle-orm';
import type { Tx } from '@htm/service-kit/db';
import { digestJobs, jobs, preferences, testedSites, users } from './schema.js';

/** A tester who switched the job digest on, with what decides which jobs they may take. */
export interface DigestTester {
  id: string;
  approved: boolean | null;
  country: string | null;
  assistiveTech: string[];
  /** siteKey()s (poster|host) of the sites they submitted work on. */
  testedSites: string[];
  /** Jobs already announced to them. */
  announced: string[];
  lastDigestAt: Date | null;
}

export type DigestJob = typeof jobs.$inferSelect;

/** Only one replica runs a digest round at a time (the lock ends with the transaction). */
export async function tryDigestLock(tx: Tx): Promise<boolean> {
  const rows = await tx.execute<{ ok: boolean }>(
    sql`SELECT pg_try_advisory_xact_lock(hashtext('notifications:job_digest')) AS ok`,
  );
  const list = (
    Array.isArray(rows) ? rows : (rows as { rows: Array<{ ok: boolean }> }).rows
  ) as Array<{ ok: boolean }>;
  return Boolean(list[0]?.ok);
}

/** Approved testers with a country who switched the digest on. */
export async function digestCandidates(tx: Tx): Promise<DigestTester[]> {
  const rows = await tx
    .select({
      id: users.id,
      approved: users.approved,
      country: users.country,
      assistiveTech: users.assistiveTech,
      lastDigestAt: users.lastDigestAt,
      testedSites: sql<
        string[]
      >`coalesce((SELECT array_agg(${testedSites.siteHost}) FROM ${testedSites} WHERE ${testedSites.testerId} = ${users.id}), '{}')`,
      announced: sql<
        string[]
      >`coalesce((SELECT array_agg(${digestJobs.jobId}) FROM ${digestJobs} WHERE ${digestJobs.testerId} = ${users.id}), '{}')`,
    })
    .from(users)
    .innerJoin(preferences, eq(preferences.userId, users.id))
    .where(
      and(
        eq(users.approved, true),
        isNotNull(users.country),
        sql`${preferences.enabled} @> '["job_digest"]'::jsonb`,
      ),
    );
  return rows;
}

/** Paid jobs waiting for a tester, paid since `since`. */
export async function openPaidJobs(tx: Tx, since: Date): Promise<DigestJob[]> {
  return tx
    .select()
    .from(jobs)
    .where(and(eq(jobs.status, 'open'), isNotNull(jobs.paidAt), gte(jobs.paidAt, since)));
}

/** The jobs announced to a tester in a digest queued at `at`. */
export async function recordDigest(
  tx: Tx,
  testerId: string,
  jobIds: string[],
  at: Date,
): Promise<void> {
  if (jobIds.length)
    await tx
      .insert(digestJobs)
      .values(jobIds.map((jobId) => ({ testerId, jobId })))
      .onConflictDoNothing();
  await tx.update(users).set({ lastDigestAt: at }).where(eq(users.id, testerId));
}
