import { eq, inArray } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { files, submissions, type FileRow, type SubmissionRow } from './schema.js';
import { isUuid } from './job.repository.js';

type Q = Db | Tx;

export type NewSubmission = typeof submissions.$inferInsert;
export type NewFile = typeof files.$inferInsert;

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

/** Writes a submission with its stored files (originals and preview), in the caller's transaction. */
export async function insertSubmission(
  tx: Tx,
  sub: NewSubmission,
  fileRows: NewFile[],
): Promise<SubmissionRow> {
  if (fileRows.length) await tx.insert(files).values(fileRows);
  const [row] = await tx.insert(submissions).values(sub).returning();
  return row;
}

/** Deletes every file row and submission (clear-all); the storage keys of the deleted files and how many submissions went. */
export async function deleteAllSubmissions(
  tx: Tx,
): Promise<{ storageKeys: string[]; submissionsDeleted: number }> {
  const removed = await tx.delete(files).returning({ key: files.storageKey });
  const subs = await tx.delete(submissions).returning({ id: submissions.id });
  return { storageKeys: removed.map((f) => f.key), submissionsDeleted: subs.length };
}
