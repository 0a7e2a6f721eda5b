/**
 * A full disk is our failure, not the tester's: storing an upload that meets ENOSPC answers 507
 * with a sentence that says the draft is kept (never 415 "wrong file type"), stores nothing, and
 * moves the claim deadline so the tester's clock does not run out because of it. Readiness
 * reports low disk space below MIN_FREE_DISK_BYTES.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { api, paidJob, poster, startHarness, tester, type Harness } from './helpers.js';

const SENTENCE =
  'We could not store your file right now; your draft is kept, try again in a few minutes';
const enospc = () =>
  Object.assign(new Error('ENOSPC: no space left on device, write'), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
  });

let h: Harness;
let png: Buffer;
beforeAll(async () => {
  h = await startHarness('storage_full', { CLAIM_TIMEOUT_MS: String(10 * 60_000) });
  png = await sharp(randomBytes(200 * 150 * 3), { raw: { width: 200, height: 150, channels: 3 } })
    .png()
    .toBuffer();
});
afterAll(async () => {
  await h?.close();
});

const counts = async () =>
  (
    await h.svc.ctx.dbHandle.query<{ s: number; f: number }>(
      'SELECT (SELECT count(*)::int FROM jobs.submissions) AS s, (SELECT count(*)::int FROM jobs.files) AS f',
    )
  )[0];
const form = () => {
  const f = new FormData();
  f.append('feedback_text', 'The signup button is hidden below the fold on mobile.');
  f.append('key_finding_1', 'Signup button hard to find');
  f.append('screenshot', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'shot.png');
  return f;
};

describe('an upload that meets a full disk', () => {
  it('answers 507 with the sentence, stores nothing, keeps the claim and gives its clock an hour more', async () => {
    const p = await poster(h);
    const t = await tester(h);
    const job = await paidJob(h, p);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)).status).toBe(200);
    const [{ deadline: before }] = await h.svc.ctx.dbHandle.query<{ deadline: Date }>(
      'SELECT claim_deadline_at AS deadline FROM jobs.jobs WHERE id = $1',
      [job.id],
    );
    const storage = h.svc.deps.storage;
    const putFile = storage.putFile.bind(storage);
    const stored: string[] = [];
    storage.putFile = async () => {
      throw enospc();
    };
    const was = await counts();
    try {
      const r = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, form());
      expect(r.status).toBe(507);
      expect(r.body).toEqual({ detail: SENTENCE, code: 'storage_full' });
    } finally {
      storage.putFile = async (key, tmp, type) => {
        stored.push(key);
        return putFile(key, tmp, type);
      };
    }
    expect(await counts()).toEqual(was);
    const [row] = await h.svc.ctx.dbHandle.query<{ status: string; deadline: Date }>(
      'SELECT status, claim_deadline_at AS deadline FROM jobs.jobs WHERE id = $1',
      [job.id],
    );
    expect(row.status).toBe('claimed');
    expect(row.deadline.getTime()).toBeGreaterThan(before.getTime());
    expect(row.deadline.getTime()).toBeGreaterThanOrEqual(Date.now() + 59 * 60_000);

    // The disk has room again: the same draft goes through.
    const again = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, form());
    expect(again.status).toBe(201);
    expect(stored).toHaveLength(1);
  });

  it('answers 507, not 415, when the preview cannot be stored either', async () => {
    const p = await poster(h);
    const t = await tester(h);
    const job = await paidJob(h, p);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)).status).toBe(200);
    const storage = h.svc.deps.storage;
    const putBuffer = storage.putBuffer.bind(storage);
    storage.putBuffer = async () => {
      throw new Error('Failed to write preview', { cause: enospc() });
    };
    const was = await counts();
    try {
      const r = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, form());
      expect(r.status).toBe(507);
      expect(r.body.code).toBe('storage_full');
    } finally {
      storage.putBuffer = putBuffer;
    }
    expect(await counts()).toEqual(was);
  });
});

describe('readiness and disk space', () => {
  it('fails /readyz with the reason when free space is below MIN_FREE_DISK_BYTES', async () => {
    expect((await fetch(`${h.svc.url}/readyz`)).status).toBe(200);
    const low = await startHarness('disk_low', { MIN_FREE_DISK_BYTES: String(2 ** 52) });
    try {
      const r = await fetch(`${low.svc.url}/readyz`);
      expect(r.status).toBe(503);
      const body = (await r.json()) as { checks: Record<string, string> };
      expect(body.checks.database).toBe('ok');
      expect(body.checks.disk).toMatch(
        /^low disk space: \d+ MB free under .+, below MIN_FREE_DISK_BYTES \(\d+ MB\)$/,
      );
    } finally {
      await low.close();
    }
  });
});
