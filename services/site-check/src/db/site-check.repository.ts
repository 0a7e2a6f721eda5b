import { and, asc, eq, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { SiteCheckFailureReason, SiteCheckStatus, SiteCheckSummary } from '@htm/contracts';
import type { Db, Tx } from '@htm/service-kit/db';
import type { StoredSizeDetail } from '../domain/check-result.js';
import { checks, jobs, screenshots, type CheckRow, type JobRow } from './schema.js';

/** All SQL of the site-check service: one function per state change, the reads beside them. */

export async function noteJobCreated(
  tx: Tx,
  d: { jobId: string; posterId: string; url: string },
): Promise<void> {
  await tx
    .insert(jobs)
    .values(d)
    .onConflictDoUpdate({ target: jobs.jobId, set: { posterId: d.posterId, url: d.url } });
}

export async function noteJobPaid(
  tx: Tx,
  d: { jobId: string; posterId: string; sessionId: string; paidAt: Date },
): Promise<void> {
  await tx
    .insert(jobs)
    .values(d)
    .onConflictDoUpdate({
      target: jobs.jobId,
      // The first payment counts (a later JobPaid of the same job is a redelivery's twin).
      set: {
        posterId: d.posterId,
        sessionId: sql`coalesce(${jobs.sessionId}, ${d.sessionId})`,
        paidAt: sql`coalesce(${jobs.paidAt}, ${d.paidAt.toISOString()}::timestamptz)`,
      },
    });
}

/** The tester now holding the job (claimed or assigned). */
export async function noteHolder(tx: Tx, jobId: string, testerId: string): Promise<void> {
  await tx
    .insert(jobs)
    .values({ jobId, testerId })
    .onConflictDoUpdate({ target: jobs.jobId, set: { testerId } });
}

/** The job went back to open: that tester no longer holds it. */
export async function clearHolder(tx: Tx, jobId: string, testerId: string): Promise<void> {
  await tx
    .update(jobs)
    .set({ testerId: null })
    .where(and(eq(jobs.jobId, jobId), eq(jobs.testerId, testerId)));
}

/**
 * A deleted account: the jobs it posted that were never paid go (jobs deletes them too; their
 * paid jobs nobody started follow with JobsWithdrawn), and its id leaves the jobs that stay (a
 * tester's work on them keeps their report, and the health check with it).
 */
export async function forgetUser(tx: Tx, userId: string): Promise<void> {
  await tx.delete(jobs).where(and(eq(jobs.posterId, userId), isNull(jobs.paidAt)));
  await tx.update(jobs).set({ posterId: null }).where(eq(jobs.posterId, userId));
  await tx.update(jobs).set({ testerId: null }).where(eq(jobs.testerId, userId));
}

/**
 * Jobs that left the marketplace (JobsWithdrawn: a deleted poster's paid jobs nobody started):
 * their rows go, and the check of a checkout none of whose jobs is left, with its screenshots.
 */
export async function forgetJobs(tx: Tx, jobIds: string[]): Promise<void> {
  if (!jobIds.length) return;
  const gone = await tx
    .delete(jobs)
    .where(inArray(jobs.jobId, jobIds))
    .returning({ sessionId: jobs.sessionId });
  const sessions = [...new Set(gone.map((g) => g.sessionId).filter((s): s is string => !!s))];
  if (sessions.length) await dropChecksWithoutJobs(tx, sessions);
}

/**
 * The admin's clear-all (JobsCleared): every job this service knows from JobCreated goes, with
 * every check left without a job and its screenshots. A row with no URL yet is a job whose
 * JobCreated comes later on the jobs stream (posted after the clear; its JobPaid arrived first on
 * the payments stream): it stays. A check still running finds its row gone and is dropped.
 */
export async function clearJobs(tx: Tx): Promise<void> {
  await tx.delete(jobs).where(isNotNull(jobs.url));
  await dropChecksWithoutJobs(tx);
}

/** Checks (of these checkouts, or of any) none of whose jobs is known any more, and their screenshots. */
async function dropChecksWithoutJobs(tx: Tx, sessions?: string[]): Promise<void> {
  const orphan = sql`NOT EXISTS (SELECT 1 FROM ${jobs} WHERE ${jobs.sessionId} = ${checks.sessionId})`;
  const dropped = await tx
    .delete(checks)
    .where(sessions ? and(inArray(checks.sessionId, sessions), orphan) : orphan)
    .returning({ id: checks.id });
  if (dropped.length)
    await tx.delete(screenshots).where(
      inArray(
        screenshots.checkId,
        dropped.map((d) => d.id),
      ),
    );
}

export async function findJob(db: Db | Tx, jobId: string): Promise<JobRow | undefined> {
  const [row] = await db.select().from(jobs).where(eq(jobs.jobId, jobId));
  return row;
}

/** The check of a checkout, made (pending) the first time one of its jobs is known paid and its URL known. */
export async function ensureCheck(
  tx: Tx,
  sessionId: string,
  url: string,
  failed?: { reason: SiteCheckFailureReason; detail: string },
): Promise<CheckRow> {
  await tx
    .insert(checks)
    .values({
      sessionId,
      url,
      ...(failed
        ? {
            state: 'failed',
            finishedAt: new Date(),
            failureReason: failed.reason,
            failureDetail: failed.detail,
          }
        : {}),
    })
    .onConflictDoNothing({ target: checks.sessionId });
  const [row] = await tx.select().from(checks).where(eq(checks.sessionId, sessionId));
  return row;
}

export async function findCheckOfSession(
  db: Db | Tx,
  sessionId: string,
): Promise<CheckRow | undefined> {
  const [row] = await db.select().from(checks).where(eq(checks.sessionId, sessionId));
  return row;
}

/**
 * Takes up to `n` checks to run: pending ones, and running ones whose worker's lease ran out
 * (it died mid-check) while they have attempts left, oldest first; each is leased for `leaseMs`.
 * Concurrent workers (replicas) never take the same check (SKIP LOCKED).
 */
export async function leaseChecks(
  db: Db,
  n: number,
  leaseMs: number,
  maxAttempts: number,
): Promise<CheckRow[]> {
  if (n <= 0) return [];
  const now = new Date();
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ id: checks.id })
      .from(checks)
      .where(
        or(
          eq(checks.state, 'pending'),
          and(
            eq(checks.state, 'running'),
            lt(checks.leaseUntil, now),
            lt(checks.attempts, maxAttempts),
          ),
        ),
      )
      .orderBy(asc(checks.createdAt))
      .limit(n)
      .for('update', { skipLocked: true });
    if (!due.length) return [];
    return tx
      .update(checks)
      .set({
        state: 'running',
        attempts: sql`${checks.attempts} + 1`,
        leaseUntil: new Date(now.getTime() + leaseMs),
        startedAt: now,
      })
      .where(
        inArray(
          checks.id,
          due.map((d) => d.id),
        ),
      )
      .returning();
  });
}

/** Running checks whose lease ran out with no attempt left (their worker died each time). */
export async function abandonedChecks(db: Db, maxAttempts: number): Promise<CheckRow[]> {
  return db
    .select()
    .from(checks)
    .where(
      and(
        eq(checks.state, 'running'),
        lt(checks.leaseUntil, new Date()),
        sql`${checks.attempts} >= ${maxAttempts}`,
      ),
    )
    .limit(20);
}

/** Stores a finished check's results; false when it is not running any more (another worker finished it). */
export async function saveCheckDone(
  tx: Tx,
  id: string,
  r: {
    status: SiteCheckStatus;
    summary: SiteCheckSummary;
    details: StoredSizeDetail[];
    links: NonNullable<CheckRow['links']>;
    blocked: NonNullable<CheckRow['blocked']>;
    screenshots: Array<{ size: string; dataUrl: string }>;
    at: Date;
  },
): Promise<CheckRow | undefined> {
  const [row] = await tx
    .update(checks)
    .set({
      state: 'done',
      status: r.status,
      summary: r.summary,
      details: r.details,
      links: r.links,
      blocked: r.blocked,
      finishedAt: r.at,
      leaseUntil: null,
    })
    .where(and(eq(checks.id, id), eq(checks.state, 'running')))
    .returning();
  if (row && r.screenshots.length)
    await tx.insert(screenshots).values(r.screenshots.map((s) => ({ checkId: id, ...s })));
  return row;
}

export async function saveCheckFailed(
  tx: Tx,
  id: string,
  reason: SiteCheckFailureReason,
  detail: string,
  at: Date,
): Promise<CheckRow | undefined> {
  const [row] = await tx
    .update(checks)
    .set({
      state: 'failed',
      failureReason: reason,
      failureDetail: detail.slice(0, 500),
      finishedAt: at,
      leaseUntil: null,
    })
    .where(and(eq(checks.id, id), eq(checks.state, 'running')))
    .returning();
  return row;
}

/** The jobs of a checkout not yet told the check's result; marked told. */
export async function takeJobsToAnnounce(tx: Tx, sessionId: string): Promise<string[]> {
  const rows = await tx
    .update(jobs)
    .set({ announcedAt: new Date() })
    .where(and(eq(jobs.sessionId, sessionId), isNull(jobs.announcedAt)))
    .returning({ jobId: jobs.jobId });
  return rows.map((r) => r.jobId);
}

export async function screenshotsOf(
  db: Db,
  checkId: string,
): Promise<Array<{ size: string; dataUrl: string }>> {
  return db
    .select({ size: screenshots.size, dataUrl: screenshots.dataUrl })
    .from(screenshots)
    .where(eq(screenshots.checkId, checkId));
}

/** Checks waiting for or taken by a worker (the queue-depth metric and KEDA's query). */
export async function queuedChecks(db: Db): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(checks)
    .where(inArray(checks.state, ['pending', 'running']));
  return row?.n ?? 0;
}
