/**
 * The shared report plays the job's screen recording through the share token (issue #32 with
 * #30's recordings): the JSON, the /r page (a <video>; each finding's moment starts it there)
 * and the PDF's "Watch at" links all point at /api/shared/{token}/recording, which answers Range
 * requests with 206 and 404 once the link is revoked. The verdict (issue #51) leads the shared
 * report: the summary, the highlight reel's clips through the token, the PDF's first page with a
 * still of each problem's moment; a pack gets one link and one PDF for all its testers.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type {
  PackView,
  ReportSummary,
  SharedPackView,
  SharedReportView,
  ShareLinkView,
} from '@htm/contracts';
import {
  api,
  paidJob,
  paidPack,
  poster,
  startHarness,
  tester,
  testPatternWebm,
  uploadRecording,
  waitFor,
  type Harness,
  type Person,
} from './helpers.js';

let h: Harness;
let webm: Buffer;
/** 30 s: two moments far enough apart to make two clips. */
let longWebm: Buffer;
beforeAll(async () => {
  h = await startHarness('share-recording');
  webm = testPatternWebm(3);
  longWebm = testPatternWebm(30, 5);
});
afterAll(async () => {
  await h?.close();
});

describe('the shared report plays the recording', () => {
  it('links the recording through the token, answers Range with 206, and 404 after revoke', async () => {
    const p = await poster(h);
    const t = await tester(h);
    const job = await paidJob(h, p);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)).status).toBe(200);
    const recordingId = await uploadRecording(h, job.id, t.token, webm);
    const form = formOf({
      feedback_text: 'The signup button is hidden below the fold on mobile.',
      key_finding_1: 'Signup button hard to find',
      key_finding_1_at_ms: '1500',
      key_finding_1_severity: 'major',
      recording_id: recordingId,
    });
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

    // The page: a <video> on the shared recording; a finding's "Watch at" opens this page with
    // the player starting at its moment (?t=), not the raw file.
    const page = await (
      await fetch(`${h.svc.url}/r/${token}`, { headers: { accept: 'text/html' } })
    ).text();
    expect(page).toContain(`<video`);
    expect(page).toContain(`src="${recUrl}"`);
    expect(page).toContain('href="?t=1.5#recording"');
    expect(page).toContain('Watch at 0:01');
    const atMoment = await (
      await fetch(`${h.svc.url}/r/${token}?t=1.5`, { headers: { accept: 'text/html' } })
    ).text();
    expect(atMoment).toContain(`src="${recUrl}#t=1.5"`);

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

/** Text of a PDF, page by page. */
function pdfPages(pdf: Buffer): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'share-pdf-'));
  const file = path.join(dir, 'r.pdf');
  writeFileSync(file, pdf);
  return execFileSync('pdftotext', [file, '-'])
    .toString('utf8')
    .split('\f')
    .map((p) => p.replace(/\s+/g, ' '));
}

async function pdfOf(url: string, token?: string): Promise<Buffer> {
  const res = await fetch(`${h.svc.url}${url}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  expect([url, res.status, res.headers.get('content-type')]).toEqual([url, 200, 'application/pdf']);
  return Buffer.from(await res.arrayBuffer());
}

/** Computes waiting summaries until the poster's view of one is as wanted. */
async function summaryWhen(
  path: string,
  token: string,
  ready: (s: ReportSummary) => boolean,
): Promise<ReportSummary> {
  let last: unknown;
  return waitFor(async () => {
    await h.svc.summaries.computeDue();
    const r = await api<ReportSummary>(h, 'GET', path, token);
    last = r.body;
    return r.status === 200 && ready(r.body) ? r.body : undefined;
  }, `${path} as wanted`).catch((err: Error) => {
    throw new Error(`${err.message}: last ${JSON.stringify(last).slice(0, 500)}`);
  });
}

/** A report's multipart form from its fields. */
function formOf(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}

const ranged = (url: string) => fetch(`${h.svc.url}${url}`, { headers: { Range: 'bytes=0-99' } });

describe('the verdict in the shared report (issue #51)', () => {
  it("leads the job's shared JSON, page and PDF with its summary; the reel's clips play through the token", async () => {
    const p = await poster(h);
    const t = await tester(h, { name: 'Sam Smith' });
    const job = await paidJob(h, p, {
      requirements: ['Pay for a cake', 'Find the opening hours'],
    });
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)).status).toBe(200);
    const recordingId = await uploadRecording(h, job.id, t.token, longWebm);
    const form = formOf({
      feedback_text: 'Paying did not work, the rest was fine.',
      key_finding_1: 'The pay button is hidden under the cookie banner',
      key_finding_1_severity: 'blocker',
      key_finding_1_at_ms: '1000',
      key_finding_1_requirement_index: '0',
      key_finding_2: 'The logo is blurry',
      key_finding_2_severity: 'cosmetic',
      key_finding_2_at_ms: '18000',
      task_answers: JSON.stringify([
        { requirement_index: 0, outcome: 'not_done', seq: 2, minutes: 5 },
        { requirement_index: 1, outcome: 'done', seq: 7, minutes: 1 },
      ]),
      recording_id: recordingId,
    });
    expect((await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, form)).status).toBe(
      201,
    );
    // The reel needs the recording's duration (the remux measures it; the summary follows).
    await summaryWhen(`/api/jobs/${job.id}/summary`, p.token, (s) => s.reel.length === 2);
    const share = await api<ShareLinkView>(h, 'POST', `/api/jobs/${job.id}/share`, p.token, {});
    const token = share.body.token;
    const clip = `/api/shared/${token}/recordings/${recordingId}`;

    const shared = await api<SharedReportView>(h, 'GET', `/api/shared/${token}`);
    expect(shared.status).toBe(200);
    const summary = shared.body.summary!;
    expect(
      summary.problems.map((x) => [x.severity, x.title, x.testers_hit, x.testers_total]),
    ).toEqual([
      ['blocker', 'The pay button is hidden under the cookie banner', 1, 1],
      ['cosmetic', 'The logo is blurry', 1, 1],
    ]);
    expect(summary.problems[0].evidence[0]).toMatchObject({
      at_ms: 1000,
      text: 'The pay button is hidden under the cookie banner',
      tester: 'Sam',
      recording_url: clip,
    });
    expect(summary.reel).toEqual([
      expect.objectContaining({ start_ms: 0, end_ms: 11_000, url: clip }),
      expect.objectContaining({ start_ms: 13_000, end_ms: 28_000, url: clip }),
    ]);
    // Locked until accepted: task metrics count accepted reports only.
    expect(summary.locked).toBe(true);
    expect(summary.tasks.every((x) => x.n === 0)).toBe(true);
    const res = await ranged(clip);
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toMatch(/^bytes 0-99\/\d+$/);
    expect((await ranged(`/api/shared/${token}/recordings/not-this-one`)).status).toBe(404);

    // Accepted: the task metrics are in.
    expect(
      (await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, { decision: 'accept' })).status,
    ).toBe(200);
    await summaryWhen(
      `/api/jobs/${job.id}/summary`,
      p.token,
      (s) => !s.locked && s.tasks[0].n === 1,
    );
    const page = await (
      await fetch(`${h.svc.url}/r/${token}`, { headers: { accept: 'text/html' } })
    ).text();
    expect(page.indexOf('Fix first')).toBeLessThan(page.indexOf('>Findings<'));
    expect(page).toContain('Success: 0% (1 tester)');
    expect(page).toContain(`src="${clip}#t=0.0,11.0"`);
    expect(page).toContain(`data-url="${clip}" data-start="13000" data-end="28000"`);
    expect(page).toContain('<script type="module" src="/share-reel.js"></script>');

    // The PDF's first page: the summary, a still of each problem's moment, the task metrics.
    const pdf = await pdfOf(`/api/shared/${token}/report.pdf`);
    const [first, second] = pdfPages(pdf);
    for (const x of [
      'Findings by severity: 1 blocker, 1 cosmetic.',
      'Fix first',
      '1. [BLOCKER] The pay button is hidden under the cookie banner',
      '1 of 1 tester · Pay for a cake',
      'How each thing to check went',
      'Harder than most sites (2 of 7, 1 tester).',
    ])
      expect(first).toContain(x);
    expect(second).toContain('Findings');
    expect(pdf.toString('latin1').match(/\/Subtype \/Image/g)).toHaveLength(2);
    // The poster's own PDF leads with the same page.
    expect(pdfPages(await pdfOf(`/api/jobs/${job.id}/report.pdf`, p.token))[0]).toContain(
      '1. [BLOCKER] The pay button is hidden under the cookie banner',
    );

    expect((await api(h, 'DELETE', `/api/jobs/${job.id}/share`, p.token)).status).toBe(204);
    expect((await ranged(clip)).status).toBe(404);
  });

  it('gives a pack one share link and one PDF, what its testers agree on first', async () => {
    const p = await poster(h);
    const other = await poster(h);
    const { packId, jobs } = await paidPack(h, p, 2, {
      title: 'My shop',
      requirements: ['Buy a mug'],
    });
    const [t1, t2]: Person[] = [
      await tester(h, { name: 'Sam Smith' }),
      await tester(h, { name: 'Kim Lee' }),
    ];
    const [j1, j2] = jobs;
    const shareOf = (token: string) =>
      api<ShareLinkView & { code: string }>(h, 'POST', `/api/packs/${packId}/share`, token, {});
    // Nothing to share before a report is in.
    expect((await shareOf(p.token)).body.code).toBe('no_submission');

    expect((await api(h, 'POST', `/api/jobs/${j1.id}/claim`, t1.token)).status).toBe(200);
    expect((await api(h, 'POST', `/api/jobs/${j2.id}/claim`, t2.token)).status).toBe(200);
    const recordingId = await uploadRecording(h, j1.id, t1.token, longWebm);
    const f1 = formOf({
      feedback_text: 'I could not buy without an account.',
      key_finding_1: 'Checkout forces account creation',
      key_finding_1_severity: 'blocker',
      key_finding_1_at_ms: '4000',
      recording_id: recordingId,
    });
    expect((await api(h, 'POST', `/api/jobs/${j1.id}/submit-work`, t1.token, f1)).status).toBe(201);
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#336' } })
      .png()
      .toBuffer();
    const f2 = formOf({
      feedback_text: 'Signing up was required to pay for the mug.',
      key_finding_1: 'Must create an account to check out',
      key_finding_1_severity: 'major',
    });
    f2.append('screenshot', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'cart.png');
    expect((await api(h, 'POST', `/api/jobs/${j2.id}/submit-work`, t2.token, f2)).status).toBe(201);
    await summaryWhen(
      `/api/packs/${packId}/summary`,
      p.token,
      (s) => s.problems[0]?.testers_hit === 2 && s.reel.length === 1,
    );

    // One link for the pack: the same again; only its poster (or the admin) makes it.
    const share = await shareOf(p.token);
    expect(share.status).toBe(201);
    expect((await shareOf(p.token)).body.token).toBe(share.body.token);
    expect((await shareOf(other.token)).status).toBe(403);
    expect((await shareOf(t1.token)).status).toBe(403);
    expect(
      (await api(h, 'POST', '/api/packs/00000000-0000-4000-8000-000000000000/share', p.token, {}))
        .status,
    ).toBe(404);
    const token = share.body.token;

    const shared = await api<SharedPackView>(h, 'GET', `/api/shared/${token}`);
    expect(shared.status).toBe(200);
    expect(shared.body.pack).toEqual({ id: packId, size: 2, reported: 2 });
    expect(shared.body.summary!.problems[0]).toMatchObject({
      severity: 'blocker',
      testers_hit: 2,
      testers_total: 2,
    });
    const clip = `/api/shared/${token}/recordings/${recordingId}`;
    expect(shared.body.summary!.reel[0]).toMatchObject({ start_ms: 0, end_ms: 14_000, url: clip });
    expect(shared.body.reports.map((r) => [r.tester.first_name, r.findings[0].text])).toEqual([
      ['Sam', 'Checkout forces account creation'],
      ['Kim', 'Must create an account to check out'],
    ]);
    expect(shared.body.reports[0].recording?.url).toBe(clip);
    expect((await ranged(clip)).status).toBe(206);
    // The screenshot (the preview while the report is not accepted) through the pack's token.
    const shot = shared.body.reports[1].screenshots[0].url;
    expect(shot).toMatch(new RegExp(`^/api/shared/${token}/files/`));
    expect((await fetch(`${h.svc.url}${shot}`)).status).toBe(200);

    const page = await (
      await fetch(`${h.svc.url}/r/${token}`, { headers: { accept: 'text/html' } })
    ).text();
    expect(page.indexOf('What the testers agree on')).toBeLessThan(
      page.indexOf("Each tester's report"),
    );
    expect(page).toContain('2 of 2 testers');
    expect(page).toContain('Tester 2: Kim');

    const pdf = pdfPages(await pdfOf(`/api/packs/${packId}/report.pdf`, p.token));
    expect(pdf[0]).toContain('2 of 2 testers have reported.');
    expect(pdf[0]).toContain('[BLOCKER] Checkout forces account creation');
    expect(pdf[0]).toContain('2 of 2 testers');
    const rest = pdf.slice(1).join(' ');
    expect(rest).toContain('Tester 1: Sam');
    expect(rest).toContain('Tester 2: Kim');
    expect((await api(h, 'GET', `/api/packs/${packId}/report.pdf`, other.token)).status).toBe(403);
    // The pack view the poster's card reads is unchanged by the link.
    expect((await api<PackView>(h, 'GET', `/api/packs/${packId}`, p.token)).status).toBe(200);

    expect((await api(h, 'DELETE', `/api/packs/${packId}/share`, p.token)).status).toBe(204);
    const gone = await api<{ code: string }>(h, 'GET', `/api/shared/${token}`);
    expect([gone.status, gone.body.code]).toEqual([404, 'link_gone']);
  });
});
