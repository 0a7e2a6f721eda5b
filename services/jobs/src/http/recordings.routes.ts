import { Router, type Request, type Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { Metadata, Server as TusServer } from '@tus/server';
import { AppError, callerOf, catalogueRoutes, toErrorBody } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import { isStorageFull } from '../domain/uploads.js';
import type { RecordingRow } from '../db/schema.js';
import {
  authorizeRecordingRead,
  authorizeRecordingUpload,
  finishRecording,
  recordingStorageFull,
  startRecording,
} from '../domain/recordings.js';

export const RECORDINGS_PATH = '/api/recordings';
/** Set here (never taken from the client) so the tus server names the upload as startRecording did. */
const ID_HEADER = 'x-htm-recording-id';

/** The tus server reads headers from rawHeaders (srvx): set (or remove) ours in both. */
function setIdHeader(req: Request, id: string | undefined): void {
  const raw: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() !== ID_HEADER)
      raw.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  delete req.headers[ID_HEADER];
  if (id) {
    raw.push(ID_HEADER, id);
    req.headers[ID_HEADER] = id;
  }
  req.rawHeaders.splice(0, req.rawHeaders.length, ...raw);
}

/** tus Upload-Metadata (`key base64,key2 base64`); missing or malformed: a 400 naming it. */
function parseMetadata(header: string | undefined): Record<string, string | null> {
  if (!header?.trim()) return {};
  try {
    return Metadata.parse(header);
  } catch {
    const msg = 'Upload-Metadata must be comma-separated "key base64value" pairs (tus 1.0).';
    throw AppError.invalid(msg, { 'upload-metadata': [msg] }, 'invalid_metadata');
  }
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` over a file of `size` bytes; undefined: the whole file; null: unsatisfiable. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | undefined | null {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined; // not one simple range: the whole file (RFC 9110 allows ignoring)
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || end < start) return null;
  return { start, end };
}

/**
 * Screen recordings over tus 1.0 (creation, PATCH, HEAD; @tus/server streams each PATCH body to
 * its store) plus GET for the player with Range. Who may do what is checked here, before the tus
 * server sees the request; the finished file's content is checked in its onUploadFinish.
 */
export function recordingsRoutes(deps: JobsDeps): Router {
  const r = catalogueRoutes('jobs');
  const { authenticate, requireRole } = deps.auth;
  const testerOnly = [authenticate, requireRole('tester')];
  let tusP: Promise<TusServer> | undefined;
  const tus = () =>
    (tusP ??= deps.recordingStore.then(
      (store) =>
        new TusServer({
          path: RECORDINGS_PATH,
          datastore: store.datastore,
          relativeLocation: true,
          maxSize: deps.config.RECORDING_MAX_BYTES,
          namingFunction: (req) => {
            const id = req.headers.get(ID_HEADER);
            if (!id) throw new Error('recording id missing');
            return id;
          },
          // A PATCH (or a creation) that met a full disk: 507 and a sentence, not tus's 500; the
          // store already gave the partial chunk's space back.
          onResponseError: (_req, err) => {
            if (!isStorageFull(err)) return undefined;
            deps.logger.error(
              { err: (err as Error).message },
              'recording upload could not be stored: storage full',
            );
            const full = recordingStorageFull();
            return { status_code: full.status, body: JSON.stringify(toErrorBody(full)) };
          },
          onUploadFinish: async (_req, upload) => {
            try {
              await finishRecording(deps, upload.id);
              return {};
            } catch (err) {
              if (err instanceof AppError)
                throw {
                  status_code: err.status,
                  body: JSON.stringify({ detail: err.detail, code: err.code }),
                };
              throw err;
            }
          },
        }),
    ));
  const handOver = async (req: Request, res: Response) => {
    res.locals.changedTable = 'recordings'; // the read cache keeps its pages (see app.ts)
    await (await tus()).handle(req, res);
  };

  r.post(RECORDINGS_PATH, ...testerOnly, async (req, res) => {
    setIdHeader(req, undefined);
    const meta = parseMetadata(req.header('upload-metadata'));
    const length = req.header('upload-length');
    const id = await startRecording(deps, callerOf(req), {
      jobId: meta.job_id ?? undefined,
      fileType: meta.filetype ?? undefined,
      uploadLength: length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined,
    });
    setIdHeader(req, id);
    await handOver(req, res);
  });

  r.patch(`${RECORDINGS_PATH}/{id}`, ...testerOnly, async (req, res) => {
    await authorizeRecordingUpload(deps, callerOf(req), String(req.params.id), true);
    await handOver(req, res);
  });

  r.head(`${RECORDINGS_PATH}/{id}`, ...testerOnly, async (req, res) => {
    await authorizeRecordingUpload(deps, callerOf(req), String(req.params.id), false);
    await handOver(req, res);
  });

  // The player: a signed link (`<video src>`) or a bearer token; Range requests answer 206.
  r.get(`${RECORDINGS_PATH}/{id}`, deps.auth.optional, async (req, res) => {
    const sig = typeof req.query.sig === 'string' ? req.query.sig : undefined;
    const rec = await authorizeRecordingRead(deps, String(req.params.id), {
      sig,
      caller: req.caller,
    });
    await sendRecording(deps, req, res, rec);
  });
  return r.router;
}

/** A finished recording's bytes for the player: the whole file, or one Range with 206 (416 when unsatisfiable). */
export async function sendRecording(
  deps: JobsDeps,
  req: Request,
  res: Response,
  rec: RecordingRow,
): Promise<void> {
  const store = await deps.recordingStore;
  const size = await store.size(rec.id);
  const range = parseRange(req.header('range'), size);
  res.setHeader('Content-Type', rec.mimeType ?? 'application/octet-stream');
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (!res.hasHeader('Cache-Control')) res.setHeader('Cache-Control', 'private, max-age=300');
  res.setHeader(
    'Content-Disposition',
    `inline; filename="recording-${rec.id.slice(0, 8)}.${rec.mimeType === 'video/mp4' ? 'mp4' : 'webm'}"`,
  );
  if (range === null) {
    res.status(416).setHeader('Content-Range', `bytes */${size}`).end();
    return;
  }
  if (range) {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
    res.setHeader('Content-Length', String(range.end - range.start + 1));
  } else {
    res.setHeader('Content-Length', String(size));
  }
  await pipeline(await store.stream(rec.id, range), res);
}
