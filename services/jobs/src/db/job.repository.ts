import { and, desc, eq, inArray, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { AppError } from '@htm/service-kit/errors';
import { files, jobs, outbox, submissions, users, type FileRow, type JobRow, type SubmissionRow, type UserRow } from './schema.js';

type Q = Db | Tx;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string) => UUID.test(s);

export async function findJob(db: Q, id: string): Promise<JobRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await db.select().from(jobs).where(eq(jobs.id, id)).limit(1);
  return row;
}

export async function getJob(db: Q, id: string): Promise<JobRow> {
  const job = await findJob(db, id);
  if (!job) throw AppError.notFound('Job not found.', 'job_not_found');
  return job;
}

/**
 * Statements on the hot read path (every tester's job list), built and named once per
 * database handle: the SQL text is not rebuilt per request and Postgres keeps the plan.
 */
function hotStatements(db: Db) {
  const findUser = db.select().from(users).where(eq(users.id, sql.placeholder('id'))).limit(1).prepare('jobs_find_user');
  const firstPage = availableJobsQuery(db, { geoRules: sql.placeholder('rules'), limit: sql.placeholder('limit') }).prepare('jobs_available_first');
  const nextPage = availableJobsQuery(db, {
    geoRules: sql.placeholder('rules'),
    limit: sql.placeholder('limit'),
    after: { createdAt: sql.placeholder('afterTs'), id: sql.placeholder('afterId') },
  }).prepare('jobs_available_next');
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

export async function findSubmission(db: Q, id: string | null): Promise<SubmissionRow | undefined> {
  if (!id) return undefined;
  const [row] = await db.select().from(submissions).where(eq(submissions.id, id)).limit(1);
  return row;
}

export async function findFile(db: Q, id: string): Promise<FileRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await db.select().from(files).where(eq(files.id, id)).limit(1);
  return row;
}

export async function filesByIds(db: Q, ids: string[]): Promise<FileRow[]> {
  if (!ids.length) return [];
  return db.select().from(files).where(inArray(files.id, ids));
}

/** Jobs with the poster's e-mail and name (users projection first, else what the token said at creation). */
export async function listJobs(db: Q, where: SQL | undefined, limit = 500): Promise<Array<JobRow & { posterInfo: { email: string; name: string } }>> {
  const rows = await db
    .select({ job: jobs, uEmail: users.email, uName: users.name })
    .from(jobs)
    .leftJoin(users, eq(users.id, jobs.posterId))
    .where(where)
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(limit);
  return rows.map((r) => ({ ...r.job, posterInfo: { email: r.uEmail || r.job.posterEmail, name: r.uName || r.job.posterName } }));
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

/**
 * Paid open jobs a tester may take, newest first, keyset-paginated. Served by the partial
 * index jobs_available_idx (created_at DESC, id DESC WHERE status='open' AND payment_status='paid').
 */
export function availableJobsQuery(
  db: Q,
  opts: { geoRules: string[] | Placeholder; limit: number | Placeholder; after?: { createdAt: string | Placeholder; id: string | Placeholder } },
) {
  const rules = Array.isArray(opts.geoRules) ? sql.param(opts.geoRules) : opts.geoRules;
  const conds: SQL[] = [eq(jobs.status, 'open'), eq(jobs.paymentStatus, 'paid'), sql`${jobs.geoRule} = ANY(${rules}::text[])`];
  if (opts.after) conds.push(sql`(${jobs.createdAt}, ${jobs.id}) < (${opts.after.createdAt}::timestamptz, ${opts.after.id}::uuid)`);
  return db
    .select({ job: jobs, cursorTs: sql<string>`${jobs.createdAt}::text` })
    .from(jobs)
    .where(and(...conds))
    .orderBy(sql`${jobs.createdAt} DESC NULLS LAST`, sql`${jobs.id} DESC NULLS LAST`)
    .limit(opts.limit);
}

/** One page of availableJobsQuery through the prepared statements. */
export async function listAvailableJobs(db: Db, opts: { geoRules: string[]; limit: number; after?: { createdAt: string; id: string } }) {
  const s = hot(db);
  return opts.after
    ? s.nextPage.execute({ rules: opts.geoRules, limit: opts.limit, afterTs: opts.after.createdAt, afterId: opts.after.id })
    : s.firstPage.execute({ rules: opts.geoRules, limit: opts.limit });
}

/**
 * Why a job was last taken from this tester (the reason of our latest JobReleased naming them:
 * 'claim_timeout', 'revision_expired', 'tester_unapproved'), or undefined when it never was, or so
 * long ago that the outbox no longer holds the event.
 */
export async function lastReleaseReason(db: Q, jobId: string, testerId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ reason: sql<string>`${outbox.envelope}->'data'->>'reason'` })
    .from(outbox)
    .where(and(eq(outbox.type, 'JobReleased'), eq(outbox.subject, jobId), sql`${outbox.envelope}->'data'->>'testerId' = ${testerId}`))
    .orderBy(desc(outbox.seq))
    .limit(1);
  return row?.reason;
}

/** Strike against a tester (projection); returns the new count. Three strikes unapprove in the projection too. */
export async function addStrike(tx: Tx, testerId: string): Promise<number> {
  const [row] = await tx
    .insert(users)
    .values({ id: testerId, type: 'tester', strikes: 1 })
    .onConflictDoUpdate({
      target: users.id,
      set: {
        strikes: sql`${users.strikes} + 1`,
        approved: sql`CASE WHEN ${users.strikes} + 1 >= 3 THEN false ELSE ${users.approved} END`,
        updatedAt: new Date(),
      },
    })
    .returning({ strikes: users.strikes });
  return row.strikes;
}
