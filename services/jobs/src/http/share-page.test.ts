import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SharedReportView } from '@htm/contracts';
import { renderReportPdf } from '../providers/report-pdf.js';
import { sharePage } from './share-page.js';

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
    expect(html).toContain('href="/api/shared/tok/files/rec-1#t=72.5"');
    expect(html).toContain('Watch at 1:12');
    expect(html).toContain('Tested by Sam, CA');
    expect(html).toContain('href="/api/shared/tok/report.pdf" download');
  });
});

describe('the PDF', () => {
  it('has the findings as text and a link to the recording at each moment', async () => {
    const pdf = await renderReportPdf(report(), [], {
      recordingAt: (ms) => `https://app.example/api/shared/tok/files/rec-1#t=${ms / 1000}`,
    });
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
