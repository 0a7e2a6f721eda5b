import { and, desc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { messages, preferences, reportSummaries, type MessageRow } from './schema.js';

type Q = Db | Tx;

/** Queues one e-mail (due now, or at `nextAttemptAt`); a second call for the same event, kind and user adds nothing. */
export async function enqueueMessage(
  db: Q,
  m: {
    eventId: string;
    kind: string;
    userId: string;
    data: Record<string, unknown>;
    correlationId?: string;
    nextAttemptAt?: Date;
  },
): Promise<void> {
  await db
    .insert(messages)
    .values(m)
    .onConflictDoNothing({ target: [messages.eventId, messages.kind, messages.userId] });
}

/** A problem of a report's summary as the results e-mail lists it. */
export interface SummaryProblemLine {
  title: string;
  severity: string | null;
  testersHit: number;
  testersTotal: number;
}

/** A job's or pack's latest summary (ReportSummarized): an older one arriving late changes nothing. */
export async function saveReportSummary(
  tx: Tx,
  s: {
    scopeId: string;
    jobIds: string[];
    problems: SummaryProblemLine[];
    lastSubmissionAt: Date;
    summarizedAt: Date;
  },
): Promise<void> {
  await tx
    .insert(reportSummaries)
    .values(s)
    .onConflictDoUpdate({
      target: reportSummaries.scopeId,
      set: {
        jobIds: s.jobIds,
        problems: s.problems,
        lastSubmissionAt: s.lastSubmissionAt,
        summarizedAt: s.summarizedAt,
      },
      setWhere: sql`${reportSummaries.summarizedAt} <= ${s.summarizedAt}`,
    });
}

/** How to tell that a summary counts a report: by its newest report, or by when it was made. */
export type SummaryCounting = { submittedAt: Date } | { summarizedSince: Date };

/** The first problems of this job's (or pack's) summary when it already counts the report. */
export async function summaryCounting(
  tx: Tx,
  scopeId: string,
  jobId: string,
  counting: SummaryCounting,
): Promise<SummaryProblemLine[] | null> {
  const [row] = await tx
    .select()
    .from(reportSummaries)
    .where(eq(reportSummaries.scopeId, scopeId))
    .limit(1);
  if (!row || !row.jobIds.includes(jobId)) return null;
  const counts =
    'submittedAt' in counting
      ? row.lastSubmissionAt >= counting.submittedAt
      : row.summarizedAt >= counting.summarizedSince;
  return counts ? row.problems : null;
}

/**
 * The results e-mails still waiting for their report's summary (issue #51), for these jobs: the
 * summary's first problems go in and they are due now. A job of a pack waits for the pack's
 * summary (what its testers agree on), not its own. Answers how many were released.
 */
export async function attachSummaryToResults(
  tx: Tx,
  s: {
    scope: 'job' | 'pack';
    jobIds: string[];
    packId: string | null;
    problems: SummaryProblemLine[];
  },
): Promise<number> {
  if (!s.jobIds.length) return 0;
  const waiting = await tx
    .select({ id: messages.id, data: messages.data })
    .from(messages)
    .where(
      and(
        eq(messages.kind, 'work_submitted'),
        eq(messages.status, 'pending'),
        sql`${messages.data}->>'awaitingSummary' = 'true'`,
        inArray(sql`${messages.data}->>'jobId'`, s.jobIds),
      ),
    );
  let released = 0;
  for (const m of waiting) {
    if (s.scope === 'job' && m.data.packId) continue;
    await tx
      .update(messages)
      .set({
        data: { ...m.data, awaitingSummary: false, problems: s.problems, packId: s.packId },
        nextAttemptAt: new Date(),
      })
      .where(eq(messages.id, m.id));
    released++;
  }
  return released;
}

/**
 * Takes up to `limit` due messages for sending: their next attempt moves `leaseMs` ahead, so
 * another sender (replica) does not take them meanwhile, and a sender that dies mid-send leaves
 * them to be retried after the lease.
 */
export async function leaseDueMessages(
  db: Db,
  limit: number,
  leaseMs: number,
): Promise<MessageRow[]> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.status, 'pending'), lte(messages.nextAttemptAt, sql`now()`)))
      .orderBy(messages.nextAttemptAt)
      .limit(limit)
      .for('update', { skipLocked: true });
    if (!due.length) return [];
    return tx
      .update(messages)
      .set({ nextAttemptAt: sql`now() + ${`${leaseMs} milliseconds`}::interval` })
      .where(
        inArray(
          messages.id,
          due.map((d) => d.id),
        ),
      )
      .returning();
  });
}

export async function markSent(
  db: Db,
  id: string,
  sent: { toEmail: string; subject: string; text: string },
): Promise<void> {
  await db
    .update(messages)
    .set({ ...sent, status: 'sent', sentAt: new Date(), lastError: null })
    .where(eq(messages.id, id));
}

export async function markSuppressed(db: Db, id: string, why: string): Promise<void> {
  await db
    .update(messages)
    .set({ status: 'suppressed', lastError: why })
    .where(eq(messages.id, id));
}

export async function markFailed(
  db: Db,
  id: string,
  error: string,
  retryInMs: number,
): Promise<void> {
  await db
    .update(messages)
    .set({
      attempts: sql`${messages.attempts} + 1`,
      lastError: error.slice(0, 500),
      nextAttemptAt: new Date(Date.now() + retryInMs),
    })
    .where(eq(messages.id, id));
}

export async function pendingCount(db: Db): Promise<number> {
  const [r] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(messages)
    .where(eq(messages.status, 'pending'));
  return Number(r?.n ?? 0);
}

/** Sent messages to one address, newest first (GET /api/dev/mail). */
export async function sentTo(db: Db, email: string, limit = 100): Promise<MessageRow[]> {
  return db
    .select()
    .from(messages)
    .where(and(eq(messages.toEmail, email.toLowerCase()), eq(messages.status, 'sent')))
    .orderBy(desc(messages.sentAt))
    .limit(limit);
}

/** A user's switched-off kinds and switched-on opt-in kinds (none stored: the defaults). */
export async function preferencesOf(
  db: Q,
  userId: string,
): Promise<{ disabled: string[]; enabled: string[] }> {
  const [row] = await db
    .select({ disabled: preferences.disabled, enabled: preferences.enabled })
    .from(preferences)
    .where(eq(preferences.userId, userId))
    .limit(1);
  return { disabled: row?.disabled ?? [], enabled: row?.enabled ?? [] };
}

export async function setPreferences(
  db: Q,
  userId: string,
  p: { disabled: string[]; enabled: string[] },
): Promise<void> {
  await db
    .insert(preferences)
    .values({ userId, ...p })
    .onConflictDoUpdate({ target: preferences.userId, set: { ...p, updatedAt: new Date() } });
}

/** Whether an e-mail of this kind was ever queued for this recipient (the landing signup's approval). */
export async function wasQueued(db: Q, userId: string, kind: string): Promise<boolean> {
  const [row] = await db
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.userId, userId), eq(messages.kind, kind)))
    .limit(1);
  return Boolean(row);
}
