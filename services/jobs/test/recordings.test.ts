/**
 * Screen recordings over tus 1.0 (issue #30): who may upload, the size and content checks,
 * resuming from the offset HEAD gives, the remux that makes the file seekable (real ffmpeg),
 * Range requests for the player, and the sweeps and clear-all that delete recordings.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { JobView } from '@htm/contracts';
import { mintServiceToken } from '@htm/service-kit';
import {
  admin,
  api,
  outboxEvents,
  paidJob,
  poster,
  SECRET,
  startHarness,
  tester,
  testPatternWebm,
  waitFor,
  type Harness,
  type Person,
} from './helpers.js';
import { makeSeekable, sweepRecordings } from '../src/domain/recordings.js';
import { ffmpegTools } from '../src/providers/media-tools.js';
import type { JobsDeps } from '../src/deps.js';

const MB = 1024 * 1024;
const MAX_BYTES = 2 * MB;
let h: Harness;
let webm: Buffer;

beforeAll(async () => {
  h = await startHarness('recordings', {
    RECORDING_MAX_BYTES: String(MAX_BYTES),
    // The recording limits, small enough to reach in a test (see 'recording limits').
    RECORDING_MAX_UPLOADS_PER_TESTER: '3',
    RECORDING_MAX_UPLOADS_PER_JOB: '2',
    RECORDING_MAX_PENDING_BYTES_PER_TESTER: String(5 * MB),
    RECORDING_MAX_BYTES_PER_JOB: String(4.5 * MB),
    MAX_ACTIVE_CLAIMS: '3',
  });
  // A 3-second VP8 WebM written as a live stream, as MediaRecorder writes it: no duration and no
  // cues (the remux adds both, so the file's size changes).
  webm = testPatternWebm(3);
});
afterAll(async () => {
  await h?.close();
});

const b64 = (s: string) => Buffer.from(s).toString('base64');
const recordingsDir = () => path.join(h.uploadDir, 'recordings');

async function claimedJob(): Promise<{ job: JobView; p: Person; t: Person }> {
  const p = await poster(h);
  const t = await tester(h);
  const job = await paidJob(h, p);
  const r = await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token);
  if (r.status !== 200) throw new Error(`claim ${r.status}`);
  return { job, p, t };
}

function tus(
  method: string,
  p: string,
  token: string | undefined,
  headers: Record<string, string> = {},
  body?: Buffer,
) {
  return fetch(`${h.svc.url}${p}`, {
    method,
    headers: {
      'Tus-Resumable': '1.0.0',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'Content-Type': 'application/offset+octet-stream' } : {}),
      ...headers,
    },
    body: body ? new Uint8Array(body) : undefined,
  });
}

async function create(
  jobId: string,
  token: string,
  headers: Record<string, string> = { 'Upload-Defer-Length': '1' },
) {
  return tus('POST', '/api/recordings', token, {
    'Upload-Metadata': `job_id ${b64(jobId)},filetype ${b64('video/webm')}`,
    ...headers,
  });
}

/** Uploads the whole buffer in two PATCHes; returns the recording id. */
async function upload(jobId: string, token: string, data = webm): Promise<string> {
  const c = await create(jobId, token, { 'Upload-Length': String(data.length) });
  expect(c.status).toBe(201);
  const loc = c.headers.get('location')!;
  const half = Math.floor(data.length / 2);
  expect(
    (await tus('PATCH', loc, token, { 'Upload-Offset': '0' }, data.subarray(0, half))).status,
  ).toBe(204);
  const last = await tus(
    'PATCH',
    loc,
    token,
    { 'Upload-Offset': String(half) },
    data.subarray(half),
  );
  if (last.status !== 204) throw new Error(`last PATCH ${last.status} ${await last.text()}`);
  return loc.split('/').pop()!;
}

async function recordingRow(id: string) {
  const [row] = await h.svc.ctx.dbHandle.query<{
    status: string;
    duration_ms: number | null;
    size_bytes: number;
  }>('SELECT status, duration_ms, size_bytes::int FROM jobs.recordings WHERE id = $1', [id]);
  return row;
}

describe('tus creation and upload rights', () => {
  it("tells the tester's web app the recording limits with their jobs (RECORDING_MAX_MS, RECORDING_MAX_BYTES)", async () => {
    const { t } = await claimedJob();
    const r = await api(h, 'GET', '/api/tester/my-jobs', t.token);
    expect(r.status).toBe(200);
    expect(r.body.recording_limits).toEqual({ max_ms: 10 * 60_000, max_bytes: MAX_BYTES });
  });

  it('creates an upload for the tester holding the job: 201 with a Location under /api/recordings/', async () => {
    const { job, t } = await claimedJob();
    const r = await create(job.id, t.token);
    expect(r.status).toBe(201);
    expect(r.headers.get('tus-resumable')).toBe('1.0.0');
    expect(r.headers.get('location')).toMatch(/^\/api\/recordings\/[A-Za-z0-9_-]+$/);
  });

  it("answers 403 to anyone else's creation and to a PATCH or HEAD on someone else's upload", async () => {
    const { job, t, p } = await claimedJob();
    const other = await tester(h);
    const refused = await create(job.id, other.token);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe('not_job_tester');
    expect((await create(job.id, p.token)).status).toBe(403);
    const loc = (await create(job.id, t.token)).headers.get('location')!;
    const patch = await tus(
      'PATCH',
      loc,
      other.token,
      { 'Upload-Offset': '0' },
      webm.subarray(0, 100),
    );
    expect(patch.status).toBe(403);
    expect((await tus('HEAD', loc, other.token)).status).toBe(403);
    // Nothing was written by the stranger.
    expect((await tus('HEAD', loc, t.token)).headers.get('upload-offset')).toBe('0');
  });

  it('refuses an Upload-Length over RECORDING_MAX_BYTES with 413 and creates nothing', async () => {
    const { job, t } = await claimedJob();
    const r = await create(job.id, t.token, { 'Upload-Length': String(MAX_BYTES + 1) });
    expect(r.status).toBe(413);
    expect(((await r.json()) as { detail: string }).detail).toBe(
      'Recording size must be less than 2MB',
    );
    const [{ n }] = await h.svc.ctx.dbHandle.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM jobs.recordings WHERE job_id = $1',
      [job.id],
    );
    expect(n).toBe(0);
  });

  it('answers 413 to a PATCH that would take an upload of deferred length past RECORDING_MAX_BYTES', async () => {
    const { job, t } = await claimedJob();
    const loc = (await create(job.id, t.token)).headers.get('location')!;
    expect(
      (await tus('PATCH', loc, t.token, { 'Upload-Offset': '0' }, webm.subarray(0, 1000))).status,
    ).toBe(204);
    const over = await tus(
      'PATCH',
      loc,
      t.token,
      { 'Upload-Offset': '1000' },
      Buffer.alloc(MAX_BYTES),
    );
    expect(over.status).toBe(413);
    expect((await tus('HEAD', loc, t.token)).headers.get('upload-offset')).toBe('1000');
    // Declaring a final length over the limit is refused the same way.
    expect(
      (
        await tus(
          'PATCH',
          loc,
          t.token,
          { 'Upload-Offset': '1000', 'Upload-Length': String(MAX_BYTES + 1) },
          Buffer.alloc(0),
        )
      ).status,
    ).toBe(413);
  });

  it('completes an upload of deferred length whose last PATCH only declares the length (the recorder stopped right after a part went)', async () => {
    const { job, t } = await claimedJob();
    const loc = (await create(job.id, t.token)).headers.get('location')!;
    const id = loc.split('/').pop()!;
    expect((await tus('PATCH', loc, t.token, { 'Upload-Offset': '0' }, webm)).status).toBe(204);
    expect((await recordingRow(id)).status).toBe('uploading');
    const last = await tus(
      'PATCH',
      loc,
      t.token,
      { 'Upload-Offset': String(webm.length), 'Upload-Length': String(webm.length) },
      Buffer.alloc(0),
    );
    expect(last.status).toBe(204);
    expect((await recordingRow(id)).status).toBe('complete');
    await waitFor(async () => (await recordingRow(id))?.duration_ms !== null, 'recording remuxed');
  });

  it('checks the finished file by content: text named video/webm is 415 and deleted', async () => {
    const { job, t } = await claimedJob();
    const text = Buffer.from('this is not a video, just text pretending to be one\n'.repeat(20));
    const c = await create(job.id, t.token, { 'Upload-Length': String(text.length) });
    const loc = c.headers.get('location')!;
    const id = loc.split('/').pop()!;
    const r = await tus('PATCH', loc, t.token, { 'Upload-Offset': '0' }, text);
    expect(r.status).toBe(415);
    expect(await r.text()).toContain('not a WebM or MP4 video');
    expect(await recordingRow(id)).toBeUndefined();
    expect(existsSync(path.join(recordingsDir(), id))).toBe(false);
  });
});

describe('resume, remux, submit, play', () => {
  let job: JobView;
  let p: Person;
  let t: Person;
  let id: string;

  it('resumes from the offset HEAD gives (deferred length) and makes the file seekable', async () => {
    ({ job, p, t } = await claimedJob());
    const c = await create(job.id, t.token);
    const loc = c.headers.get('location')!;
    id = loc.split('/').pop()!;
    const first = webm.subarray(0, 4000);
    expect((await tus('PATCH', loc, t.token, { 'Upload-Offset': '0' }, first)).status).toBe(204);
    // The network dropped: the client asks where to go on.
    const head = await tus('HEAD', loc, t.token);
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe('4000');
    expect(head.headers.get('upload-defer-length')).toBe('1');
    const rest = await tus(
      'PATCH',
      loc,
      t.token,
      { 'Upload-Offset': '4000', 'Upload-Length': String(webm.length) },
      webm.subarray(4000),
    );
    expect(rest.status).toBe(204);
    expect(rest.headers.get('upload-offset')).toBe(String(webm.length));
    await waitFor(async () => (await recordingRow(id))?.duration_ms !== null, 'recording remuxed');
    const row = await recordingRow(id);
    expect(row.status).toBe('complete');
    expect(Math.abs(row.duration_ms! - 3000)).toBeLessThan(300);
    // The remuxed WebM carries cues (seek index): EBML id 0x1C53BB6B.
    expect(
      readFileSync(path.join(recordingsDir(), id)).includes(Buffer.from([0x1c, 0x53, 0xbb, 0x6b])),
    ).toBe(true);
    // A client asking again (a reload) still finds the upload complete: the remux changed the
    // file's size, and HEAD must not answer an offset short of the length (it would send more bytes).
    const after = await tus('HEAD', loc, t.token);
    expect(after.headers.get('upload-offset')).toBe(String(row.size_bytes));
    expect(after.headers.get('upload-length')).toBe(String(row.size_bytes));
  });

  it('refuses a moment after the end of the recording, then takes recording_id with findings at moments', async () => {
    const f = (atMs: string) => {
      const form = new FormData();
      form.append('feedback_text', 'The signup button is hidden below the fold on mobile.');
      form.append('key_finding_1', 'Signup button hard to find');
      form.append('key_finding_1_at_ms', atMs);
      form.append('key_finding_1_severity', 'major');
      form.append('recording_id', id);
      return form;
    };
    const late = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, f('60000'));
    expect(late.status).toBe(400);
    expect(late.body.errors.key_finding_1_at_ms).toEqual([
      'Finding 1: the moment is after the end of the recording',
    ]);
    const r = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, f('1500'));
    expect(r.status).toBe(201);
    const events = await outboxEvents(h, 'WorkSubmitted', job.id);
    expect(events.at(-1)!.data.hasRecording).toBe(true);

    const read = await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token);
    expect(read.body.findings[0]).toMatchObject({
      text: 'Signup button hard to find',
      severity: 'major',
      at_ms: 1500,
    });
    const rec = read.body.recording!;
    expect(rec).toEqual({
      id,
      url: expect.stringMatching(new RegExp(`^/api/recordings/${id}\\?sig=`)),
      mime_type: 'video/webm',
      duration_ms: expect.any(Number),
      size_bytes: (await recordingRow(id)).size_bytes,
    });
  });

  it('serves Range requests with 206 by signed link, and by token to the poster, the tester and the admin only', async () => {
    const rec = (await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token)).body.recording!;
    const ranged = await fetch(`${h.svc.url}${rec.url}`, { headers: { Range: 'bytes=0-99' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 0-99/${rec.size_bytes}`);
    expect(ranged.headers.get('content-type')).toBe('video/webm');
    expect((await ranged.arrayBuffer()).byteLength).toBe(100);

    const bare = `/api/recordings/${id}`;
    const as = (token: string) =>
      fetch(`${h.svc.url}${bare}`, {
        headers: { Range: 'bytes=0-99', authorization: `Bearer ${token}` },
      });
    expect((await as(p.token)).status).toBe(206);
    expect((await as(t.token)).status).toBe(206);
    expect((await as((await admin(h)).token)).status).toBe(206);
    const stranger = await as((await poster(h)).token);
    expect(stranger.status).toBe(403);
    expect(((await stranger.json()) as { code: string }).code).toBe('not_allowed');
    expect((await fetch(`${h.svc.url}${bare}`)).status).toBe(401);
    expect((await fetch(`${h.svc.url}${bare}?sig=1.${'a'.repeat(43)}`)).status).toBe(401);
  });

  it('deletes the recording RECORDING_RETENTION_DAYS after the job completes, not before', async () => {
    const a = await admin(h);
    expect((await api(h, 'PATCH', `/api/jobs/${job.id}/complete`, a.token)).status).toBe(200);
    await sweepRecordings(h.svc.deps, new Date(Date.now() + 89 * 86_400_000));
    expect(await recordingRow(id)).toBeDefined();
    const swept = await sweepRecordings(h.svc.deps, new Date(Date.now() + 91 * 86_400_000));
    expect(swept.retention).toBeGreaterThanOrEqual(1);
    expect(await recordingRow(id)).toBeUndefined();
    expect(existsSync(path.join(recordingsDir(), id))).toBe(false);
    expect(
      (await api(h, 'GET', `/api/jobs/${job.id}/submission`, p.token)).body.recording,
    ).toBeNull();
  });
});

describe('sweeps and clear-all', () => {
  it('deletes an upload abandoned for 24 h that was never submitted', async () => {
    const { job, t } = await claimedJob();
    const loc = (await create(job.id, t.token)).headers.get('location')!;
    const id = loc.split('/').pop()!;
    await tus('PATCH', loc, t.token, { 'Upload-Offset': '0' }, webm.subarray(0, 1000));
    await sweepRecordings(h.svc.deps, new Date(Date.now() + 23 * 3600_000));
    expect(await recordingRow(id)).toBeDefined();
    await sweepRecordings(h.svc.deps, new Date(Date.now() + 25 * 3600_000));
    expect(await recordingRow(id)).toBeUndefined();
    expect(existsSync(path.join(recordingsDir(), id))).toBe(false);
  });

  it('clear-all deletes every recording and its file', async () => {
    const { job, t } = await claimedJob();
    const id = await upload(job.id, t.token);
    await waitFor(
      async () => (await recordingRow(id))?.status === 'complete',
      'recording complete',
    );
    expect(existsSync(path.join(recordingsDir(), id))).toBe(true);
    const token = await mintServiceToken(SECRET, 'admin');
    // Clear-all deletes exactly what its preview showed (the admin confirmed that preview).
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
    await Promise.allSettled([...h.svc.deps.recordingWork]);
    const [{ n }] = await h.svc.ctx.dbHandle.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM jobs.recordings',
    );
    expect(n).toBe(0);
    expect(existsSync(path.join(recordingsDir(), id))).toBe(false);
  });
});

describe('recording limits (per tester, per job, disk budget)', () => {
  /** A tester holding `n` jobs. */
  async function holding(n: number): Promise<{ t: Person; jobs: JobView[] }> {
    const p = await poster(h);
    const t = await tester(h);
    const jobs: JobView[] = [];
    for (let i = 0; i < n; i++) {
      const job = await paidJob(h, p);
      expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)).status).toBe(200);
      jobs.push(job);
    }
    return { t, jobs };
  }
  const start = async (jobId: string, token: string, bytes: number) => {
    const r = await create(jobId, token, { 'Upload-Length': String(Math.round(bytes)) });
    return { status: r.status, body: r.status === 201 ? null : await r.json() };
  };
  const rows = async (jobId: string) =>
    (
      await h.svc.ctx.dbHandle.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM jobs.recordings WHERE job_id = $1',
        [jobId],
      )
    )[0].n;

  it('refuses past the bytes of a job (413) and the uploads in flight of a job and of a tester (429), creating nothing', async () => {
    const { t, jobs } = await holding(2);
    const [a, b] = jobs;
    expect((await start(a.id, t.token, 2 * MB)).status).toBe(201);
    expect((await start(a.id, t.token, 2 * MB)).status).toBe(201);
    // 4 MB reserved for this job; 1 MB more would pass its 4.5 MB.
    expect(await start(a.id, t.token, MB)).toEqual({
      status: 413,
      body: {
        code: 'recording_quota_exceeded',
        detail:
          "This job's recordings would take more than the 4.5 MB allowed per job. Submit with a recording you already made, or record a shorter one.",
      },
    });
    // Small enough, but two uploads of this job are still in flight.
    expect(await start(a.id, t.token, 0.1 * MB)).toEqual({
      status: 429,
      body: {
        code: 'recording_uploads_limit',
        detail:
          'This job already has 2 recordings uploading. Let them finish before starting another (unfinished uploads are cleared after 24 hours).',
      },
    });
    expect(await rows(a.id)).toBe(2);
    // Another job of the same tester: one more in flight (3), then the tester's own limit.
    expect((await start(b.id, t.token, 0.5 * MB)).status).toBe(201);
    expect(await start(b.id, t.token, 0.1 * MB)).toEqual({
      status: 429,
      body: {
        code: 'recording_uploads_limit',
        detail:
          'You already have 3 recordings uploading. Let them finish before starting another (unfinished uploads are cleared after 24 hours).',
      },
    });
    expect(await rows(b.id)).toBe(1);
    // An upload that received nothing for 10 minutes (a recorder that crashed) is no longer in
    // flight: a new recording starts. Its bytes still count until the sweep deletes it.
    await h.svc.ctx.dbHandle.query(
      "UPDATE jobs.recordings SET last_activity_at = now() - interval '11 minutes' WHERE id = (SELECT id FROM jobs.recordings WHERE job_id = $1 ORDER BY created_at LIMIT 1)",
      [a.id],
    );
    expect((await start(b.id, t.token, 0.1 * MB)).status).toBe(201);
    expect((await start(b.id, t.token, 0.5 * MB)).body).toMatchObject({
      code: 'recording_quota_exceeded',
    });
  });

  it("refuses past the bytes of a tester's recordings not yet submitted (413), an upload of deferred length counting at the largest size", async () => {
    const { t, jobs } = await holding(2);
    const [c, d] = jobs;
    expect((await start(c.id, t.token, 2 * MB)).status).toBe(201);
    // Deferred length: reserved at RECORDING_MAX_BYTES (2 MB), 4 MB in all.
    expect((await create(d.id, t.token)).status).toBe(201);
    expect(await start(d.id, t.token, 1.5 * MB)).toEqual({
      status: 413,
      body: {
        code: 'recording_quota_exceeded',
        detail:
          'Your recordings not yet submitted would take more than 5 MB. Submit your work with one of them, or record a shorter one (unused recordings are cleared after 24 hours).',
      },
    });
    expect(await rows(d.id)).toBe(1);
  });

  it('lets only as many simultaneous creations through as the limit allows', async () => {
    const { t, jobs } = await holding(1);
    const burst = await Promise.all(
      Array.from({ length: 6 }, () => start(jobs[0].id, t.token, 1000)),
    );
    expect(burst.map((r) => r.status).sort()).toEqual([201, 201, 429, 429, 429, 429]);
    expect(await rows(jobs[0].id)).toBe(2);
  });

  it('refuses every new recording with 507 once the disk budget is spent, and takes them again when space is back', async () => {
    const { t, jobs } = await holding(1);
    // Recordings already stored take the whole budget (RECORDING_DISK_BUDGET_BYTES, 50 GB by default).
    const filler = `filler${Date.now()}`;
    await h.svc.ctx.dbHandle.query(
      `INSERT INTO jobs.recordings (id, job_id, tester_id, status, size_bytes) VALUES ($1, $2, 'someone-else', 'complete', $3)`,
      [filler, randomUUID(), 50 * 1024 * MB],
    );
    try {
      expect(await start(jobs[0].id, t.token, 1000)).toEqual({
        status: 507,
        body: {
          code: 'recording_storage_full',
          detail:
            'Recordings cannot be stored right now: the space set aside for them is full. Please try again later; you can submit your work without a recording.',
        },
      });
    } finally {
      await h.svc.ctx.dbHandle.query('DELETE FROM jobs.recordings WHERE id = $1', [filler]);
    }
    expect((await start(jobs[0].id, t.token, 1000)).status).toBe(201);
  });
});

describe('bad tus input', () => {
  it('answers 400 to a creation without job_id or with malformed Upload-Metadata', async () => {
    const { t } = await claimedJob();
    const none = await tus('POST', '/api/recordings', t.token, { 'Upload-Defer-Length': '1' });
    expect(none.status).toBe(400);
    expect(((await none.json()) as { detail: string }).detail).toBe(
      'Upload-Metadata must name the job_id the recording is for.',
    );
    const bad = await tus('POST', '/api/recordings', t.token, {
      'Upload-Defer-Length': '1',
      'Upload-Metadata': 'job_id not base64!',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe('invalid_metadata');
  });
});

describe('without ffmpeg', () => {
  it('keeps the recording as uploaded and says in the logs that ffmpeg is missing', async () => {
    const { job, t } = await claimedJob();
    const id = await upload(job.id, t.token);
    await waitFor(async () => (await recordingRow(id))?.duration_ms !== null, 'first remux');
    const before = readFileSync(path.join(recordingsDir(), id));
    const lines: Array<{ obj: Record<string, unknown>; msg: string }> = [];
    const logger = {
      child: () => logger,
      warn: (obj: Record<string, unknown>, msg: string) => lines.push({ obj, msg }),
      info: () => undefined,
      error: () => undefined,
    };
    const deps = Object.assign(Object.create(h.svc.deps) as JobsDeps, {
      media: ffmpegTools('/nonexistent/ffmpeg', '/nonexistent/ffprobe'),
      logger,
    });
    await makeSeekable(deps, id, 'video/webm');
    expect(lines.map((l) => l.msg)).toEqual([expect.stringContaining('ffmpeg/ffprobe not found')]);
    expect(readFileSync(path.join(recordingsDir(), id)).equals(before)).toBe(true);
    expect((await recordingRow(id)).status).toBe('complete');
  });
});
