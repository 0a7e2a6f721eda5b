import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, open, rename, rm, stat, truncate } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ERRORS, type DataStore } from '@tus/server';
import { freeDiskBytes } from '@htm/service-kit';
import type { JobsConfig } from '../config.js';
import { uploadRoot } from './file-storage.js';

/**
 * Where screen recordings live: the tus data store the uploads write to (its FileStore on local
 * disk by default, its S3Store when S3_BUCKET is set), plus what the jobs service does with a
 * finished recording: read its first bytes (content check), stream a byte range (the player),
 * swap in the remuxed file, delete it.
 */
export interface RecordingStore {
  readonly kind: 'local' | 's3';
  readonly datastore: DataStore;
  head(id: string, bytes: number): Promise<Buffer>;
  size(id: string): Promise<number>;
  /** Bytes start..end (inclusive) of the stored recording. */
  stream(id: string, range?: { start: number; end: number }): Promise<Readable>;
  /** Copies the stored recording to a local file (for ffmpeg). */
  download(id: string, dest: string): Promise<void>;
  /** The stored recording's own file when it is on local disk (ffmpeg reads it in place); S3: none. */
  localPath?(id: string): string;
  /** Replaces the stored recording with a local file (consumed); resolves with its size in bytes. */
  replace(id: string, src: string, mimeType: string): Promise<number>;
  remove(id: string): Promise<void>;
  /** Bytes free where the uploads are written (local disk), or null (S3: no disk of ours). */
  freeBytes(): Promise<number | null>;
}

const SAFE_ID = /^[A-Za-z0-9_-]{1,80}$/;
function assertId(id: string): void {
  if (!SAFE_ID.test(id)) throw new Error(`unsafe recording id ${id}`);
}

export async function createRecordingStore(cfg: JobsConfig): Promise<RecordingStore> {
  if (cfg.S3_BUCKET) return createS3RecordingStore(cfg, cfg.S3_BUCKET);
  const { FileStore } = await import('@tus/file-store');
  const directory = path.join(uploadRoot(cfg), 'recordings');
  const fileOf = (id: string) => (assertId(id), path.join(directory, id));
  /**
   * The tus FileStore, but a PATCH that meets a full disk neither loses why nor leaves half a
   * chunk: FileStore's own write turns every write error into a 500 "Something went wrong
   * receiving the file". Here ENOSPC/EDQUOT cuts the file back to where this PATCH began (the
   * space is given back; HEAD then answers that offset and the client resumes from it) and the
   * error keeps its code, so the route answers 507 with a sentence. Other errors are as before
   * (the bytes that arrived stay: a cut connection resumes after them).
   */
  class RecordingFileStore extends FileStore {
    override async write(readable: Readable, id: string, offset: number): Promise<number> {
      const file = fileOf(id);
      let received = 0;
      const count = new Transform({
        transform(chunk: Buffer, _enc, done) {
          received += chunk.length;
          done(null, chunk);
        },
      });
      try {
        await pipeline(readable, count, createWriteStream(file, { flags: 'r+', start: offset }));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOSPC' || code === 'EDQUOT') {
          await truncate(file, offset).catch(() => undefined);
          throw err;
        }
        throw ERRORS.FILE_WRITE_ERROR;
      }
      return offset + received;
    }
  }
  const datastore = new RecordingFileStore({ directory });
  return {
    kind: 'local',
    datastore,
    freeBytes: () => freeDiskBytes(directory),
    async head(id, bytes) {
      const fh = await open(fileOf(id), 'r');
      try {
        const buf = Buffer.alloc(bytes);
        const { bytesRead } = await fh.read(buf, 0, bytes, 0);
        return buf.subarray(0, bytesRead);
      } finally {
        await fh.close();
      }
    },
    async size(id) {
      return (await stat(fileOf(id))).size;
    },
    async stream(id, range) {
      return createReadStream(fileOf(id), range ? { start: range.start, end: range.end } : {});
    },
    async download(id, dest) {
      await copyFile(fileOf(id), dest);
    },
    localPath: fileOf,
    async replace(id, src) {
      const { size } = await stat(src);
      await rename(src, fileOf(id));
      // The tus upload's length follows the new file: HEAD answers offset = length (complete),
      // never an offset short of it, which would make a resuming client send more bytes.
      const upload = await datastore.configstore.get(id);
      if (upload) {
        upload.size = size;
        await datastore.configstore.set(id, upload);
      }
      return size;
    },
    async remove(id) {
      assertId(id);
      await datastore.remove(id).catch(async () => {
        await rm(fileOf(id), { force: true });
        await rm(`${fileOf(id)}.json`, { force: true });
      });
    },
  };
}

async function createS3RecordingStore(cfg: JobsConfig, bucket: string): Promise<RecordingStore> {
  const { S3Store } = await import('@tus/s3-store');
  const { S3Client, GetObjectCommand, HeadObjectCommand, PutObjectCommand, DeleteObjectCommand } =
    await import('@aws-sdk/client-s3');
  const clientConfig = {
    region: cfg.S3_REGION,
    endpoint: cfg.S3_ENDPOINT,
    forcePathStyle: cfg.S3_FORCE_PATH_STYLE,
    // As in file-storage.ts: S3-compatible servers often cannot decode aws-chunked trailers.
    ...(cfg.S3_ENDPOINT
      ? {
          requestChecksumCalculation: 'WHEN_REQUIRED' as const,
          responseChecksumValidation: 'WHEN_REQUIRED' as const,
        }
      : {}),
  };
  const datastore = new S3Store({
    partSize: 8 * 1024 * 1024,
    s3ClientConfig: { bucket, ...clientConfig },
  });
  const client = new S3Client(clientConfig);
  // The tus S3 store keeps each upload under its id at the bucket's root (and `<id>.info`, `<id>.part`).
  const key = (id: string) => (assertId(id), id);
  const get = async (id: string, range?: string) =>
    (await client.send(new GetObjectCommand({ Bucket: bucket, Key: key(id), Range: range })))
      .Body as Readable;
  return {
    kind: 's3',
    datastore,
    freeBytes: async () => null,
    async head(id, bytes) {
      const chunks: Buffer[] = [];
      for await (const c of await get(id, `bytes=0-${bytes - 1}`))
        chunks.push(Buffer.from(c as Buffer));
      return Buffer.concat(chunks).subarray(0, bytes);
    },
    async size(id) {
      return (
        (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key(id) })))
          .ContentLength ?? 0
      );
    },
    async stream(id, range) {
      return get(id, range ? `bytes=${range.start}-${range.end}` : undefined);
    },
    async download(id, dest) {
      await pipeline(await get(id), createWriteStream(dest));
    },
    async replace(id, src, mimeType) {
      const s = await stat(src);
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key(id),
          Body: createReadStream(src),
          ContentLength: s.size,
          ContentType: mimeType,
        }),
      );
      await rm(src, { force: true });
      return s.size;
    },
    async remove(id) {
      await datastore.remove(id).catch(() => undefined);
      await client
        .send(new DeleteObjectCommand({ Bucket: bucket, Key: key(id) }))
        .catch(() => undefined);
      // An unfinished upload also keeps its last part under 5 MB as `<id>.part` (the tus S3 store's
      // "incomplete part"), which the store's own remove leaves behind.
      for (const k of [`${key(id)}.info`, `${key(id)}.part`])
        await client
          .send(new DeleteObjectCommand({ Bucket: bucket, Key: k }))
          .catch(() => undefined);
    },
  };
}
