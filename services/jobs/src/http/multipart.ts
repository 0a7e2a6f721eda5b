import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Request } from 'express';
import busboy from 'busboy';
import { fileTypeFromBuffer } from 'file-type';
import { AppError } from '@htm/service-kit/errors';
import { JOB_LIMITS, JOB_MESSAGES } from '@htm/contracts';
import { unsupportedFile, type UploadedFile } from '../domain/uploads.js';

export { unsupportedFile, type UploadedFile };

/** Content types we accept, decided by the file's bytes (magic numbers), never its name. */
const IMAGE_TYPES: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};
const VIDEO_TYPES: Record<string, string> = { 'video/mp4': 'mp4', 'video/webm': 'webm' };
/** file-type reads at most this many bytes to decide. */
const SNIFF_BYTES = 4100;

/**
 * A file name fit to show and to save under: the base name only (no path), letters, digits,
 * spaces, dots, dashes and underscores (others become '_'), at most 100 characters, and ending in
 * the extension the content was recognised as. Null when nothing usable is left.
 */
export function displayFileName(raw: string | undefined, ext: string): string | null {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const stem = base
    .replace(/\.[^.]*$/, '')
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N} ._-]+/gu, '_')
    .replace(/^[ ._]+|[ ._]+$/g, '')
    .slice(0, 90);
  return stem && /[\p{L}\p{N}]/u.test(stem) ? `${stem}.${ext}` : null;
}

export interface MultipartResult {
  fields: Record<string, string>;
  files: UploadedFile[];
  /** Deletes the temporary files (always call, in finally). */
  cleanup(): Promise<void>;
}

export interface MultipartOptions {
  tmpDir: string;
  /** Accepted file fields; parts under other names are refused. */
  fileFields: string[];
  allowVideo: boolean;
  maxFiles: number;
  imageMaxBytes?: number;
  videoMaxBytes?: number;
  /** Message when more than maxFiles files arrive. */
  tooManyFilesMessage?: string;
  /** An upload that sends nothing for this long is abandoned (default 60 s). */
  idleTimeoutMs?: number;
}

/** Temporary upload files end in this; a sweep at start-up removes the ones a crash left behind. */
export const TMP_SUFFIX = '.part';

const tooLarge = (kind: 'image' | 'video') =>
  new AppError(
    'too_large',
    kind === 'video' ? JOB_MESSAGES.videoTooLarge : JOB_MESSAGES.imageTooLarge,
    { code: 'file_too_large' },
  );

function writeChunk(ws: WriteStream, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) =>
    ws.write(chunk, (err) => (err ? reject(err) : resolve())),
  );
}
function closeStream(ws: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    ws.end(() => resolve());
  });
}

/**
 * Streams a multipart body with busboy. Files go to temporary files while their type is
 * checked by content (file-type) and their size counted; reading stops at the first file that
 * is the wrong type (415) or crosses its limit (413). Nothing is kept on failure.
 */
export async function parseMultipart(
  req: Request,
  opts: MultipartOptions,
): Promise<MultipartResult> {
  const imageMax = opts.imageMaxBytes ?? JOB_LIMITS.imageMaxBytes;
  const videoMax = opts.videoMaxBytes ?? JOB_LIMITS.videoMaxBytes;
  const hardMax = opts.allowVideo ? Math.max(imageMax, videoMax) : imageMax;
  const ctype = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(ctype)) {
    throw AppError.invalid(
      'Please send the form as multipart/form-data.',
      undefined,
      'multipart_required',
    );
  }
  await mkdir(opts.tmpDir, { recursive: true });

  const fields: Record<string, string> = {};
  /** Indexed by the part's place in the form, so files keep the order they were sent in. */
  const files: Array<UploadedFile | undefined> = [];
  const tmpPaths: string[] = [];
  const cleanup = async () => {
    await Promise.all(tmpPaths.map((p) => rm(p, { force: true })));
  };

  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: req.headers,
      // Browsers send file names as UTF-8 (busboy would read them as latin1).
      defParamCharset: 'utf8',
      limits: {
        files: opts.maxFiles,
        fileSize: hardMax + 1,
        fields: 40,
        fieldSize: 64 * 1024,
        parts: 60,
      },
    });
  } catch {
    throw AppError.invalid(
      'Please send the form as multipart/form-data.',
      undefined,
      'multipart_required',
    );
  }

  let failure: Error | undefined;
  const pending: Array<Promise<void>> = [];
  /** File streams being read: ended by force when the upload fails (unpiped, they would never end). */
  const streams = new Set<NodeJS.ReadableStream & { destroy(err?: Error): void }>();

  const handleFile = async (
    slot: number,
    field: string,
    stream: NodeJS.ReadableStream & { truncated?: boolean; resume(): void },
    filename?: string,
  ) => {
    if (failure) {
      stream.resume();
      return;
    }
    if (!opts.fileFields.includes(field)) {
      stream.resume();
      throw AppError.invalid(
        `Unexpected file field "${field.slice(0, 40)}".`,
        { [field.slice(0, 40)]: ['Unexpected file'] },
        'unexpected_file',
      );
    }
    let head: Buffer[] = [];
    let headLen = 0;
    let size = 0;
    let kind: 'image' | 'video' | undefined;
    let contentType = '';
    let ext = '';
    let ws: WriteStream | undefined;
    let tmpPath = '';

    const decide = async (buf: Buffer) => {
      const ft = await fileTypeFromBuffer(buf);
      if (ft && IMAGE_TYPES[ft.mime]) {
        kind = 'image';
        ext = IMAGE_TYPES[ft.mime];
      } else if (ft && opts.allowVideo && VIDEO_TYPES[ft.mime]) {
        kind = 'video';
        ext = VIDEO_TYPES[ft.mime];
      } else throw unsupportedFile(opts.allowVideo);
      contentType = ft.mime;
      tmpPath = path.join(opts.tmpDir, `${randomUUID()}${TMP_SUFFIX}`);
      tmpPaths.push(tmpPath);
      ws = createWriteStream(tmpPath);
      // A write error (ENOSPC: the disk is full) reaches the write's or end's callback, which fails
      // the upload (507, the temporary file deleted); without a listener the stream's 'error'
      // event would also be thrown, unhandled, and end the whole process.
      ws.on('error', () => undefined);
      await writeChunk(ws, buf);
    };

    try {
      for await (const c of stream as AsyncIterable<Buffer>) {
        if (failure) break;
        size += c.length;
        if (!kind) {
          head.push(c);
          headLen += c.length;
          if (headLen < SNIFF_BYTES) continue;
          await decide(Buffer.concat(head));
          head = [];
        } else {
          await writeChunk(ws!, c);
        }
        if (size > (kind === 'video' ? videoMax : imageMax)) throw tooLarge(kind!);
      }
      if (failure) return;
      if (!kind) {
        if (size === 0) return; // an empty file input (nothing chosen)
        await decide(Buffer.concat(head));
      }
      if (stream.truncated || size > (kind === 'video' ? videoMax : imageMax))
        throw tooLarge(kind!);
      if (ws) await closeStream(ws);
      // Files finish writing in any order (a small one after a large one may finish first).
      files[slot] = {
        field,
        tmpPath,
        size,
        contentType,
        ext,
        kind: kind!,
        name: displayFileName(filename, ext),
      };
    } catch (err) {
      ws?.destroy();
      stream.resume();
      throw err;
    }
  };

  await new Promise<void>((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      failure = err instanceof Error ? err : new Error(String(err));
      clearTimeout(idle);
      // Stop handing data to busboy; what is left of the body is discarded, never stored.
      req.unpipe(bb);
      bb.removeAllListeners('file');
      // The file streams get no more data now: end them, so their loops finish, close their
      // files and let cleanup delete them (else each would hold a file and a handle forever).
      for (const s of streams) s.destroy(failure);
      req.resume();
      reject(failure);
    };
    // An upload that stops sending (a client gone without closing, a stalled network) is
    // abandoned after idleTimeoutMs: the request ends with an error and the temporary files go.
    const idleMs = opts.idleTimeoutMs ?? 60_000;
    let idle: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        fail(
          AppError.invalid(
            'The upload stalled and was stopped. Please try again.',
            undefined,
            'upload_stalled',
          ),
        );
        // Nothing more will be read: once the answer is out, close the connection.
        const res = (req as Request & { res?: import('express').Response }).res;
        if (res) res.once('finish', () => req.destroy());
        else req.destroy();
      }, idleMs);
      idle.unref();
    };
    touch();
    req.on('data', touch);
    req.once('end', () => clearTimeout(idle));
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated)
        return fail(
          AppError.invalid(`The field ${name.slice(0, 40)} is too long.`, {
            [name.slice(0, 40)]: ['Too long'],
          }),
        );
      if (name.length <= 64) fields[name] = value;
    });
    let fileParts = 0;
    bb.on('file', (name, stream, info) => {
      streams.add(stream);
      pending.push(
        handleFile(fileParts++, name, stream, info?.filename)
          .catch((err) => fail(err))
          .finally(() => streams.delete(stream)),
      );
    });
    bb.on('filesLimit', () => {
      const msg = opts.tooManyFilesMessage ?? JOB_MESSAGES.tooManyFiles;
      fail(AppError.invalid(msg, { files: [msg] }, 'too_many_files'));
    });
    bb.on('partsLimit', () =>
      fail(AppError.invalid('The form has too many parts.', undefined, 'too_many_parts')),
    );
    bb.on('fieldsLimit', () =>
      fail(AppError.invalid('The form has too many fields.', undefined, 'too_many_fields')),
    );
    bb.on('error', (err) =>
      fail(
        AppError.invalid(
          'The form could not be read.',
          undefined,
          (err as Error)?.message ? 'malformed_multipart' : 'malformed_multipart',
        ),
      ),
    );
    bb.on('close', () => {
      clearTimeout(idle);
      void Promise.all(pending).then(() => {
        if (!settled) {
          settled = true;
          resolve();
        }
      });
    });
    req.on('aborted', () =>
      fail(AppError.invalid('The upload was interrupted.', undefined, 'upload_aborted')),
    );
    req.once('close', () => {
      if (!req.complete)
        fail(AppError.invalid('The upload was interrupted.', undefined, 'upload_aborted'));
    });
    req.pipe(bb);
  }).catch(async (err) => {
    await Promise.allSettled(pending);
    await cleanup();
    throw err;
  });

  return { fields, files: files.filter((f): f is UploadedFile => f !== undefined), cleanup };
}

/**
 * Deletes temporary upload files nobody is writing any more (older than `olderThanMs`): what a
 * crash or a kill left behind. Runs at start-up. Returns how many were removed.
 */
export async function sweepUploadTmp(tmpDir: string, olderThanMs: number): Promise<number> {
  let names: string[];
  try {
    names = await readdir(tmpDir);
  } catch {
    return 0; // no tmp dir yet
  }
  const cutoff = Date.now() - olderThanMs;
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith(TMP_SUFFIX)) continue;
    const p = path.join(tmpDir, name);
    try {
      if ((await stat(p)).mtimeMs < cutoff) {
        await rm(p, { force: true });
        removed++;
      }
    } catch {
      /* gone already */
    }
  }
  return removed;
}
