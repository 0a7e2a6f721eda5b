import { z } from 'zod';

/**
 * The machine health check of a paid job's site (services/site-check, issue 53): the summary the
 * `SiteChecked` event carries (jobs keeps it for the share page and the PDF), and the answer of
 * `GET /api/jobs/{id}/site-check`. Sentences for the owner are written by the service
 * (`findings[].text`), so every place that shows the check says the same words.
 */

/** The two sizes a site is checked at: a phone (390 px wide, touch) and a desktop (1280 px). */
export const SITE_CHECK_SIZES = ['phone', 'desktop'] as const;
export type SiteCheckSize = (typeof SITE_CHECK_SIZES)[number];
export const SITE_CHECK_WIDTHS: Record<SiteCheckSize, number> = { phone: 390, desktop: 1280 };

/** Why a check ended without results (SiteCheckFailed.reason). */
export const SITE_CHECK_FAILURE_REASONS = [
  'unreachable',
  'timed_out',
  'refused_address',
  'too_large',
  'browser_error',
  'unavailable',
] as const;
export type SiteCheckFailureReason = (typeof SITE_CHECK_FAILURE_REASONS)[number];

/** What a failed check says to the owner, by reason. */
export const SITE_CHECK_FAILURE_TEXT: Record<SiteCheckFailureReason, string> = {
  unreachable: 'The health check could not open the site: it did not answer.',
  timed_out: 'The health check gave up: the page took longer than a minute to load.',
  refused_address:
    'The health check did not open the site: its address leads to a private network, which the check never visits.',
  too_large: 'The health check stopped: the page needed more memory than a check may use.',
  browser_error: 'The health check could not finish: the browser stopped unexpectedly.',
  unavailable: 'The machine health check is unavailable on this server.',
};

export const SITE_CHECK_IMPACTS = ['critical', 'serious', 'moderate', 'minor'] as const;
export type SiteCheckImpact = (typeof SITE_CHECK_IMPACTS)[number];

/** What a finding is about (the verdict's matching and the report's icons group by it). */
export const SITE_CHECK_TOPICS = [
  'accessibility',
  'speed',
  'stability',
  'errors',
  'links',
  'images',
  'weight',
  'privacy',
] as const;
export type SiteCheckTopic = (typeof SITE_CHECK_TOPICS)[number];

const size = z.enum(SITE_CHECK_SIZES);
const impact = z.enum(SITE_CHECK_IMPACTS);
const count = z.number().int().min(0);

export const siteCheckFindingSchema = z.object({
  /** Stable id: `a11y:<axe rule>`, `speed:lcp`, `stability:cls`, `errors:console`, ... */
  key: z.string(),
  topic: z.enum(SITE_CHECK_TOPICS),
  impact,
  /** How many (elements, errors, links...) at the size where there were most. */
  count,
  sizes: z.array(size),
  /** The plain-language sentence the owner reads. */
  text: z.string(),
  /** The axe rule id of an accessibility finding (null otherwise). */
  rule: z.string().nullable(),
});
export type SiteCheckFinding = z.infer<typeof siteCheckFindingSchema>;

export const siteCheckSizeSummarySchema = z.object({
  size,
  width: z.number().int(),
  accessibility: z.object({ critical: count, serious: count, moderate: count, minor: count }),
  /** Lighthouse lab figures (null when Lighthouse could not measure this size). */
  performance: z
    .object({
      /** Lighthouse performance score, 0-100. */
      score: z.number().int().min(0).max(100).nullable(),
      lcp_ms: z.number().nullable(),
      cls: z.number().nullable(),
      tbt_ms: z.number().nullable(),
    })
    .nullable(),
  console_errors: count,
  uncaught_exceptions: count,
  failed_requests: count,
  broken_images: count,
  page_bytes: count,
  requests: count,
});
export type SiteCheckSizeSummary = z.infer<typeof siteCheckSizeSummarySchema>;

export const siteCheckSummarySchema = z.object({
  url: z.string(),
  final_url: z.string(),
  links_checked: count,
  broken_links: count,
  /** Requests the egress proxy refused (private addresses). */
  blocked_requests: count,
  sizes: z.array(siteCheckSizeSummarySchema),
  /** Worst first, at most 20. */
  findings: z.array(siteCheckFindingSchema).max(20),
});
export type SiteCheckSummary = z.infer<typeof siteCheckSummarySchema>;

/** complete: every part ran; partial: some part (Lighthouse at a size) could not measure. */
export const SITE_CHECK_STATUSES = ['complete', 'partial'] as const;
export type SiteCheckStatus = (typeof SITE_CHECK_STATUSES)[number];

const detailItem = <T extends z.ZodRawShape>(shape: T) => z.array(z.object(shape));

export const siteCheckSizeDetailSchema = z.object({
  size,
  width: z.number().int(),
  height: z.number().int(),
  /** A JPEG of the first screen at this size, as a data: URL (null when it could not be taken). */
  screenshot: z.string().nullable(),
  accessibility: detailItem({
    rule: z.string(),
    impact,
    help: z.string(),
    help_url: z.string(),
    count,
    elements: z.array(z.object({ selector: z.string(), html: z.string() })),
  }),
  performance: z
    .object({
      score: z.number().int().nullable(),
      lcp_ms: z.number().nullable(),
      cls: z.number().nullable(),
      tbt_ms: z.number().nullable(),
      opportunities: detailItem({
        id: z.string(),
        title: z.string(),
        savings_ms: z.number().nullable(),
        savings_bytes: z.number().nullable(),
      }),
    })
    .nullable(),
  console_errors: detailItem({ text: z.string(), url: z.string().nullable() }),
  exceptions: detailItem({ message: z.string() }),
  failed_requests: detailItem({
    url: z.string(),
    status: z.number().int().nullable(),
    method: z.string(),
    resource_type: z.string(),
    error: z.string().nullable(),
  }),
  broken_images: detailItem({ url: z.string(), status: z.number().int().nullable() }),
  /** Sum of the layout shifts the page made while this check watched (the browser's own figure). */
  layout_shift: z.number(),
  /** Time the main thread was blocked past 50 ms per long task, while this check watched. */
  long_tasks_ms: z.number(),
  page_bytes: count,
  requests: count,
});
export type SiteCheckSizeDetail = z.infer<typeof siteCheckSizeDetailSchema>;

export const SITE_CHECK_STATES = ['pending', 'running', 'done', 'failed', 'unavailable'] as const;

export const siteCheckResponseSchema = z.object({
  job_id: z.string(),
  /** pending: waiting for a worker; running; done (results below); failed (failure below); unavailable (no browser on this server). */
  state: z.enum(SITE_CHECK_STATES),
  status: z.enum(SITE_CHECK_STATUSES).nullable(),
  url: z.string(),
  checked_at: z.string().nullable(),
  failure: z
    .object({
      reason: z.enum(SITE_CHECK_FAILURE_REASONS),
      text: z.string(),
      detail: z.string().nullable(),
    })
    .nullable(),
  summary: siteCheckSummarySchema.nullable(),
  sizes: z.array(siteCheckSizeDetailSchema),
  links: z.object({
    checked: count,
    broken: detailItem({ url: z.string(), status: z.number().int().nullable() }),
  }),
  /** Requests the check refused to make (private addresses) and why. */
  blocked: detailItem({ url: z.string(), reason: z.string() }),
});
export type SiteCheckResponse = z.infer<typeof siteCheckResponseSchema>;

/**
 * The health check as the jobs service keeps it (from SiteChecked / SiteCheckFailed) and the share
 * page, the shared JSON and the PDF show it.
 */
export const healthCheckViewSchema = z.object({
  state: z.enum(['done', 'failed']),
  checked_at: z.string(),
  status: z.enum(SITE_CHECK_STATUSES).nullable(),
  summary: siteCheckSummarySchema.nullable(),
  failure: z.object({ reason: z.enum(SITE_CHECK_FAILURE_REASONS), text: z.string() }).nullable(),
});
export type HealthCheckView = z.infer<typeof healthCheckViewSchema>;

// ---- For the verdict: a machine finding that matches a human one strengthens it --------------

/**
 * Words a person uses for what each topic finds (lower case; matched as whole words or phrases).
 * An accessibility finding also matches by its rule (RULE_WORDS).
 */
export const SITE_CHECK_TOPIC_WORDS: Record<SiteCheckTopic, readonly string[]> = {
  accessibility: ['screen reader', 'accessib', 'keyboard', 'contrast', 'hard to read', 'label'],
  speed: ['slow', 'load', 'loading', 'takes long', 'took long', 'wait', 'speed', 'lag', 'sluggish'],
  stability: ['jump', 'jumps', 'jumped', 'moves', 'moved', 'shift', 'shifts', 'jumping'],
  errors: ['error', 'crash', 'crashed', "doesn't work", 'does not work', 'not working', 'broken'],
  links: ['link', 'links', '404', 'not found', 'dead', 'goes nowhere'],
  images: ['image', 'images', 'picture', 'pictures', 'photo', 'photos', 'icon', 'missing image'],
  weight: ['heavy', 'data', 'slow', 'size'],
  privacy: ['private', 'blocked'],
};

const RULE_WORDS: Record<string, readonly string[]> = {
  'image-alt': ['alt', 'image', 'picture', 'screen reader'],
  'color-contrast': ['contrast', 'hard to read', 'faint', 'light grey', 'light gray', 'pale'],
  label: ['label', 'form', 'field'],
  'button-name': ['button'],
  'link-name': ['link'],
  'html-has-lang': ['language'],
  'target-size': ['tap', 'small', 'tiny', 'button'],
};

const words = (text: string) => ` ${text.toLowerCase().replace(/[^a-z0-9'\s]+/g, ' ')} `;
const mentions = (haystack: string, needle: string) =>
  needle.length <= 4 ? haystack.includes(` ${needle} `) : haystack.includes(needle);

/**
 * THE HOOK for the verdict summary (issue 51): the machine findings that back a person's finding,
 * by the words the person used. `humanText` is a finding's or a problem's title (any text);
 * `machine` is `summary.findings` of a done check (jobs keeps the summary: HealthCheckView). The
 * summary may show "the health check found this too" with the matched findings' `text`, and rank
 * the problem higher. Pure and cheap: call it per problem.
 */
export function machineFindingsMatching(
  humanText: string,
  machine: readonly SiteCheckFinding[],
): SiteCheckFinding[] {
  const hay = words(humanText);
  return machine.filter((f) => {
    const ruleWords = f.rule ? (RULE_WORDS[f.rule] ?? []) : [];
    const topicWords =
      f.topic === 'accessibility' && ruleWords.length ? [] : SITE_CHECK_TOPIC_WORDS[f.topic];
    return [...ruleWords, ...topicWords].some((w) => mentions(hay, w));
  });
}

// ---- What every report says (owner's report, share page, PDF, the tester's view) -------------

export const HEALTH_CHECK_TITLE = 'Health check';

/** How many machine findings a report lists (the route has them all). */
export const HEALTH_CHECK_LISTED = 8;

export interface HealthCheckLines {
  /** One sentence on what was checked (or why it could not be). */
  intro: string;
  /** The findings to list, worst first, at most HEALTH_CHECK_LISTED. */
  findings: Array<{ impact: SiteCheckImpact; text: string }>;
  /** The findings not listed (a report may say "and 3 more"). */
  more: number;
  /** Lighthouse's speed scores in words, or null when none was measured. */
  speed: string | null;
}

/**
 * The plain-language lines of a health check, the same wherever it is shown. `date` formats the
 * check's ISO time the way the page does.
 */
export function healthCheckLines(
  h: Pick<HealthCheckView, 'state' | 'summary' | 'failure' | 'checked_at'>,
  date: (iso: string) => string,
): HealthCheckLines {
  if (h.state === 'failed' || !h.summary)
    return {
      intro: h.failure?.text ?? SITE_CHECK_FAILURE_TEXT.browser_error,
      findings: [],
      more: 0,
      speed: null,
    };
  const s = h.summary;
  const found = s.findings;
  const intro = found.length
    ? `A machine opened the site on a phone and on a computer on ${date(h.checked_at)}. What it found:`
    : `A machine opened the site on a phone and on a computer on ${date(h.checked_at)} and found no problems it can detect.`;
  const scores = s.sizes
    .filter((x) => x.performance?.score != null)
    .map((x) => `${x.performance!.score} on ${x.size === 'phone' ? 'a phone' : 'a computer'}`);
  return {
    intro,
    findings: found.slice(0, HEALTH_CHECK_LISTED).map((f) => ({ impact: f.impact, text: f.text })),
    more: Math.max(0, found.length - HEALTH_CHECK_LISTED),
    speed: scores.length ? `Speed score out of 100: ${scores.join(', ')}.` : null,
  };
}
