import {
  SITE_CHECK_IMPACTS,
  type SiteCheckFinding,
  type SiteCheckImpact,
  type SiteCheckSize,
  type SiteCheckStatus,
  type SiteCheckSummary,
} from '@htm/contracts';
import type { MeasuredCheck, MeasuredSize, StoredSizeDetail } from './check-result.js';
import {
  accessibilityText,
  blockedText,
  brokenImageText,
  brokenLinkText,
  clsText,
  consoleErrorText,
  exceptionText,
  failedRequestText,
  GOOD,
  HEAVY_PAGE_BYTES,
  heavyPageText,
  lcpText,
  POOR,
  tbtText,
} from './wording.js';

/** Findings kept in the summary (worst first). */
export const MAX_FINDINGS = 20;
/** Elements listed per accessibility rule in the details. */
export const MAX_ELEMENTS = 5;

const rank = (i: SiteCheckImpact) => SITE_CHECK_IMPACTS.indexOf(i);
const worse = (a: SiteCheckImpact, b: SiteCheckImpact) => (rank(a) <= rank(b) ? a : b);

type Draft = Omit<SiteCheckFinding, 'text' | 'sizes'> & {
  sizes: SiteCheckSize[];
  text: (n: number) => string;
};

/** Adds a finding seen at one size to the map, merging the same key seen at the other size. */
function add(map: Map<string, Draft>, size: SiteCheckSize, d: Omit<Draft, 'sizes'>): void {
  const had = map.get(d.key);
  if (!had) {
    map.set(d.key, { ...d, sizes: [size] });
    return;
  }
  had.sizes.push(size);
  had.impact = worse(had.impact, d.impact);
  if (d.count > had.count) {
    had.count = d.count;
    had.text = d.text;
  }
}

function sizeFindings(map: Map<string, Draft>, s: MeasuredSize): void {
  for (const v of s.axe)
    add(map, s.size, {
      key: `a11y:${v.id}`,
      topic: 'accessibility',
      impact: v.impact,
      count: v.nodes.length,
      rule: v.id,
      text: (n) => accessibilityText(v.id, n, v.help),
    });
  const lh = s.lighthouse;
  // Lab figures past their "good" bound: one finding per size, serious past the "poor" bound
  // (a heavy page is always minor).
  // Layout shift and blocking time: Lighthouse's figure, else what the browser reported while the
  // check watched.
  const figures: Array<
    [
      string,
      SiteCheckFinding['topic'],
      number | null | undefined,
      number,
      number | 'minor',
      typeof lcpText,
    ]
  > = [
    ['speed:lcp', 'speed', lh?.lcpMs, GOOD.lcpMs, POOR.lcpMs, lcpText],
    ['stability:cls', 'stability', lh?.cls ?? s.layoutShift, GOOD.cls, POOR.cls, clsText],
    ['speed:tbt', 'speed', lh?.tbtMs ?? s.longTasksMs, GOOD.tbtMs, POOR.tbtMs, tbtText],
    ['weight:bytes', 'weight', s.pageBytes, HEAVY_PAGE_BYTES, 'minor', heavyPageText],
  ];
  for (const [key, topic, value, good, poor, text] of figures)
    if (value != null && value > good)
      add(map, s.size, {
        key: `${key}:${s.size}`,
        topic,
        impact: poor === 'minor' ? 'minor' : value > poor ? 'serious' : 'moderate',
        count: 1,
        rule: null,
        text: () => text(s.size, value),
      });
  // Things the page did wrong, counted (the same key at both sizes merges).
  const counted: Array<
    [string, SiteCheckFinding['topic'], SiteCheckImpact, unknown[], (n: number) => string]
  > = [
    [
      'errors:exceptions',
      'errors',
      'serious',
      s.exceptions,
      (n) => exceptionText(n, s.exceptions[0]?.message ?? ''),
    ],
    ['errors:console', 'errors', 'moderate', s.consoleErrors, consoleErrorText],
    ['images:broken', 'images', 'moderate', s.brokenImages, brokenImageText],
    ['errors:requests', 'errors', 'moderate', s.failedRequests, failedRequestText],
  ];
  for (const [key, topic, impact, seen, text] of counted)
    if (seen.length) add(map, s.size, { key, topic, impact, count: seen.length, rule: null, text });
}

const impactCounts = (s: MeasuredSize) => {
  const c = { critical: 0, serious: 0, moderate: 0, minor: 0 };
  for (const v of s.axe) c[v.impact] += v.nodes.length;
  return c;
};

const round = (n: number | null, digits = 0) =>
  n === null ? null : Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * The summary of a check that ran (what SiteChecked carries), the details the route shows, and
 * whether every part measured (partial when Lighthouse failed at a size it was asked to measure).
 */
export function summarize(m: MeasuredCheck): {
  summary: SiteCheckSummary;
  status: SiteCheckStatus;
  details: StoredSizeDetail[];
} {
  const map = new Map<string, Draft>();
  for (const s of m.sizes) sizeFindings(map, s);
  const findings: SiteCheckFinding[] = [...map.values()].map((d) => ({
    key: d.key,
    topic: d.topic,
    impact: d.impact,
    count: d.count,
    sizes: d.sizes,
    rule: d.rule,
    text: d.text(d.count),
  }));
  if (m.links.broken.length)
    findings.push({
      key: 'links:broken',
      topic: 'links',
      impact: 'moderate',
      count: m.links.broken.length,
      sizes: m.sizes.map((s) => s.size),
      rule: null,
      text: brokenLinkText(m.links.broken.length),
    });
  if (m.blocked.length)
    findings.push({
      key: 'privacy:blocked',
      topic: 'privacy',
      impact: 'moderate',
      count: m.blocked.length,
      sizes: m.sizes.map((s) => s.size),
      rule: null,
      text: blockedText(m.blocked.length),
    });
  findings.sort((a, b) => rank(a.impact) - rank(b.impact) || b.count - a.count);

  const summary: SiteCheckSummary = {
    url: m.url,
    final_url: m.finalUrl,
    links_checked: m.links.checked,
    broken_links: m.links.broken.length,
    blocked_requests: m.blocked.length,
    sizes: m.sizes.map((s) => ({
      size: s.size,
      width: s.width,
      accessibility: impactCounts(s),
      performance: s.lighthouse
        ? {
            score: s.lighthouse.score === null ? null : Math.round(s.lighthouse.score * 100),
            lcp_ms: round(s.lighthouse.lcpMs),
            cls: round(s.lighthouse.cls, 3),
            tbt_ms: round(s.lighthouse.tbtMs),
          }
        : null,
      console_errors: s.consoleErrors.length,
      uncaught_exceptions: s.exceptions.length,
      failed_requests: s.failedRequests.length,
      broken_images: s.brokenImages.length,
      page_bytes: s.pageBytes,
      requests: s.requests,
    })),
    findings: findings.slice(0, MAX_FINDINGS),
  };
  const details: StoredSizeDetail[] = m.sizes.map((s) => ({
    size: s.size,
    width: s.width,
    height: s.height,
    accessibility: s.axe.map((v) => ({
      rule: v.id,
      impact: v.impact,
      help: v.help,
      help_url: v.helpUrl,
      count: v.nodes.length,
      elements: v.nodes.slice(0, MAX_ELEMENTS).map((n) => ({ selector: n.selector, html: n.html })),
    })),
    performance: s.lighthouse
      ? {
          score: s.lighthouse.score === null ? null : Math.round(s.lighthouse.score * 100),
          lcp_ms: round(s.lighthouse.lcpMs),
          cls: round(s.lighthouse.cls, 3),
          tbt_ms: round(s.lighthouse.tbtMs),
          opportunities: s.lighthouse.opportunities.map((o) => ({
            id: o.id,
            title: o.title,
            savings_ms: round(o.savingsMs),
            savings_bytes: round(o.savingsBytes),
          })),
        }
      : null,
    console_errors: s.consoleErrors,
    exceptions: s.exceptions,
    failed_requests: s.failedRequests.map((f) => ({
      url: f.url,
      status: f.status,
      method: f.method,
      resource_type: f.resourceType,
      error: f.error,
    })),
    broken_images: s.brokenImages,
    layout_shift: round(s.layoutShift, 3) ?? 0,
    long_tasks_ms: Math.round(s.longTasksMs),
    page_bytes: s.pageBytes,
    requests: s.requests,
  }));
  const partial = m.lighthouseRan && m.sizes.some((s) => !s.lighthouse);
  return { summary, status: partial ? 'partial' : 'complete', details };
}
