import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import {
  jobs,
  shareLinks,
  siteChecks,
  users,
  type ShareLinkRow,
  type SiteCheckRow,
} from './schema.js';
import { isUuid } from './job.repository.js';

type Q = Db | Tx;

/** The live or expired link of a job or of a pack (their ids never meet); a revoked one is none. */
export async function findShareLinkOf(db: Q, id: string): Promise<ShareLinkRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await db
    .select()
    .from(shareLinks)
    .where(and(eq(shareLinks.jobId, id), isNull(shareLinks.revokedAt)))
    .limit(1);
  return row;
}

export async function findShareLinkByHash(
  db: Q,
  tokenHash: string,
): Promise<ShareLinkRow | undefined> {
  const [row] = await db
    .select()
    .from(shareLinks)
    .where(and(eq(shareLinks.tokenHash, tokenHash), isNull(shareLinks.revokedAt)))
    .limit(1);
  return row;
}

/**
 * The job's (or the pack's) live link, or a new one when it has none, it expired or it was
 * revoked (the new one takes the revoked one's place): one
 * statement, so two simultaneous requests end with the same link (the loser's insert changes
 * nothing). `jobId` is the pack's id for scope 'pack'.
 */
export async function upsertShareLink(
  db: Q,
  link: {
    jobId: string;
    scope: 'job' | 'pack';
    nonce: string;
    tokenHash: string;
    createdBy: string;
    expiresAt: Date;
  },
): Promise<ShareLinkRow> {
  await db
    .insert(shareLinks)
    .values(link)
    .onConflictDoUpdate({
      target: shareLinks.jobId,
      set: {
        nonce: link.nonce,
        tokenHash: link.tokenHash,
        createdBy: link.createdBy,
        createdAt: sql`now()`,
        expiresAt: link.expiresAt,
        revokedAt: null,
      },
      setWhere: sql`${shareLinks.expiresAt} <= now() OR ${shareLinks.revokedAt} IS NOT NULL`,
    });
  const [row] = await db.select().from(shareLinks).where(eq(shareLinks.jobId, link.jobId)).limit(1);
  return row;
}

/**
 * Revokes the link of a job or of a pack: it opens nothing from now on; the row stays, marked, so
 * that its owner's data export says it was revoked (until a new link takes its place). It expires
 * now too: a process of the previous release (which deleted the row and knows no revoked_at)
 * reads it as gone during a rolling deploy.
 */
export async function revokeShareLinkRow(db: Q, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const gone = await db
    .update(shareLinks)
    .set({ revokedAt: sql`now()`, expiresAt: sql`least(${shareLinks.expiresAt}, now())` })
    .where(and(eq(shareLinks.jobId, id), isNull(shareLinks.revokedAt)))
    .returning({ jobId: shareLinks.jobId });
  return gone.length > 0;
}

/** The tester's country from the users projection (the report shows first name and country only). */
export async function testerCountry(db: Q, testerId: string): Promise<string | null> {
  const [row] = await db
    .select({ country: users.country })
    .from(users)
    .where(eq(users.id, testerId))
    .limit(1);
  return row?.country ?? null;
}

/**
 * SiteChecked / SiteCheckFailed of a job: the latest announcement wins (one per job is sent). A
 * job that is gone (cleared, or withdrawn with its deleted poster) while its check ran keeps none.
 */
export async function saveSiteCheck(
  tx: Tx,
  row: {
    jobId: string;
    state: 'done' | 'failed';
    checkedAt: Date;
    status: string | null;
    summary: SiteCheckRow['summary'];
    failureReason: string | null;
  },
): Promise<void> {
  if (!isUuid(row.jobId)) return;
  const [job] = await tx
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.id, row.jobId), isNull(jobs.deletedAt)))
    .limit(1);
  if (!job) return;
  const { state, checkedAt, status, summary, failureReason } = row;
  await tx.insert(siteChecks).values(row).onConflictDoUpdate({
    target: siteChecks.jobId,
    set: { state, checkedAt, status, summary, failureReason },
  });
}

/** The admin's clear-all: every job's health check goes with the jobs. */
export async function deleteAllSiteChecks(tx: Tx): Promise<void> {
  await tx.delete(siteChecks);
}

export async function findSiteCheck(db: Q, jobId: string): Promise<SiteCheckRow | undefined> {
  if (!isUuid(jobId)) return undefined;
  const [row] = await db.select().from(siteChecks).where(eq(siteChecks.jobId, jobId)).limit(1);
  return row;
}
