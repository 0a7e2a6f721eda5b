import { and, eq } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import {
  trackerCredentials,
  trackerIssues,
  type TrackerCredentialRow,
  type TrackerIssueRow,
} from './schema.js';

type Q = Db | Tx;

export async function saveTrackerCredential(
  db: Q,
  row: { ownerId: string; kind: string; settings: Record<string, string>; secretEnc: string },
): Promise<void> {
  await db
    .insert(trackerCredentials)
    .values(row)
    .onConflictDoUpdate({
      target: [trackerCredentials.ownerId, trackerCredentials.kind],
      set: { settings: row.settings, secretEnc: row.secretEnc, updatedAt: new Date() },
    });
}

export function listTrackerCredentials(db: Q, ownerId: string): Promise<TrackerCredentialRow[]> {
  return db.select().from(trackerCredentials).where(eq(trackerCredentials.ownerId, ownerId));
}

export async function findTrackerCredential(
  db: Q,
  ownerId: string,
  kind: string,
): Promise<TrackerCredentialRow | undefined> {
  const [row] = await db
    .select()
    .from(trackerCredentials)
    .where(and(eq(trackerCredentials.ownerId, ownerId), eq(trackerCredentials.kind, kind)))
    .limit(1);
  return row;
}

export async function deleteTrackerCredential(db: Q, ownerId: string, kind: string): Promise<void> {
  await db
    .delete(trackerCredentials)
    .where(and(eq(trackerCredentials.ownerId, ownerId), eq(trackerCredentials.kind, kind)));
}

export function trackerIssuesOf(db: Q, jobId: string): Promise<TrackerIssueRow[]> {
  return db.select().from(trackerIssues).where(eq(trackerIssues.jobId, jobId));
}

export async function findTrackerIssue(
  db: Q,
  jobId: string,
  findingIndex: number,
  kind: string,
): Promise<TrackerIssueRow | undefined> {
  const [row] = await db
    .select()
    .from(trackerIssues)
    .where(
      and(
        eq(trackerIssues.jobId, jobId),
        eq(trackerIssues.findingIndex, findingIndex),
        eq(trackerIssues.kind, kind),
      ),
    )
    .limit(1);
  return row;
}

export async function insertTrackerIssue(
  db: Q,
  row: { jobId: string; findingIndex: number; kind: string; url: string },
): Promise<void> {
  await db.insert(trackerIssues).values(row).onConflictDoNothing();
}
