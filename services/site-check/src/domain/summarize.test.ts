import { describe, expect, it } from '@jest/globals';
import type { MeasuredCheck, MeasuredSize } from './check-result.js';
import { summarize } from './summarize.js';

const size = (s: 'phone' | 'desktop', over: Partial<MeasuredSize> = {}): MeasuredSize => ({
  size: s,
  width: s === 'phone' ? 390 : 1280,
  height: 800,
  screenshot: null,
  axe: [],
  lighthouse: { score: 0.91, lcpMs: 1200, cls: 0.01, tbtMs: 50, opportunities: [] },
  lighthouseError: null,
  consoleErrors: [],
  exceptions: [],
  failedRequests: [],
  brokenImages: [],
  layoutShift: 0,
  longTasksMs: 0,
  pageBytes: 1000,
  requests: 3,
  blocked: [],
  ...over,
});

const check = (sizes: MeasuredSize[], over: Partial<MeasuredCheck> = {}): MeasuredCheck => ({
  url: 'https://example.com/',
  finalUrl: 'https://example.com/',
  sizes,
  links: { checked: 3, broken: [] },
  blocked: [],
  lighthouseRan: true,
  ...over,
});

const alt = (n: number) => ({
  id: 'image-alt',
  impact: 'critical' as const,
  help: 'Images must have alternative text',
  helpUrl: 'https://dequeuniversity.com/rules/axe/4.13/image-alt',
  nodes: Array.from({ length: n }, (_, i) => ({ selector: `img:nth-child(${i})`, html: '<img>' })),
});

describe('summary of a check', () => {
  it('has no findings for a healthy page and scores it out of 100', () => {
    const { summary, status } = summarize(check([size('phone'), size('desktop')]));
    expect(summary.findings).toEqual([]);
    expect(status).toBe('complete');
    expect(summary.sizes.map((s) => s.performance?.score)).toEqual([91, 91]);
  });

  it('merges one rule seen at both sizes into one finding, counted where there were most', () => {
    const { summary } = summarize(
      check([size('phone', { axe: [alt(12)] }), size('desktop', { axe: [alt(9)] })]),
    );
    expect(summary.findings).toEqual([
      {
        key: 'a11y:image-alt',
        topic: 'accessibility',
        impact: 'critical',
        count: 12,
        sizes: ['phone', 'desktop'],
        rule: 'image-alt',
        text: '12 images have no text for screen readers',
      },
    ]);
    expect(summary.sizes[0].accessibility).toEqual({
      critical: 12,
      serious: 0,
      moderate: 0,
      minor: 0,
    });
  });

  it('calls a slow phone serious and keeps each size its own speed finding, worst first', () => {
    const { summary } = summarize(
      check([
        size('phone', {
          lighthouse: { score: 0.4, lcpMs: 4100, cls: 0.02, tbtMs: 300, opportunities: [] },
        }),
        size('desktop', {
          lighthouse: { score: 0.8, lcpMs: 2600, cls: 0.02, tbtMs: 100, opportunities: [] },
        }),
      ]),
    );
    expect(summary.findings.map((f) => [f.key, f.impact])).toEqual([
      ['speed:lcp:phone', 'serious'],
      ['speed:tbt:phone', 'moderate'],
      ['speed:lcp:desktop', 'moderate'],
    ]);
    expect(summary.findings[0].text).toBe(
      'The page takes 4.1 s to show its main content on a phone: most sites take under 2.5 s',
    );
  });

  it('falls back to the browser-measured layout shift when Lighthouse could not measure, and says partial', () => {
    const { summary, status } = summarize(
      check([
        size('phone', { lighthouse: null, lighthouseError: 'NO_FCP', layoutShift: 0.3 }),
        size('desktop'),
      ]),
    );
    expect(status).toBe('partial');
    expect(summary.findings.map((f) => f.key)).toEqual(['stability:cls:phone']);
    expect(summary.sizes[0].performance).toBeNull();
  });

  it('orders what the page did wrong by impact: exceptions first, one per kind merged across sizes, a heavy page last and per size', () => {
    const heavy = 5 * 1024 * 1024;
    const err = (text: string) => ({ text, url: null });
    const { summary } = summarize(
      check([
        size('phone', {
          pageBytes: heavy,
          consoleErrors: [err('a'), err('b')],
          brokenImages: [{ url: 'https://example.com/x.png', status: 404 }],
        }),
        size('desktop', {
          pageBytes: heavy,
          exceptions: [{ message: 'boom is not defined' }],
          consoleErrors: [err('a'), err('b'), err('c')],
        }),
      ]),
    );
    expect(summary.findings.map((f) => [f.key, f.impact, f.count, f.sizes])).toEqual([
      ['errors:exceptions', 'serious', 1, ['desktop']],
      ['errors:console', 'moderate', 3, ['phone', 'desktop']],
      ['images:broken', 'moderate', 1, ['phone']],
      ['weight:bytes:phone', 'minor', 1, ['phone']],
      ['weight:bytes:desktop', 'minor', 1, ['desktop']],
    ]);
    expect(summary.findings[3].text).toBe(
      'The page downloads 5.0 MB on a phone: under 3 MB keeps it quick on slow connections',
    );
  });

  it('keeps at most 20 findings', () => {
    const axe = Array.from({ length: 30 }, (_, i) => ({ ...alt(1), id: `rule-${i}` }));
    const { summary, details } = summarize(check([size('phone', { axe })]));
    expect(summary.findings).toHaveLength(20);
    expect(details[0].accessibility).toHaveLength(30);
  });
});
