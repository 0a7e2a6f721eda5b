import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { jobs, recordings, submissions, type RecordingRow } from './schema.js';

type Q = Db | Tx;

/**
 * A new upload (tus creation), before any byte arrived. Its size is the length it declared (what
 * it reserves against the limits) until it is complete; then the stored size.
 */
export async function insertRecording(
  db: Q,
  r: { id: string; jobId: string; testerId: string; mimeType: string | null; sizeBytes: number },
): Promise<void> {
  await db.insert(recordings).values({
    id: r.id,
    jobId: r.jobId,
    testerId: r.testerId,
    mimeType: r.mimeType,
    sizeBytes: r.sizeBytes,
  });
}

/** New recordings are counted against the limits one at a time (all testers: the disk budget is shared). */
export async function lockRecordingLimits(tx: Tx): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('jobs:recording-limits'))`);
}

/** What recordings hold now, as the limits count it (a row without a size counts `unknownBytes`). */
export interface RecordingUse {
  /** Uploads in flight (unfinished, and received something lately). */
  testerUploading: number;
  /** The tester's recordings not in any submission (uploading or finished). */
  testerPendingBytes: number;
  jobUploading: number;
  jobBytes: number;
  totalBytes: number;
  /** Bytes still to arrive for every unfinished upload (declared length minus what is on disk is not known here: the whole declared length). */
  uploadingBytes: number;
}

export async function recordingUse(
  db: Q,
  p: { testerId: string; jobId: string; unknownBytes: number; stalledBefore: Date },
): Promise<RecordingUse> {
  const size = sql`COALESCE(${recordings.sizeBytes}, ${p.unknownBytes})`;
  const uploading = sql`${recordings.status} = 'uploading'`;
  const inFlight = sql`${uploading} AND ${recordings.lastActivityAt} >= ${p.stalledBefore.toISOString()}::timestamptz`;
  const mine = sql`${recordings.testerId} = ${p.testerId}`;
  const ofJob = sql`${recordings.jobId} = ${p.jobId}`;
  const attached = sql`EXISTS (SELECT 1 FROM ${submissions} s WHERE s.recording_id = ${recordings.id})`;
  const [row] = await db
    .select({
      testerUploading: sql<number>`count(*) FILTER (WHERE ${mine} AND ${inFlight})::int`,
      testerPendingBytes: sql<number>`COALESCE(sum(${size}) FILTER (WHERE ${mine} AND NOT ${attached}), 0)::bigint`,
      jobUploading: sql<number>`count(*) FILTER (WHERE ${ofJob} AND ${inFlight})::int`,
      jobBytes: sql<number>`COALESCE(sum(${size}) FILTER (WHERE ${ofJob}), 0)::bigint`,
      totalBytes: sql<number>`COALESCE(sum(${size}), 0)::bigint`,
      uploadingBytes: sql<number>`COALESCE(sum(${size}) FILTER (WHERE ${uploading}), 0)::bigint`,
    })
    .from(recordings);
  return {
    testerUploading: Number(row.testerUploading),
    testerPendingBytes: Number(row.testerPendingBytes),
    jobUploading: Number(row.jobUploading),
    jobBytes: Number(row.jobBytes),
    totalBytes: Number(row.totalBytes),
    uploadingBytes: Number(row.uploadingBytes),
  };
}

export async function findRecording(db: Q, id: string): Promise<RecordingRow | undefined> {
  if (!/^[A-Za-z0-9_-]{1,80}$/.test(id)) return undefined;
  const [row] = await db.select().from(recordings).where(eq(recordings.id, id)).limit(1);
  return row;
}

/** Bytes arrived (a PATCH): the abandoned-upload sweep counts from the last one. */
/** Whether the recording is attached to a report held from its poster (its session check not passed). */
export async function recordingHeld(db: Q, id: string): Promise<boolean> {
  const [row] = await db
    .select({ id: submissions.id })
    .from(submissions)
    .where(and(eq(submissions.recordingId, id), eq(submissions.held, true)))
    .limit(1);
  return !!row;
}

export async function touchRecording(db: Q, id: string): Promise<void> {
  await db.update(recordings).set({ lastActivityAt: new Date() }).where(eq(recordings.id, id));
}

/**
 * A PATCH's whole check in one statement: the recording is this tester's and they still hold its
 * job (claimed or revision_requested); if so its activity is touched. False: look closer (which
 * refusal it is). Every PATCH of a recording runs this, so it is one round trip, not three.
 */
export async function touchHeldRecording(db: Q, id: string, testerId: string): Promise<boolean> {
  if (!/^[A-Za-z0-9_-]{1,80}$/.test(id)) return false;
  const rows = await touchHeld(db as Db).execute({ id, testerId });
  return rows.length > 0;
}
const touchStatements = new WeakMap<Db, ReturnType<typeof prepareTouchHeld>>();
function prepareTouchHeld(db: Db) {
  return db
    .update(recordings)
    .set({ lastActivityAt: sql`now()` })
    .from(jobs)
    .where(
      and(
        eq(recordings.id, sql.placeholder('id')),
        eq(recordings.testerId, sql.placeholder('testerId')),
        eq(jobs.id, recordings.jobId),
        eq(jobs.testerId, sql.placeholder('testerId')),
        inArray(jobs.status, ['claimed', 'revision_requested']),
      ),
    )
    .returning({ id: recordings.id })
    .prepare('jobs_touch_held_recording');
}
function touchHeld(db: Db) {
  let s = touchStatements.get(db);
  if (!s) touchStatements.set(db, (s = prepareTouchHeld(db)));
  return s;
}

/** The last byte arrived and the content is a video. */
export async function completeRecording(
  db: Q,
  id: string,
  v: { mimeType: string; sizeBytes: number },
): Promise<void> {
  const now = new Date();
  await db
    .update(recordings)
    .set({
      status: 'complete',
      mimeType: v.mimeType,
      sizeBytes: v.sizeBytes,
      completedAt: now,
      lastActivityAt: now,
    })
    .where(eq(recordings.id, id));
}

/** Remuxed (seekable): its new size and the duration ffprobe measured. */
export async function setRecordingMeasured(
  db: Q,
  id: string,
  v: { sizeBytes: number; durationMs: number | null },
): Promise<void> {
  await db
    .update(recordings)
    .set({ sizeBytes: v.sizeBytes, durationMs: v.durationMs })
    .where(eq(recordings.id, id));
}

/** The jobs whose current report carries this recording (their summaries' reel depends on its duration). */
export async function jobsShowingRecording(
  db: Q,
  recordingId: string,
): Promise<Array<{ id: string; packId: string | null }>> {
  return db
    .select({ id: jobs.id, packId: jobs.packId })
    .from(submissions)
    .innerJoin(jobs, eq(jobs.currentSubmissionId, submissions.id))
    .where(eq(submissions.recordingId, recordingId));
}

export async function deleteRecordingRow(db: Q, id: string): Promise<void> {
  await db.delete(recordings).where(eq(recordings.id, id));
}

/**
 * Recordings to delete at `now`: uploads that received nothing for `abandonedMs` and were never
 * submitted, and recordings of jobs completed more than `retentionMs` ago.
 */
export async function recordingsToSweep(
  db: Q,
  now: Date,
  abandonedMs: number,
  retentionMs: number,
): Promise<Array<{ id: string; reason: 'abandoned' | 'retention' }>> {
  const attached = sql`EXISTS (SELECT 1 FROM ${submissions} s WHERE s.recording_id = ${recordings.id})`;
  const abandoned = await db
    .select({ id: recordings.id })
    .from(recordings)
    .where(
      and(
        lt(recordings.lastActivityAt, new Date(now.getTime() - abandonedMs)),
        sql`NOT ${attached}`,
      ),
    );
  const expired = await db
    .select({ id: recordings.id })
    .from(recordings)
    .innerJoin(jobs, eq(jobs.id, recordings.jobId))
    .where(
      and(
        eq(jobs.status, 'completed'),
        lt(jobs.completedAt, new Date(now.getTime() - retentionMs)),
      ),
    );
  const out = new Map<string, 'abandoned' | 'retention'>();
  for (const r of abandoned) out.set(r.id, 'abandoned');
  for (const r of expired) if (!out.has(r.id)) out.set(r.id, 'retention');
  return [...out].map(([id, reason]) => ({ id, reason }));
}

/** Every recording's id, deleted (clear-all): the caller removes their bytes. */
export async function deleteAllRecordings(tx: Tx): Promise<string[]> {
  const rows = await tx.delete(recordings).returning({ id: recordings.id });
  return rows.map((r) => r.id);
}
