import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { shareLinks, users, type ShareLinkRow } from './schema.js';
import { isUuid } from './job.repository.js';

type Q = Db | Tx;

export async function findShareLinkOfJob(db: Q, jobId: string): Promise<ShareLinkRow | undefined> {
  if (!isUuid(jobId)) return undefined;
  const [row] = await db.select().from(shareLinks).where(eq(shareLinks.jobId, jobId)).limit(1);
  return row;
}

export async function findShareLinkByHash(
  db: Q,
  tokenHash: string,
): Promise<ShareLinkRow | undefined> {
  const [row] = await db
    .select()
    .from(shareLinks)
    .where(eq(shareLinks.tokenHash, tokenHash))
    .limit(1);
  return row;
}

/**
 * The job's live link, or a new one when it has none or it expired: one statement, so two
 * simultaneous requests end with the same link (the loser's insert changes nothing).
 */
export async function upsertShareLink(
  db: Q,
  link: { jobId: string; nonce: string; tokenHash: string; createdBy: string; expiresAt: Date },
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
      },
      setWhere: sql`${shareLinks.expiresAt} <= now()`,
    });
  const [row] = await db.select().from(shareLinks).where(eq(shareLinks.jobId, link.jobId)).limit(1);
  return row;
}

export async function deleteShareLink(db: Q, jobId: string): Promise<boolean> {
  if (!isUuid(jobId)) return false;
  const gone = await db
    .delete(shareLinks)
    .where(eq(shareLinks.jobId, jobId))
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
