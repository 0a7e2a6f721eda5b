/**
 * The S3 storage path, for real: the jobs service (S3_BUCKET set) talks to s3rver, a local
 * server speaking the S3 HTTP API (SigV4 checked), through the official @aws-sdk/client-s3,
 * unchanged. Only 127.0.0.1 is used.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import S3rver from 's3rver';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import type { JobView } from '@htm/contracts';
import { mintServiceToken } from '@htm/service-kit';
import {
  api,
  paidJob,
  poster,
  SECRET,
  startHarness,
  tester,
  type Harness,
  type OwnSubmission,
  type Person,
} from './helpers.js';

const BUCKET = 'htm-test-uploads';
const PREFIX = 's3-test/uploads/';
// S3FileStorage takes no credentials of its own: the SDK's default chain reads them from the
// environment (as it would from an IAM role in production). These are s3rver's fixed defaults.
const CREDS = {
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER',
  AWS_EC2_METADATA_DISABLED: 'true',
};

let s3dir: string;
let s3: S3rver;
let endpoint: string;
let client: S3Client;
let h: Harness;
let png: Buffer;
const savedEnv: Record<string, string | undefined> = {};

beforeAll(async () => {
  for (const [k, v] of Object.entries(CREDS)) {
    savedEnv[k] = process.env[k];
    process.env[k] = v;
  }
  s3dir = mkdtempSync(path.join(tmpdir(), 'jobs-s3rver-'));
  s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: s3dir,
    configureBuckets: [{ name: BUCKET }],
  });
  const addr = await s3.run();
  endpoint = `http://127.0.0.1:${addr.port}`;
  client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  h = await startHarness('s3', {
    S3_BUCKET: BUCKET,
    S3_ENDPOINT: endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    S3_PREFIX: PREFIX,
  });
  const raw = randomBytes(800 * 600 * 3);
  png = await sharp(raw, { raw: { width: 800, height: 600, channels: 3 } })
    .png()
    .toBuffer();
});

afterAll(async () => {
  await h?.close();
  client?.destroy();
  await s3?.close();
  if (s3dir) rmSync(s3dir, { recursive: true, force: true });
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** Every object key in the bucket (through the SDK, not s3rver's directory). */
async function bucketKeys(): Promise<string[]> {
  const r = await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
  return (r.Contents ?? []).map((o) => o.Key!).sort();
}
async function objectBytes(key: string): Promise<{ bytes: Buffer; contentType?: string }> {
  const r = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return { bytes: Buffer.from(await r.Body!.transformToByteArray()), contentType: r.ContentType };
}

async function claimedJob(): Promise<{ job: JobView; p: Person; t: Person }> {
  const p = await poster(h);
  const t = await tester(h);
  const job = await paidJob(h, p);
  const r = await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token);
  if (r.status !== 200) throw new Error(`claim ${r.status}`);
  return { job, p, t };
}

function dashboardForm(
  file?: { data: Buffer; name: string; type?: string },
  over: Record<string, string> = {},
) {
  const f = new FormData();
  const fields = {
    feedback_text: 'The signup button is hidden below the fold on mobile.',
    key_finding_1: 'Signup button hard to find',
    ...over,
  };
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  if (file)
    f.append(
      'screenshot',
      new Blob([new Uint8Array(file.data)], { type: file.type ?? 'image/png' }),
      file.name,
    );
  return f;
}

async function fileRows(jobId: string) {
  return h.svc.ctx.dbHandle.query<{
    id: string;
    kind: string;
    storage_key: string;
    size: number;
    content_type: string;
  }>(
    'SELECT id, kind, storage_key, size::int AS size, content_type FROM jobs.files WHERE job_id = $1 ORDER BY kind',
    [jobId],
  );
}

describe('S3 file storage (s3rver)', () => {
  it('runs the service on S3 storage', () => {
    expect(h.svc.deps.storage.kind).toBe('s3');
  });

  it('refuses a text file named .png with 415 and leaves no object in the bucket', async () => {
    const { job, t } = await claimedJob();
    const before = await bucketKeys();
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submit-work`,
      t.token,
      dashboardForm({
        data: Buffer.from('just some text, not an image\n'.repeat(400)),
        name: 'shot.png',
      }),
    );
    expect(r.status).toBe(415);
    expect(r.body.detail).toBe('Please upload an image file only');
    expect(await bucketKeys()).toEqual(before);
    expect(await fileRows(job.id)).toEqual([]);
  });

  it('refuses invalid fields with 400 and leaves no object in the bucket', async () => {
    const { job, t } = await claimedJob();
    const before = await bucketKeys();
    const r = await api(
      h,
      'POST',
      `/api/jobs/${job.id}/submit-work`,
      t.token,
      dashboardForm({ data: png, name: 'shot.png' }, { feedback_text: 'short' }),
    );
    expect(r.status).toBe(400);
    expect(await bucketKeys()).toEqual(before);
  });

  describe('a submission with a real PNG', () => {
    let job: JobView;
    let p: Person;
    let t: Person;
    let sub: OwnSubmission;
    let orig: { id: string; storage_key: string; size: number };
    let prev: { id: string; storage_key: string; size: number };

    beforeAll(async () => {
      ({ job, p, t } = await claimedJob());
      const r = await api(
        h,
        'POST',
        `/api/jobs/${job.id}/submit-work`,
        t.token,
        dashboardForm({ data: png, name: '../../evil name.png' }),
      );
      expect(r.status).toBe(201);
      sub = r.body.submission as OwnSubmission;
      [orig, prev] = await fileRows(job.id);
    });

    it('stores the original and the preview as objects under S3_PREFIX', async () => {
      const keys = await bucketKeys();
      expect(keys).toEqual(
        expect.arrayContaining([`${PREFIX}${orig.storage_key}`, `${PREFIX}${prev.storage_key}`]),
      );
      expect(orig.storage_key).toMatch(new RegExp(`^${job.id}/[0-9a-f-]{36}\\.png$`));
      expect(prev.storage_key).toMatch(new RegExp(`^${job.id}/[0-9a-f-]{36}\\.webp$`));
      for (const k of keys) expect(k.startsWith(PREFIX)).toBe(true);
    });

    it('keeps the original byte for byte, with its content type', async () => {
      const o = await objectBytes(`${PREFIX}${orig.storage_key}`);
      expect(o.bytes.equals(png)).toBe(true);
      expect(o.contentType).toBe('image/png');
      const head = await client.send(
        new HeadObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${orig.storage_key}` }),
      );
      expect(head.ContentLength).toBe(png.length);
    });

    it('stores the preview as a smaller valid WebP image', async () => {
      const o = await objectBytes(`${PREFIX}${prev.storage_key}`);
      expect(o.contentType).toBe('image/webp');
      expect(o.bytes.length).toBe(prev.size);
      expect(o.bytes.length).toBeLessThan(png.length);
      const meta = await sharp(o.bytes).metadata();
      expect(meta.format).toBe('webp');
      expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(480);
    });

    it('streams the original back through a signed link with the sniffed type and nosniff', async () => {
      const r = await fetch(`${h.svc.url}${sub.file_urls[0]}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('image/png');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('content-length')).toBe(String(png.length));
      expect(r.headers.get('content-disposition')).toMatch(/^inline; /);
      expect(Buffer.from(await r.arrayBuffer()).equals(png)).toBe(true);
    });

    it('streams the original to the tester by bearer token, and refuses the locked poster', async () => {
      const r = await fetch(`${h.svc.url}/api/files/${orig.id}`, {
        headers: { authorization: `Bearer ${t.token}` },
      });
      expect(r.status).toBe(200);
      expect(Buffer.from(await r.arrayBuffer()).equals(png)).toBe(true);
      expect((await api(h, 'GET', `/api/files/${orig.id}`, p.token)).status).toBe(403);
    });

    it('serves the preview through its signed link', async () => {
      const r = await fetch(`${h.svc.url}${sub.human_preview.small_image_url}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('image/webp');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      const bytes = Buffer.from(await r.arrayBuffer());
      expect(bytes.equals((await objectBytes(`${PREFIX}${prev.storage_key}`)).bytes)).toBe(true);
    });

    it('gives an attachment with ?download=1', async () => {
      const r = await fetch(`${h.svc.url}${sub.file_urls[0]}&download=1`);
      expect(r.status).toBe(200);
      // Saved under the tester's own file name, without the path it was sent with.
      expect(r.headers.get('content-disposition')).toBe('attachment; filename="evil name.png"');
      expect(Buffer.from(await r.arrayBuffer()).equals(png)).toBe(true);
    });
  });

  it("deletes the objects of a submission that lost a race, keeping only the winner's", async () => {
    // Both requests pass the state check and store their original; they are held before storing
    // the preview until both got there, so the loser's transaction surely finds the job already
    // submitted, answers 409 and must delete the objects it stored.
    const { job, t } = await claimedJob();
    const before = await bucketKeys();
    const storage = h.svc.deps.storage;
    const putBuffer = storage.putBuffer;
    let arrived = 0;
    let release!: () => void;
    const bothThere = new Promise<void>((r) => (release = r));
    storage.putBuffer = async (...args) => {
      if (++arrived === 2) release();
      await bothThere;
      return putBuffer.apply(storage, args);
    };
    try {
      const [a, b] = await Promise.all([
        api(
          h,
          'POST',
          `/api/jobs/${job.id}/submit-work`,
          t.token,
          dashboardForm({ data: png, name: 'a.png' }),
        ),
        api(
          h,
          'POST',
          `/api/jobs/${job.id}/submit-work`,
          t.token,
          dashboardForm({ data: png, name: 'b.png' }),
        ),
      ]);
      expect([a.status, b.status].sort()).toEqual([201, 409]);
    } finally {
      storage.putBuffer = putBuffer;
    }
    expect(arrived).toBe(2);
    const rows = await fileRows(job.id);
    expect(rows).toHaveLength(2);
    const added = (await bucketKeys()).filter((k) => !before.includes(k));
    expect(added.sort()).toEqual(rows.map((r) => `${PREFIX}${r.storage_key}`).sort());
  });

  it('POST /internal/jobs/clear deletes every object from the bucket', async () => {
    const before = await bucketKeys();
    expect(before.length).toBeGreaterThanOrEqual(4);
    const [{ n }] = await h.svc.ctx.dbHandle.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM jobs.files',
    );
    expect(n).toBe(before.length);
    const token = await mintServiceToken(SECRET, 'admin');
    const preview = await api<{ fingerprint: string }>(h, 'GET', '/internal/jobs/clear-preview', token);
    const r = await api(h, 'POST', '/internal/jobs/clear', token, { fingerprint: preview.body.fingerprint });
    expect(r.status).toBe(200);
    expect(await bucketKeys()).toEqual([]);
  });
});
