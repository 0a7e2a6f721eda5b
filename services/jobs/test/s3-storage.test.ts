/**
 * The S3 storage path, for real: the jobs service (S3_BUCKET set) talks to s3rver, a local
 * server speaking the S3 HTTP API (SigV4 checked), through the official @aws-sdk/client-s3,
 * unchanged. Only 127.0.0.1 is used. Screen recordings go through the tus S3 store (multipart
 * uploads) the same way: deferred length, PATCHes in parts, resume, content check, Range, deletion.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
  admin,
  api,
  paidJob,
  poster,
  SECRET,
  startHarness,
  tester,
  tusRequest,
  type Harness,
  type OwnSubmission,
  type Person,
} from './helpers.js';
import { addMultipartListing } from './s3rver-multipart.js';

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
  addMultipartListing(s3);
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
    const preview = await api<{ fingerprint: string }>(
      h,
      'GET',
      '/internal/jobs/clear-preview',
      token,
    );
    const r = await api(h, 'POST', '/internal/jobs/clear', token, {
      fingerprint: preview.body.fingerprint,
    });
    expect(r.status).toBe(200);
    expect(await bucketKeys()).toEqual([]);
  });
});

describe('screen recordings on S3 (tus S3 store, issue #30)', () => {
  const b64 = (v: string) => Buffer.from(v).toString('base64');
  let webm: Buffer;
  beforeAll(() => {
    // A real VP8 WebM, padded past one 8 MB S3 part (the content check reads the first bytes; the
    // remux keeps what it can read), so the upload spans two multipart parts and an incomplete one.
    const dir = mkdtempSync(path.join(tmpdir(), 'rec-s3-fixture-'));
    const file = path.join(dir, 'clip.webm');
    execFileSync('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=2:size=160x120:rate=10',
      '-c:v',
      'libvpx',
      '-b:v',
      '200k',
      file,
    ]);
    webm = Buffer.concat([readFileSync(file), randomBytes(9 * 1024 * 1024)]);
    rmSync(dir, { recursive: true, force: true });
  });

  const tus = (
    method: string,
    p: string,
    token: string,
    headers: Record<string, string> = {},
    body?: Buffer,
  ) => tusRequest(h, method, p, token, headers, body);
  const create = (jobId: string, token: string) =>
    tus('POST', '/api/recordings', token, {
      'Upload-Defer-Length': '1',
      'Upload-Metadata': `job_id ${b64(jobId)},filetype ${b64('video/webm')}`,
    });
  const row = async (id: string) =>
    (
      await h.svc.ctx.dbHandle.query<{ status: string; size_bytes: number }>(
        'SELECT status, size_bytes::int FROM jobs.recordings WHERE id = $1',
        [id],
      )
    )[0];
  const keysOf = async (id: string) => (await bucketKeys()).filter((k) => k.startsWith(id));

  let id: string;
  it('takes an upload of deferred length in parts as they come, resumes from the offset HEAD gives, and checks the content at the end', async () => {
    const { job, t } = await claimedJob();
    const c = await create(job.id, t.token);
    expect(c.status).toBe(201);
    const loc = c.headers.get('location')!;
    id = loc.split('/').pop()!;
    // Parts as a recorder produces them: 1 MB, then 7.5 MB (one full S3 part is now reached).
    const cut1 = 1024 * 1024;
    const cut2 = cut1 + 7.5 * 1024 * 1024;
    expect(
      (await tus('PATCH', loc, t.token, { 'Upload-Offset': '0' }, webm.subarray(0, cut1))).status,
    ).toBe(204);
    const second = await tus(
      'PATCH',
      loc,
      t.token,
      { 'Upload-Offset': String(cut1) },
      webm.subarray(cut1, cut2),
    );
    expect(second.status).toBe(204);
    expect(second.headers.get('upload-offset')).toBe(String(cut2));
    // A PATCH at a wrong offset is refused (409) and changes nothing.
    expect(
      (await tus('PATCH', loc, t.token, { 'Upload-Offset': '5' }, webm.subarray(5, 100))).status,
    ).toBe(409);
    // The connection dropped: HEAD says where the server is; the length is still deferred.
    const head = await tus('HEAD', loc, t.token);
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe(String(cut2));
    expect(head.headers.get('upload-defer-length')).toBe('1');
    expect((await row(id)).status).toBe('uploading');
    // Stop: the last part declares the length.
    const last = await tus(
      'PATCH',
      loc,
      t.token,
      { 'Upload-Offset': String(cut2), 'Upload-Length': String(webm.length) },
      webm.subarray(cut2),
    );
    expect(last.status).toBe(204);
    expect(last.headers.get('upload-offset')).toBe(String(webm.length));
    expect((await row(id)).status).toBe('complete');
    expect(await keysOf(id)).toContain(id);
  });

  it('serves the finished recording from S3 with Range 206', async () => {
    await Promise.allSettled([...h.svc.deps.recordingWork]); // the remux may have replaced the object
    const { size_bytes } = await row(id);
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: id }));
    expect(head.ContentLength).toBe(size_bytes);
    const { token } = await admin(h);
    const r = await fetch(`${h.svc.url}/api/recordings/${id}`, {
      headers: { Range: 'bytes=0-99', authorization: `Bearer ${token}` },
    });
    expect(r.status).toBe(206);
    expect(r.headers.get('content-range')).toBe(`bytes 0-99/${size_bytes}`);
    const bytes = Buffer.from(await r.arrayBuffer());
    expect(bytes.length).toBe(100);
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]));
  });

  it('refuses text named video/webm with 415 once complete and leaves nothing of it in the bucket', async () => {
    const { job, t } = await claimedJob();
    const loc = (await create(job.id, t.token)).headers.get('location')!;
    const bad = loc.split('/').pop()!;
    const text = Buffer.from('not a video at all, only text\n'.repeat(100));
    expect(
      (await tus('PATCH', loc, t.token, { 'Upload-Offset': '0' }, text.subarray(0, 1000))).status,
    ).toBe(204);
    const r = await tus(
      'PATCH',
      loc,
      t.token,
      { 'Upload-Offset': '1000', 'Upload-Length': String(text.length) },
      text.subarray(1000),
    );
    expect(r.status).toBe(415);
    expect(await row(bad)).toBeUndefined();
    expect(await keysOf(bad)).toEqual([]);
  });

  it('clear-all deletes the recordings, finished and unfinished, from the bucket', async () => {
    const { job, t } = await claimedJob();
    const loc = (await create(job.id, t.token)).headers.get('location')!;
    const unfinished = loc.split('/').pop()!;
    expect(
      (await tus('PATCH', loc, t.token, { 'Upload-Offset': '0' }, webm.subarray(0, 4096))).status,
    ).toBe(204);
    expect((await keysOf(unfinished)).length).toBeGreaterThan(0);
    expect((await keysOf(id)).length).toBeGreaterThan(0);
    const token = await mintServiceToken(SECRET, 'admin');
    const preview = await api<{ fingerprint: string }>(
      h,
      'GET',
      '/internal/jobs/clear-preview',
      token,
    );
    expect(
      (
        await api(h, 'POST', '/internal/jobs/clear', token, {
          fingerprint: preview.body.fingerprint,
        })
      ).status,
    ).toBe(200);
    await Promise.allSettled([...h.svc.deps.recordingWork]);
    expect(await bucketKeys()).toEqual([]);
  });
});
