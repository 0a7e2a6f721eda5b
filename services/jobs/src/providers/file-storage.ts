import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, copyFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { JobsConfig } from '../config.js';

/** Where uploaded files live: local disk by default, S3 when S3_BUCKET is configured. */
export interface FileStorage {
  readonly kind: 'local' | 's3';
  /** Stores a file from a local temporary path (the temp file is consumed). */
  putFile(key: string, tmpPath: string, contentType: string): Promise<void>;
  putBuffer(key: string, body: Buffer, contentType: string): Promise<void>;
  get(key: string): Promise<{ stream: Readable; size?: number }>;
  delete(key: string): Promise<void>;
}

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;
function assertKey(key: string): void {
  if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`unsafe storage key ${key}`);
}

export class LocalFileStorage implements FileStorage {
  readonly kind = 'local' as const;
  constructor(readonly root: string) {}

  pathOf(key: string): string {
    assertKey(key);
    return path.join(this.root, key);
  }
  async putFile(key: string, tmpPath: string): Promise<void> {
    const dest = this.pathOf(key);
    await mkdir(path.dirname(dest), { recursive: true });
    try {
      await rename(tmpPath, dest);
    } catch {
      await copyFile(tmpPath, dest);
      await rm(tmpPath, { force: true });
    }
  }
  async putBuffer(key: string, body: Buffer): Promise<void> {
    const dest = this.pathOf(key);
    await mkdir(path.dirname(dest), { recursive: true });
    await writeFile(dest, body);
  }
  async get(key: string): Promise<{ stream: Readable; size?: number }> {
    const p = this.pathOf(key);
    const s = await stat(p);
    return { stream: createReadStream(p), size: s.size };
  }
  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}

export class S3FileStorage implements FileStorage {
  readonly kind = 's3' as const;
  private clientP?: Promise<import('@aws-sdk/client-s3').S3Client>;

  constructor(
    private readonly opts: {
      bucket: string;
      region: string;
      endpoint?: string;
      forcePathStyle?: boolean;
      prefix: string;
    },
  ) {}

  private async client() {
    this.clientP ??= import('@aws-sdk/client-s3').then(
      ({ S3Client }) =>
        new S3Client({
          region: this.opts.region,
          endpoint: this.opts.endpoint,
          forcePathStyle: this.opts.forcePathStyle,
          // The SDK's default (WHEN_SUPPORTED) sends a streamed PutObject as aws-chunked with a
          // CRC32 trailer. AWS decodes that, but S3-compatible servers behind S3_ENDPOINT often
          // do not (s3rver stores the chunk framing as the object's bytes), so checksums are
          // only sent and checked where an operation requires them there.
          ...(this.opts.endpoint
            ? {
                requestChecksumCalculation: 'WHEN_REQUIRED' as const,
                responseChecksumValidation: 'WHEN_REQUIRED' as const,
              }
            : {}),
        }),
    );
    return this.clientP;
  }
  private key(key: string): string {
    assertKey(key);
    return `${this.opts.prefix}${key}`;
  }
  async putFile(key: string, tmpPath: string, contentType: string): Promise<void> {
    const { PutObjectCommand } = await import('@aws-sdk/client-s3');
    const s = await stat(tmpPath);
    await (
      await this.client()
    ).send(
      new PutObjectCommand({
        Bucket: this.opts.bucket,
        Key: this.key(key),
        Body: createReadStream(tmpPath),
        ContentLength: s.size,
        ContentType: contentType,
      }),
    );
    await rm(tmpPath, { force: true });
  }
  async putBuffer(key: string, body: Buffer, contentType: string): Promise<void> {
    const { PutObjectCommand } = await import('@aws-sdk/client-s3');
    await (
      await this.client()
    ).send(
      new PutObjectCommand({
        Bucket: this.opts.bucket,
        Key: this.key(key),
        Body: body,
        ContentType: contentType,
      }),
    );
  }
  async get(key: string): Promise<{ stream: Readable; size?: number }> {
    const { GetObjectCommand } = await import('@aws-sdk/client-s3');
    const r = await (
      await this.client()
    ).send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: this.key(key) }));
    return { stream: r.Body as Readable, size: r.ContentLength };
  }
  async delete(key: string): Promise<void> {
    const { DeleteObjectCommand } = await import('@aws-sdk/client-s3');
    await (
      await this.client()
    ).send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: this.key(key) }));
  }
}

export function uploadRoot(cfg: Pick<JobsConfig, 'UPLOAD_DIR' | 'DATA_DIR'>): string {
  return path.resolve(
    cfg.UPLOAD_DIR ?? path.join(cfg.DATA_DIR === 'memory://' ? '.data' : cfg.DATA_DIR, 'uploads'),
  );
}

export function createFileStorage(cfg: JobsConfig): FileStorage {
  if (cfg.S3_BUCKET) {
    return new S3FileStorage({
      bucket: cfg.S3_BUCKET,
      region: cfg.S3_REGION,
      endpoint: cfg.S3_ENDPOINT,
      forcePathStyle: cfg.S3_FORCE_PATH_STYLE,
      prefix: cfg.S3_PREFIX,
    });
  }
  return new LocalFileStorage(path.join(uploadRoot(cfg), 'files'));
}
