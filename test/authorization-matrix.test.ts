import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import {
  catalogueGaps,
  checkResponses,
  responseMismatches,
  responsesChecked,
} from '@htm/service-kit';
import { CALLERS, MATRIX, type Caller, type Fixture } from './authorization-matrix.js';
import {
  client,
  postAndPay,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  waitFor,
  type Stack,
} from './support/stack.js';

let stack: Stack;
let tokens: Record<Caller, string | undefined>;
let fixture: Fixture;

beforeAll(async () => {
  // Every 2xx JSON answer of this file is checked against its operation's response schema.
  checkResponses();
  stack = await startStack({ label: 'authz' });
  const admin = await signInAdmin(stack);
  const owner = await signInPoster(stack, 'matrix.owner@gmail.com');
  const otherPoster = await signInPoster(stack, 'matrix.other@gmail.com');
  const tester = await signInTester(stack, 'matrix.tester@gmail.com', { admin });
  const unapproved = await signInTester(stack, 'matrix.unapproved@gmail.com', {
    approved: false,
    country: 'CA',
  });
  tokens = {
    anon: undefined,
    owner: owner.token,
    otherPoster: otherPoster.token,
    unapprovedTester: unapproved.token,
    tester: tester.token,
    admin: admin.token,
  };

  const submitted = await postAndPay(stack, owner);
  expect(
    (await client(stack, tester.token).post(`/api/jobs/${submitted.jobId}/claim`)).status,
  ).toBe(200);
  const form = new FormData();
  form.set('feedback_text', 'Everything loads; the menu is confusing.');
  form.set('key_finding_1', 'Menu labels are vague');
  form.set(
    'screenshot',
    new Blob(
      [
        await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
          .png()
          .toBuffer(),
      ],
      { type: 'image/png' },
    ),
    's.png',
  );
  const sub = await fetch(`${stack.url}/api/jobs/${submitted.jobId}/submit-work`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tester.token}` },
    body: form,
  });
  expect(sub.status).toBe(201);
  const claimed = await postAndPay(stack, owner);
  expect((await client(stack, tester.token).post(`/api/jobs/${claimed.jobId}/claim`)).status).toBe(
    200,
  );
  const open = await postAndPay(stack, owner);
  const seen = await client(stack, tester.token).get(`/api/jobs/${submitted.jobId}/submission`);
  const fileUrl = new URL(seen.body.file_urls![0], stack.url);
  // The bearer token, not the signed link, is what this matrix tests.
  fileUrl.searchParams.delete('sig');
  fileUrl.searchParams.delete('exp');
  // A job request already made by every signed-in caller, so the matrix row sees 409 (passed authorization).
  for (const c of CALLERS.filter((x) => x !== 'anon'))
    await client(stack, tokens[c]).post('/api/waitlist', {
      email: 'm@gmail.com',
      role: 'Site owner',
      url: 'https://m.example',
      note: 'check it',
    });
  // site-check learns owners and holders from the event stream: wait until it knows these jobs.
  await waitFor(async () => {
    const rows = await stack.siteCheck.ctx.dbHandle.query<{
      job_id: string;
      tester_id: string | null;
    }>(
      'SELECT job_id, tester_id FROM site_check.jobs WHERE job_id = ANY($1) AND session_id IS NOT NULL AND poster_id IS NOT NULL',
      [[claimed.jobId, open.jobId]],
    );
    return (
      rows.length === 2 && rows.some((r) => r.job_id === claimed.jobId && r.tester_id === tester.id)
    );
  }, 'site-check knows the fixture jobs and their holder');
  fixture = {
    submitted: submitted.jobId,
    claimed: claimed.jobId,
    open: open.jobId,
    sessionId: submitted.sessionId,
    fileUrl: fileUrl.pathname + fileUrl.search,
    testerId: tester.id,
    unapprovedTesterId: unapproved.id,
  };
});
afterAll(async () => {
  await stack?.stop();
});

describe('authorization matrix through the gateway', () => {
  // Before the matrix (its last row clears every job). The gateway streams tus PATCHes (upload
  // route flag) and passes tus and Range headers both ways.
  it('carries a tus upload (creation, PATCH, HEAD) and a Range read of the recording through the gateway', async () => {
    const webm = Buffer.concat([
      Buffer.from([0x1a, 0x45, 0xdf, 0xa3]),
      Buffer.from('webm'),
      Buffer.alloc(20_000, 7),
    ]);
    const tusHeaders = { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${tokens.tester}` };
    const created = await fetch(`${stack.url}/api/recordings`, {
      method: 'POST',
      headers: {
        ...tusHeaders,
        'Upload-Length': String(webm.length),
        'Upload-Metadata': `job_id ${Buffer.from(fixture.claimed).toString('base64')},filetype ${Buffer.from('video/webm').toString('base64')}`,
      },
    });
    expect(created.status).toBe(201);
    const loc = created.headers.get('location')!;
    expect(loc).toMatch(/^\/api\/recordings\//);
    const patch = (offset: number, body: Buffer) =>
      fetch(`${stack.url}${loc}`, {
        method: 'PATCH',
        headers: {
          ...tusHeaders,
          'Upload-Offset': String(offset),
          'Content-Type': 'application/offset+octet-stream',
        },
        body: new Uint8Array(body),
      });
    expect((await patch(0, webm.subarray(0, 5000))).status).toBe(204);
    const head = await fetch(`${stack.url}${loc}`, { method: 'HEAD', headers: tusHeaders });
    expect(head.headers.get('upload-offset')).toBe('5000');
    const last = await patch(5000, webm.subarray(5000));
    expect(last.status).toBe(204);
    const ranged = await fetch(`${stack.url}${loc}`, {
      headers: { authorization: `Bearer ${tokens.tester}`, Range: 'bytes=0-99' },
    });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 0-99/${webm.length}`);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(webm.subarray(0, 100))).toBe(true);
    const stranger = await fetch(`${stack.url}${loc}`, {
      headers: { authorization: `Bearer ${tokens.otherPoster}`, Range: 'bytes=0-99' },
    });
    expect(stranger.status).toBe(403);
  });

  it('answers every route x caller cell as the matrix says', async () => {
    const wrong: string[] = [];
    let cells = 0;
    for (const row of MATRIX) {
      for (const caller of CALLERS) {
        const path = row.path(fixture);
        const r = await client(stack, tokens[caller]).call(
          row.method,
          path,
          row.body ?? (row.method === 'GET' ? undefined : {}),
        );
        cells++;
        if (r.status !== row.expect[caller])
          wrong.push(
            `${row.method} ${path} as ${caller}: expected ${row.expect[caller]}, got ${r.status} ${JSON.stringify(r.body).slice(0, 160)}`,
          );
        if (r.status >= 400)
          expect(r.body).toEqual(
            expect.objectContaining({ detail: expect.any(String), code: expect.any(String) }),
          );
      }
    }
    expect(wrong).toEqual([]);
    expect(cells).toBe(MATRIX.length * CALLERS.length);
  }, 180_000); // some 400 requests one after another: minutes on a busy machine

  it("mounts every service's express routes from the operation catalogue: none without an entry, no entry without a route", () => {
    for (const name of [
      'identity',
      'jobs',
      'payments',
      'admin',
      'notifications',
      'analytics',
    ] as const) {
      expect([name, catalogueGaps(stack[name].app, name)]).toEqual([
        name,
        { unknown: [], missing: [] },
      ]);
    }
  });

  it('answered every 2xx JSON of this file as its operation declares (no missing, mistyped or undeclared field)', () => {
    expect(responseMismatches).toEqual([]);
    console.log(
      `answers checked against their schemas: ${[...responsesChecked.values()].reduce((a, b) => a + b, 0)} over ${responsesChecked.size} operations`,
    );
    expect(responsesChecked.size).toBeGreaterThan(40);
  });
});
