import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { rowsOf, type Db, type Tx } from '@htm/service-kit/db';
import {
  findingLinks,
  recordings,
  reportSummaries,
  submissions,
  type FindingLinkRow,
  type RecordingRow,
  type ReportSummaryRow,
  type SubmissionRow,
} from './schema.js';

type Q = Db | Tx;

export type SummaryScope = 'job' | 'pack';

/**
 * In the transaction of a change to what a summary is made of: the summary of `scopeId` is to be
 * computed again (the first request creates the row). Requests are counted (request_seq), so one
 * that committed after a computation began is never taken for answered by it.
 */
export async function requestSummary(tx: Tx, scopeId: string, scope: SummaryScope): Promise<void> {
  await tx
    .insert(reportSummaries)
    .values({ scopeId, scope })
    .onConflictDoUpdate({
      target: reportSummaries.scopeId,
      set: {
        requestSeq: sql`${reportSummaries.requestSeq} + 1`,
        requestedAt: sql`now()`,
        nextAttemptAt: sql`now()`,
      },
    });
}

export interface SummaryLease {
  scopeId: string;
  scope: SummaryScope;
  /** The request this computation answers (request_seq when leased). */
  requestSeq: number;
}

/**
 * Leases up to `limit` summaries waiting to be computed, oldest request first (FOR UPDATE SKIP
 * LOCKED: every jobs process may poll; one that dies mid-way leaves the row to the next lease).
 */
export async function leaseDueSummaries(
  db: Q,
  limit: number,
  leaseMs: number,
): Promise<SummaryLease[]> {
  type Leased = { scope_id: string; scope: string; request_seq: string | number };
  const rows = await db.execute<Leased>(sql`
    UPDATE jobs.report_summaries s
    SET lease_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = s.attempts + 1
    WHERE s.scope_id IN (
      SELECT s2.scope_id FROM jobs.report_summaries s2
      WHERE s2.computed_seq < s2.request_seq
        AND s2.next_attempt_at <= now()
        AND (s2.lease_until IS NULL OR s2.lease_until < now())
      ORDER BY s2.requested_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
    ) RETURNING s.scope_id, s.scope, s.request_seq`);
  return rowsOf<Leased>(rows).map((r) => ({
    scopeId: r.scope_id,
    scope: r.scope as SummaryScope,
    requestSeq: Number(r.request_seq),
  }));
}

/** A computation that failed is tried again at `at`. */
export async function deferSummary(db: Q, scopeId: string, at: Date): Promise<void> {
  await db
    .update(reportSummaries)
    .set({ nextAttemptAt: at, leaseUntil: null })
    .where(eq(reportSummaries.scopeId, scopeId));
}

/**
 * The summary computed for the leased request. Its content is replaced only when its input hash
 * differs (the same input keeps the same summary, generated_at included). Answers 'changed',
 * 'unchanged', or 'stale' when another process stored an answer to this request already.
 */
export async function storeSummary(
  tx: Tx,
  lease: SummaryLease,
  s: {
    inputHash: string;
    summary: Record<string, unknown> | null;
    generatedAt: Date;
    lastSubmissionAt: Date | null;
  },
): Promise<'changed' | 'unchanged' | 'stale'> {
  const [before] = await tx
    .select({ inputHash: reportSummaries.inputHash, computedSeq: reportSummaries.computedSeq })
    .from(reportSummaries)
    .where(eq(reportSummaries.scopeId, lease.scopeId))
    .for('update');
  if (!before) return 'stale';
  if (before.computedSeq >= lease.requestSeq) {
    await tx
      .update(reportSummaries)
      .set({ leaseUntil: null })
      .where(eq(reportSummaries.scopeId, lease.scopeId));
    return 'stale';
  }
  const changed = before.inputHash !== s.inputHash;
  await tx
    .update(reportSummaries)
    .set({
      computedSeq: lease.requestSeq,
      leaseUntil: null,
      attempts: 0,
      ...(changed
        ? {
            inputHash: s.inputHash,
            summary: s.summary,
            generatedAt: s.generatedAt,
            lastSubmissionAt: s.lastSubmissionAt,
          }
        : {}),
    })
    .where(eq(reportSummaries.scopeId, lease.scopeId));
  return changed ? 'changed' : 'unchanged';
}

export async function findSummary(db: Q, scopeId: string): Promise<ReportSummaryRow | undefined> {
  const [row] = await db
    .select()
    .from(reportSummaries)
    .where(eq(reportSummaries.scopeId, scopeId))
    .limit(1);
  return row;
}

/**
 * The submissions a summary counts: the given ones (each job's current one) that no session check
 * holds (submissions.held, issue #52), oldest first.
 */
export async function summarySubmissions(db: Q, ids: string[]): Promise<SubmissionRow[]> {
  if (!ids.length) return [];
  return db
    .select()
    .from(submissions)
    .where(and(inArray(submissions.id, ids), eq(submissions.held, false)))
    .orderBy(asc(submissions.submittedAt), asc(submissions.id));
}

export async function recordingsByIds(db: Q, ids: string[]): Promise<RecordingRow[]> {
  if (!ids.length) return [];
  return db.select().from(recordings).where(inArray(recordings.id, ids));
}

/** A finding by its submission and index. */
export interface FindingKey {
  submissionId: string;
  index: number;
}

const ordered = (x: FindingKey, y: FindingKey): [FindingKey, FindingKey] =>
  x.submissionId < y.submissionId || (x.submissionId === y.submissionId && x.index < y.index)
    ? [x, y]
    : [y, x];

/**
 * Records "same problem" decisions about pairs of findings of a scope. The owner's replace any
 * decision on the pair; a tester's never replace the owner's.
 */
export async function decideFindingPairs(
  tx: Tx,
  scopeId: string,
  pairs: Array<[FindingKey, FindingKey]>,
  same: boolean,
  by: 'tester' | 'owner',
  at: Date,
): Promise<void> {
  for (const [x, y] of pairs) {
    const [a, b] = ordered(x, y);
    if (a.submissionId === b.submissionId && a.index === b.index) continue;
    const values = {
      scopeId,
      aSubmissionId: a.submissionId,
      aIndex: a.index,
      bSubmissionId: b.submissionId,
      bIndex: b.index,
      same,
      decidedBy: by,
      decidedAt: at,
    };
    await tx
      .insert(findingLinks)
      .values(values)
      .onConflictDoUpdate({
        target: [
          findingLinks.scopeId,
          findingLinks.aSubmissionId,
          findingLinks.aIndex,
          findingLinks.bSubmissionId,
          findingLinks.bIndex,
        ],
        set: { same, decidedBy: by, decidedAt: at },
        where: by === 'owner' ? undefined : sql`${findingLinks.decidedBy} <> 'owner'`,
      });
  }
}

/** The decisions about findings of these submissions in a scope, oldest first. */
export async function findingLinksOf(
  db: Q,
  scopeId: string,
  submissionIds: string[],
): Promise<FindingLinkRow[]> {
  if (!submissionIds.length) return [];
  return db
    .select()
    .from(findingLinks)
    .where(
      and(
        eq(findingLinks.scopeId, scopeId),
        inArray(findingLinks.aSubmissionId, submissionIds),
        inArray(findingLinks.bSubmissionId, submissionIds),
      ),
    )
    .orderBy(asc(findingLinks.decidedAt));
}

/** Clear-all: every stored summary and decision goes with the jobs. */
export async function deleteAllSummaries(tx: Tx): Promise<void> {
  await tx.delete(findingLinks);
  await tx.delete(reportSummaries);
}
