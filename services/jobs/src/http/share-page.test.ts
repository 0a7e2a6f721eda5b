import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SharedPackView, SharedReportView } from '@htm/contracts';
import { summaryFixture } from '@htm/contracts/testing';
import { renderReportPdf, type PdfInput } from '../providers/report-pdf.js';
import { packSharePage, sharePage } from './share-page.js';

/** The PDF of one job's report (no summary unless given). */
const pdfInput = (
  r: SharedReportView,
  recordingAt: (ms: number) => string | null = () => null,
  over: Partial<PdfInput> = {},
): PdfInput => ({
  title: r.job.title,
  url: r.job.url,
  summary: null,
  stills: new Map(),
  reports: [{ view: r, images: [], recordingAt }],
  healthCheck: r.health_check,
  origin: 'https://app.example',
  ...over,
});

/** Text of a PDF, page by page (pdftotext separates pages with a form feed). */
function pdfPages(pdf: Buffer): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'pdf-unit-'));
  writeFileSync(path.join(dir, 'r.pdf'), pdf);
  return execFileSync('pdftotext', [path.join(dir, 'r.pdf'), '-'])
    .toString('utf8')
    .split('\f')
    .map((p) => p.replace(/\s+/g, ' '));
}

/** A report with the structured findings and recording of "The report, next level" (as they will arrive). */
const report = (): SharedReportView => ({
  job: {
    id: '11111111-2222-4333-8444-555555555555',
    title: 'Checkout <flow>',
    url: 'https://shop.example/cart',
    requirements: [],
  },
  submitted_at: '2026-03-01T10:00:00Z',
  locked: false,
  tester: { first_name: 'Sam', country: 'CA' },
  device_used: 'Pixel 8',
  browser_used: 'Chrome',
  findings: [
    {
      text: 'Pay button hidden',
      severity: 'blocker',
      steps: '1. Add a cake\n2. Open the cart',
      expected: 'A Pay button',
      actual: 'The cookie banner covers it',
      at_ms: 72_500,
    },
    {
      text: 'Typo in the footer',
      severity: 'cosmetic',
      steps: null,
      expected: null,
      actual: null,
      at_ms: null,
    },
  ],
  requirement_responses: [],
  general_feedback: null,
  screenshots: [],
  recording: { url: '/api/shared/tok/files/rec-1', mime_type: 'video/webm', duration_ms: 90_000 },
  pdf_url: '/api/shared/tok/report.pdf',
  expires_at: '2026-04-01T10:00:00Z',
  health_check: null,
});

describe('the share page', () => {
  it("shows severity, steps, expected/actual and the recording at each finding's moment, escaped, without script", () => {
    const html = sharePage(report());
    expect(html).toContain('Checkout &lt;flow&gt;');
    expect(html).not.toContain('<flow>');
    expect(html).not.toContain('<script');
    expect(html).toContain('>blocker</span>Pay button hidden');
    expect(html).toContain('Steps to reproduce');
    expect(html).toContain('The cookie banner covers it');
    expect(html).toContain('<video');
    // "Watch at" stays on this page and starts the player above at the moment (no raw file, no script).
    expect(html).not.toContain('href="/api/shared/tok/files/rec-1#t=72.5"');
    expect(html).toContain('<a style="color:#1f5fd1" href="?t=72.5#recording">Watch at 1:12</a>');
    expect(html).toContain('id="recording"');
    expect(html).toContain('Watch at 1:12');
    const at = sharePage(report(), { startAtMs: 72_500 });
    expect(at).toContain('src="/api/shared/tok/files/rec-1#t=72.5"');
    expect(at).toContain('Starts at 1:12: press play.');
    // A moment past the recording's end is ignored.
    expect(sharePage(report(), { startAtMs: 999_000 })).toContain(
      'src="/api/shared/tok/files/rec-1"',
    );
    // The product's name and the way to get one's own test.
    expect(html).toContain('<strong>HumanTest</strong> · website test report');
    expect(html).toMatch(/<a [^>]*href="\/">Get your own test for \$1<\/a>/);
    expect(html).toContain('Tested by Sam, CA');
    expect(html).toContain('href="/api/shared/tok/report.pdf" download');
  });
});

describe('the PDF', () => {
  it('has the findings as text and a link to the recording at each moment', async () => {
    const pdf = await renderReportPdf(
      pdfInput(report(), (ms) => `https://app.example/api/shared/tok/files/rec-1#t=${ms / 1000}`),
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'pdf-unit-'));
    writeFileSync(path.join(dir, 'r.pdf'), pdf);
    const text = execFileSync('pdftotext', ['-layout', path.join(dir, 'r.pdf'), '-']).toString(
      'utf8',
    );
    for (const s of [
      'Checkout <flow>',
      '[BLOCKER] Pay button hidden',
      'Steps to reproduce: 1. Add a cake',
      'Expected: A Pay button',
      'What happened: The cookie banner covers it',
      'Watch the recording at 1:12',
      '[COSMETIC] Typo in the footer',
    ])
      expect(text).toContain(s);
    expect(pdf.toString('latin1')).toContain(
      'https://app.example/api/shared/tok/files/rec-1#t=72.5',
    );
  });
});

/** A done health check with two machine findings and Lighthouse scores. */
const withHealthCheck = (): SharedReportView => ({
  ...report(),
  health_check: {
    state: 'done',
    checked_at: '2026-03-01T09:00:00Z',
    status: 'complete',
    failure: null,
    summary: {
      url: 'https://shop.example/cart',
      final_url: 'https://shop.example/cart',
      links_checked: 4,
      broken_links: 0,
      blocked_requests: 0,
      sizes: (['phone', 'desktop'] as const).map((size) => ({
        size,
        width: size === 'phone' ? 390 : 1280,
        accessibility: { critical: 12, serious: 0, moderate: 0, minor: 0 },
        performance: { score: size === 'phone' ? 58 : 91, lcp_ms: 4100, cls: 0, tbt_ms: 10 },
        console_errors: 0,
        uncaught_exceptions: 0,
        failed_requests: 0,
        broken_images: 0,
        page_bytes: 900_000,
        requests: 20,
      })),
      findings: [
        {
          key: 'a11y:image-alt',
          topic: 'accessibility',
          impact: 'critical',
          count: 12,
          sizes: ['phone', 'desktop'],
          rule: 'image-alt',
          text: '12 images have no text for screen readers',
        },
        {
          key: 'speed:lcp:phone',
          topic: 'speed',
          impact: 'serious',
          count: 1,
          sizes: ['phone'],
          rule: null,
          text: 'The page takes 4.1 s to show its main content on a phone: most sites take under 2.5 s',
        },
      ],
    },
  },
});

describe('the health check in the reports', () => {
  it('is a section of the share page in plain language', () => {
    const html = sharePage(withHealthCheck());
    expect(html).toContain('<h2 style="font-size:18px;margin:24px 0 8px">Health check</h2>');
    expect(html).toContain(
      'A machine opened the site on a phone and on a computer on March 1, 2026. What it found:',
    );
    expect(html).toMatch(/>critical<\/span>12 images have no text for screen readers/);
    expect(html).toContain('on a phone: most sites take under 2.5 s');
    expect(html).toContain('Speed score out of 100: 58 on a phone, 91 on a computer.');
    expect(sharePage(report())).not.toContain('Health check');
  });

  it('says why when the check could not run', () => {
    const html = sharePage({
      ...report(),
      health_check: {
        state: 'failed',
        checked_at: '2026-03-01T09:00:00Z',
        status: null,
        summary: null,
        failure: {
          reason: 'unavailable',
          text: 'The machine health check is unavailable on this server.',
        },
      },
    });
    expect(html).toContain('The machine health check is unavailable on this server.');
  });

  it('is in the PDF as text', async () => {
    const pdf = await renderReportPdf(pdfInput(withHealthCheck()));
    const dir = mkdtempSync(path.join(tmpdir(), 'pdf-unit-'));
    writeFileSync(path.join(dir, 'r.pdf'), pdf);
    const text = execFileSync('pdftotext', [path.join(dir, 'r.pdf'), '-'])
      .toString('utf8')
      .replace(/\s+/g, ' ');
    for (const s of [
      'Health check',
      '12 images have no text for screen readers',
      'The page takes 4.1 s to show its main content on a phone: most sites take under 2.5 s',
      'Speed score out of 100: 58 on a phone, 91 on a computer.',
    ])
      expect(text).toContain(s);
  });
});

describe('the report from the submission view', () => {
  it('uses the structured findings and the recording when the view has them, worst first, through the share token', async () => {
    const { reportFromView, sharedUrls } = await import('./report-view.js');
    const view = {
      id: 's1',
      job_id: 'j1',
      revision: 0,
      submitted_at: '2026-03-01T10:00:00Z',
      locked: false,
      auto_accept_at: null,
      submitted_by_snapshot: { name: 'Sam Smith', location: 'Canada' },
      human_preview: {
        device_used: null,
        browser_used: null,
        key_findings_bullets: ['Typo', 'Pay hidden'],
        small_image_url: null,
      },
      requirement_responses: [],
      general_feedback: null,
      file_urls: [],
      file_names: [],
      minutes_spent: null,
      claim_to_submit_minutes: null,
      findings: [
        { text: 'Typo', severity: 'minor', steps: null, expected: null, actual: null, at_ms: null },
        {
          text: 'Pay hidden',
          severity: 'blocker',
          steps: 'Open the cart',
          expected: 'Pay',
          actual: 'Nothing',
          at_ms: 5000,
        },
      ],
      recording: {
        id: 'rec-1',
        url: '/api/files/rec-1?sig=x',
        mime_type: 'video/webm',
        duration_ms: 9000,
        size_bytes: 10,
      },
    };
    const src = {
      job: { id: 'j1', title: 'T', url: 'https://x.example', requirements: [] },
      read: {
        submission: { submittedByName: 'Sam Smith', submittedByLocation: 'Canada' },
        files: [],
        locked: false,
      },
      testerCountry: 'CA',
      images: [],
      share: null,
    } as unknown as Parameters<typeof reportFromView>[0];
    const r = reportFromView(src, view as never, sharedUrls('tok'));
    expect(r.findings.map((f) => [f.text, f.severity, f.at_ms])).toEqual([
      ['Pay hidden', 'blocker', 5000],
      ['Typo', 'minor', null],
    ]);
    expect(r.recording).toEqual({
      url: '/api/shared/tok/recording',
      mime_type: 'video/webm',
      duration_ms: 9000,
    });
    expect(r.tester).toEqual({ first_name: 'Sam', country: 'CA' });
  });
});

/** A pack's summary as the share link reads it: clips and proof through the token. */
const summary = () => summaryFixture((path) => `/api/shared/tok/${path}`);

describe('the verdict on the share page (issue #51)', () => {
  it('leads with what to fix first, its proof, what worked, the task metrics and SUS, in plain words', () => {
    const html = sharePage({ ...report(), summary: summary() });
    const top = html.indexOf('Fix first');
    expect(top).toBeGreaterThan(0);
    expect(top).toBeLessThan(html.indexOf('>Findings<'));
    expect(html).toContain('>blocker</span><strong>Checkout forces account creation</strong>');
    expect(html).toContain('3 of 5 testers · Buy a product as a new customer');
    expect(html).toContain('The health check found this too: 2 form fields have no label.');
    // Proof: each tester's words, the moment played in the reel, the finding, the screenshot.
    expect(html).toContain('Sam: “Checkout forces account creation”');
    expect(html).toContain(
      'href="?moment=aaaaaaaa-0000-4000-8000-000000000002:1#reel">Play 0:42</a>',
    );
    expect(html).toContain('href="/api/shared/tok/files/shot-1" target="_blank"');
    expect(html).toContain(
      '<strong>What worked:</strong> Find the shipping costs: done by 3 testers',
    );
    expect(html).toContain('How each thing to check went');
    expect(html).toContain(
      'Success: 50% (2 testers) · Median time: 4 min · Ease (average 5.5 of 7): 3.5 of 7 (2 testers)',
    );
    expect(html).toContain('Harder than most sites (3.5 of 7, 2 testers).');
    // A thing to check nobody answered is left out.
    expect(html).not.toContain(
      '<p style="margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font-weight:600">Find the shipping costs',
    );
    expect(html).toContain(
      'Overall usability (SUS): 72.5 of 100 against an average of 68, from 2 testers. More usable than most sites.',
    );
  });

  it('plays the reel without script (a media fragment per clip, a link per clip) and loads its one script', () => {
    const html = sharePage({ ...report(), summary: summary() });
    expect(html).toContain('<section id="reel" data-reel');
    expect(html).toContain('2 clips, 27 s: the moment each top problem shows');
    expect(html).toContain('src="/api/shared/tok/recordings/rec-1#t=25.0,40.0"');
    expect(html).toContain('<strong>Clip 1 of 2:</strong> Checkout forces account creation');
    expect(html).toContain(
      'data-url="/api/shared/tok/recordings/rec-3" data-start="0" data-end="12000" data-caption="Pay &lt;button&gt; does nothing"',
    );
    expect(html).toMatch(/href="\?clip=1#reel" data-reel-next>Next clip<\/a>/);
    expect(html).toContain('aria-disabled="true">Previous clip</a>');
    expect(html).toContain('<script type="module" src="/share-reel.js"></script>');
    // ?clip=1 opens the reel at the second clip.
    const second = sharePage({ ...report(), summary: summary() }, { clip: 1 });
    expect(second).toContain('src="/api/shared/tok/recordings/rec-3#t=0.0,12.0"');
    expect(second).toContain('<strong>Clip 2 of 2:</strong> Pay &lt;button&gt; does nothing');
    // A piece of proof plays as one more clip, 5 s before to 10 s after its moment.
    const moment = sharePage(
      { ...report(), summary: summary() },
      { moment: { submissionId: 'aaaaaaaa-0000-4000-8000-000000000002', findingIndex: 1 } },
    );
    expect(moment).toContain('src="/api/shared/tok/recordings/rec-2#t=37.0,52.0"');
    expect(moment).toContain(
      '<strong>Clip 3 of 3:</strong> Kim: Must create an account to check out',
    );
    // No summary yet: the report as before, no script.
    expect(sharePage(report())).not.toContain('<script');
  });

  it("puts a pack's one report on one page: what the testers agree on, then each tester's report", () => {
    const tester = (n: number, name: string): SharedPackView['reports'][number] => ({
      ...report(),
      submission_id: `aaaaaaaa-0000-4000-8000-00000000000${n}`,
      tester: { first_name: name, country: 'US' },
      findings: report().findings.map((f, index) => ({ ...f, index })),
      recording: {
        url: `/api/shared/tok/recordings/rec-${n}`,
        mime_type: 'video/webm',
        duration_ms: 90_000,
      },
    });
    const html = packSharePage({
      pack: { id: 'p1', size: 5, reported: 2 },
      job: { title: 'My <shop>', url: 'https://shop.example', requirements: [] },
      summary: summary(),
      reports: [tester(1, 'Sam'), tester(2, 'Kim')],
      pdf_url: '/api/shared/tok/report.pdf',
      expires_at: '2026-04-01T10:00:00Z',
      health_check: null,
    });
    expect(html).toContain('My &lt;shop&gt;');
    expect(html).toContain('2 of 5 testers have reported.');
    expect(html.indexOf('What the testers agree on')).toBeLessThan(
      html.indexOf("Each tester's report"),
    );
    expect(html).toContain('Tester 2: Kim, US');
    // The proof's "Finding" goes to that tester's finding on this page.
    expect(html).toContain('href="#tester-2-finding-2">Finding</a>');
    expect(html).toContain('id="tester-2-finding-2"');
    // A tester's finding at a moment plays in the reel.
    expect(html).toContain(
      'href="?moment=aaaaaaaa-0000-4000-8000-000000000001:0#reel">Watch at 1:12</a>',
    );
    expect(html).toContain('src="/api/shared/tok/recordings/rec-2"');
    expect(html).toContain('href="/api/shared/tok/report.pdf" download');
  });
});

describe('the PDF with the verdict (issue #51)', () => {
  it('has the summary, the severity counts, the task metrics and a still per problem on page 1, the report after', async () => {
    const still = await sharp({
      create: { width: 160, height: 90, channels: 3, background: '#3366aa' },
    })
      .png()
      .toBuffer();
    const pdf = await renderReportPdf(
      pdfInput(report(), () => null, { summary: summary(), stills: new Map([[0, still]]) }),
    );
    const [first, second] = pdfPages(pdf);
    for (const s of [
      'Fix first',
      'Findings by severity: 1 blocker, 1 cosmetic.',
      '1. [BLOCKER] Checkout forces account creation',
      '3 of 5 testers · Buy a product as a new customer',
      'The health check found this too: 2 form fields have no label.',
      "Proof: Sam at 0:30 · Sam's screenshot · Kim at 0:42",
      'What worked: Find the shipping costs: done by 3 testers',
      'How each thing to check went',
      'Success: 50% (2 testers) · Median time: 4 min',
      'Harder than most sites',
      'Overall usability (SUS): 72.5 of 100',
    ])
      expect(first).toContain(s);
    expect(first).not.toContain('Steps to reproduce');
    expect(second).toContain('[BLOCKER] Pay button hidden');
    const raw = pdf.toString('latin1');
    // The still is embedded once; the proof links are absolute.
    expect(raw.match(/\/Subtype \/Image/g)).toHaveLength(1);
    expect(raw).toContain('https://app.example/api/shared/tok/recordings/rec-2#t=42.0');
  });
});
