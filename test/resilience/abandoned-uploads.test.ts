/**
 * Uploads that never finish: a tester's connection drops in the middle of a big upload, or stops
 * sending without closing. Neither may leave a temporary file, an open file or a request that
 * never ends; and the temporary files a crash left behind are swept when the service starts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { startJobs } from '@htm/jobs';
import {
  client,
  postAndPay,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  waitFor,
  JOB,
  type Actor,
  type Stack,
} from '../support/stack.js';
import { sleep } from './helpers.js';

const UPLOAD_IDLE_TIMEOUT_MS = 3000;
const DECLARED_BYTES = 50 * 1024 * 1024;

let stack: Stack;
let tester: Actor;
let jobId: string;
let uploadDir: string;
const tmp = () => path.join(uploadDir, 'tmp');
const parts = () => {
  try {
    return readdirSync(tmp()).filter((f) => f.endsWith('.part'));
  } catch {
    return [];
  }
};

beforeAll(async () => {
  uploadDir = mkdtempSync(path.join(tmpdir(), 'htm-abandoned-uploads-'));
  stack = await startStack({
    label: 'abandoned-uploads',
    withWorker: false,
    env: {
      UPLOAD_DIR: uploadDir,
      UPLOAD_IDLE_TIMEOUT_MS: String(UPLOAD_IDLE_TIMEOUT_MS),
      MAX_ACTIVE_CLAIMS: '3',
    },
  });
  const admin = await signInAdmin(stack);
  const poster = await signInPoster(stack, 'uploads.poster@gmail.com');
  tester = await signInTester(stack, 'uploads.tester@gmail.com', { admin });
  ({ jobId } = await postAndPay(stack, poster, {
    ...JOB,
    title: 'Abandoned uploads',
    geo_rule: 'global_beta',
  }));
  expect((await client(stack, tester.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
}, 180_000); // starting a stack on a busy machine can take over a minute
afterAll(async () => {
  await stack?.stop();
  rmSync(uploadDir, { recursive: true, force: true });
}, 60_000);

/**
 * Starts a 50 MB screenshot upload straight to the jobs service and sends its first megabyte (a
 * real PNG, so the type check passes and a temporary file is written), then stops sending.
 */
async function startUpload(): Promise<{
  req: http.ClientRequest;
  answer: Promise<{ status: number; body: string } | 'closed'>;
}> {
  const boundary = '----htmAbandoned';
  const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3366ff' } })
    .png()
    .toBuffer();
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="screenshot"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
  );
  const url = new URL(`${stack.jobs.url}/api/jobs/${jobId}/submit-work`);
  const req = http.request(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${tester.token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(DECLARED_BYTES),
    },
  });
  const answer = new Promise<{ status: number; body: string } | 'closed'>((resolve) => {
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d) => (body += String(d)));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', () => resolve('closed'));
    });
    req.on('error', () => resolve('closed'));
  });
  req.write(head);
  req.write(png);
  req.write(Buffer.alloc(1024 * 1024, 7));
  await waitFor(() => parts().length > 0, 'the temporary file of the upload');
  return { req, answer };
}

describe('abandoned uploads', () => {
  it('deletes the temporary file when the client disconnects in the middle of an upload', async () => {
    const { req } = await startUpload();
    req.destroy();
    await waitFor(
      () => parts().length === 0,
      'the temporary file to be deleted after the disconnect',
      10_000,
    );
    // The service is fine and the job still waits for its work.
    expect((await client(stack, tester.token).get('/api/tester/my-jobs')).status).toBe(200);
  });

  it('ends an upload that stops sending with a JSON error and deletes its temporary file', async () => {
    const { req, answer } = await startUpload();
    const r = await waitFor(
      () => Promise.race([answer, sleep(50).then(() => undefined)]),
      'an answer to the stalled upload',
      15_000,
    );
    req.destroy();
    expect(r).not.toBe('closed');
    const { status, body } = r as { status: number; body: string };
    expect(status).toBe(400);
    expect(JSON.parse(body)).toEqual(
      expect.objectContaining({ code: 'upload_stalled', detail: expect.any(String) }),
    );
    await waitFor(
      () => parts().length === 0,
      'the temporary file to be deleted after the stall',
      10_000,
    );
    // Nothing was stored: the job is still claimed, with no submission.
    expect(
      (
        await stack.sql<{ status: string }>('SELECT status FROM jobs.jobs WHERE id = $1', [jobId])
      )[0].status,
    ).toBe('claimed');
  });

  it('sweeps temporary files a crash left behind when the service starts', async () => {
    mkdirSync(tmp(), { recursive: true });
    const leftover = path.join(tmp(), 'left-by-a-crash.part');
    writeFileSync(leftover, Buffer.alloc(1024));
    const anHourAgo = new Date(Date.now() - 3600_000);
    utimesSync(leftover, anHourAgo, anHourAgo);
    const fresh = path.join(tmp(), 'being-written-now.part');
    writeFileSync(fresh, Buffer.alloc(10));
    const restarted = await startJobs({ ...stack.env }, { port: 0, withWorker: false });
    try {
      expect(parts()).toEqual(['being-written-now.part']);
    } finally {
      await restarted.stop();
      rmSync(fresh, { force: true });
    }
  });
});
