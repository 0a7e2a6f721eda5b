import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type { ReportSummary } from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import { recordingsByIds, summarySubmissions } from '../db/summary.repository.js';
import { isMissingProgram } from '../providers/media-tools.js';

/** A still is this wide in the PDF's first page (two fit side by side at A4). */
const STILL_WIDTH = 480;

/** Stills already taken (a PDF asked for again, a share link's PDF): by recording and moment. */
const taken = new LRUCache<string, Buffer>({ max: 200 });

/**
 * The PDF's first page shows a still of the video at each top problem's moment (issue #51): one
 * frame ffmpeg takes from the stored recording (read in place on local disk, a copy from S3), at
 * the problem's first moment in a finished recording. Answers the stills by problem index; a
 * problem without a recorded moment, or a frame that cannot be taken, has none (logged).
 */
export async function summaryStills(
  deps: Pick<JobsDeps, 'db' | 'media' | 'recordingStore' | 'tmpDir' | 'logger'>,
  summary: ReportSummary | null,
): Promise<Map<number, Buffer>> {
  const stills = new Map<number, Buffer>();
  if (!summary) return stills;
  const moments = summary.problems.map((p) =>
    p.evidence
      .filter((e) => e.at_ms !== null)
      .sort((a, b) => a.at_ms! - b.at_ms! || a.submission_id.localeCompare(b.submission_id)),
  );
  const subs = await summarySubmissions(deps.db, [
    ...new Set(moments.flat().map((e) => e.submission_id)),
  ]);
  const recs = await recordingsByIds(
    deps.db,
    subs.map((s) => s.recordingId).filter((id): id is string => !!id),
  );
  const done = new Map(recs.filter((r) => r.status === 'complete').map((r) => [r.id, r]));
  const recordingOf = new Map(
    subs.filter((s) => s.recordingId && done.has(s.recordingId)).map((s) => [s.id, s.recordingId!]),
  );
  const store = await deps.recordingStore;
  for (const [i, evidence] of moments.entries()) {
    const e = evidence.find((x) => {
      const rec = done.get(recordingOf.get(x.submission_id) ?? '');
      return !!rec && (rec.durationMs === null || x.at_ms! < rec.durationMs);
    });
    if (!e) continue;
    const recordingId = recordingOf.get(e.submission_id)!;
    const key = `${recordingId}:${e.at_ms}`;
    const cached = taken.get(key);
    if (cached) {
      stills.set(i, cached);
      continue;
    }
    const local = store.localPath?.(recordingId);
    const file = local ?? path.join(deps.tmpDir, `still-${randomUUID()}`);
    try {
      if (!local) await store.download(recordingId, file);
      const png = await deps.media.frameAt(file, e.at_ms!, STILL_WIDTH);
      if (png.length) {
        taken.set(key, png);
        stills.set(i, png);
      }
    } catch (err) {
      deps.logger.warn(
        {
          err: (err as Error).message,
          recordingId,
          missing: isMissingProgram(err) || undefined,
        },
        'no still of the moment for the PDF',
      );
    } finally {
      if (!local) await rm(file, { force: true });
    }
  }
  return stills;
}
