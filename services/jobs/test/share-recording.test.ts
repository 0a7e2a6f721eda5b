/**
 * The shared report plays the job's screen recording through the share token (issue #32 with
 * #30's recordings): the JSON, the /r page (a <video> with the findings' moments as #t= links)
 * and the PDF's "Watch at" links all point at /api/shared/{token}/recording, which answers Range
 * requests with 206 and 404 once the link is revoked.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SharedReportView, ShareLinkView } from '@htm/contracts';
import { api, paidJob, poster, startHarness, tester, type Harness } from './helpers.js';

let h: Harness;
let webm: Buffer;
beforeAll(async () => {
  h = await startHarness('share-recording');
  const dir = mkdtempSync(path.join(tmpdir(), 'share-rec-'));
  const file = path.join(dir, 'clip.webm');
  execFileSync('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=duration=3:size=160x120:rate=10',
    '-c:v',
    'libvpx',
    '-b:v',
    '200k',
    file,
  ]);
  webm = readFileSync(file);
});
afterAll(async () => {
  await h?.close();
});

const b64 = (s: string) => Buffer.from(s).toString('base64');
const tus = (
  method: string,
  p: string,
  token: string,
  headers: Record<string, string>,
  body?: Buffer,
) =>
  fetch(`${h.svc.url}${p}`, {
    method,
    headers: {
      'Tus-Resumable': '1.0.0',
      authorization: `Bearer ${token}`,
      ...(body ? { 'Content-Type': 'application/offset+octet-stream' } : {}),
      ...headers,
    },
    body: body ? new Uint8Array(body) : undefined,
  });

describe('the shared report plays the recording', () => {
  it('links the recording through the token, answers Range with 206, and 404 after revoke', async () => {
    const p = await poster(h);
    const t = await tester(h);
    const job = await paidJob(h, p);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)).status).toBe(200);
    const c = await tus('POST', '/api/recordings', t.token, {
      'Upload-Metadata': `job_id ${b64(job.id)},filetype ${b64('video/webm')}`,
      'Upload-Length': String(webm.length),
    });
    expect(c.status).toBe(201);
    const loc = c.headers.get('location')!;
    expect((await tus('PATCH', loc, t.token, { 'Upload-Offset': '0' }, webm)).status).toBe(204);
    const form = new FormData();
    form.append('feedback_text', 'The signup button is hidden below the fold on mobile.');
    form.append('key_finding_1', 'Signup button hard to find');
    form.append('key_finding_1_at_ms', '1500');
    form.append('key_finding_1_severity', 'major');
    form.append('recording_id', loc.split('/').pop()!);
    const s = await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, form);
    expect(s.status).toBe(201);

    const share = await api<ShareLinkView>(h, 'POST', `/api/jobs/${job.id}/share`, p.token, {});
    expect(share.status).toBe(201);
    const token = share.body.token;
    const recUrl = `/api/shared/${token}/recording`;

    const shared = await api<SharedReportView>(h, 'GET', `/api/shared/${token}`);
    expect(shared.status).toBe(200);
    expect(shared.body.recording).toEqual({
      url: recUrl,
      mime_type: 'video/webm',
      duration_ms: expect.any(Number),
    });
    expect(shared.body.findings[0]).toMatchObject({
      text: 'Signup button hard to find',
      at_ms: 1500,
    });

    const ranged = await fetch(`${h.svc.url}${recUrl}`, { headers: { Range: 'bytes=0-99' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-type')).toBe('video/webm');
    expect(ranged.headers.get('content-range')).toMatch(/^bytes 0-99\/\d+$/);
    expect(ranged.headers.get('x-robots-tag')).toContain('noindex');
    expect((await ranged.arrayBuffer()).byteLength).toBe(100);

    // The page: a <video> on the shared recording, the finding's moment a media-fragment link.
    const page = await (
      await fetch(`${h.svc.url}/r/${token}`, { headers: { accept: 'text/html' } })
    ).text();
    expect(page).toContain(`<video`);
    expect(page).toContain(`src="${recUrl}"`);
    expect(page).toContain(`href="${recUrl}#t=1.5"`);
    expect(page).toContain('Watch at 0:01');

    // The PDF's "Watch at" link is absolute and goes through the token too.
    const pdf = Buffer.from(
      await (await fetch(`${h.svc.url}/api/shared/${token}/report.pdf`)).arrayBuffer(),
    ).toString('latin1');
    expect(pdf).toContain(`${recUrl}#t=1.5`);

    expect((await api(h, 'DELETE', `/api/jobs/${job.id}/share`, p.token)).status).toBe(204);
    const after = await fetch(`${h.svc.url}${recUrl}`, { headers: { Range: 'bytes=0-99' } });
    expect(after.status).toBe(404);
    expect(await after.json()).toMatchObject({ code: 'link_gone' });
  });
});
