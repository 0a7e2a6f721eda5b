import { z } from 'zod';
import { healthCheckViewSchema } from './site-check.js';
import { reportSummarySchema } from './summary.js';

/**
 * Findings leave the product (issue 32): the share link, the shared report, the PDF and the
 * poster's signed webhooks (Standard Webhooks).
 */

export const SHARE_LINK_LIMITS = { minDays: 1, maxDays: 365, defaultDays: 30 } as const;

export const REPORT_MESSAGES = {
  expiresInDays: `expires_in_days must be a whole number from ${SHARE_LINK_LIMITS.minDays} to ${SHARE_LINK_LIMITS.maxDays}`,
  linkGone: 'This link is no longer valid.',
  webhookUrl: 'Enter the full address of your endpoint, starting with https:// or http://',
  webhookUrlTooLong: 'Endpoint URL must be 2000 characters or less',
  webhookEvents:
    'Choose events from: job.paid, job.claimed, job.submitted, job.revision_requested, job.completed',
} as const;

/** POST /api/jobs/{id}/share: optional body. */
export const shareLinkBodySchema = z.object({
  expires_in_days: z
    .number({ error: REPORT_MESSAGES.expiresInDays })
    .int({ error: REPORT_MESSAGES.expiresInDays })
    .min(SHARE_LINK_LIMITS.minDays, { error: REPORT_MESSAGES.expiresInDays })
    .max(SHARE_LINK_LIMITS.maxDays, { error: REPORT_MESSAGES.expiresInDays })
    .default(SHARE_LINK_LIMITS.defaultDays),
});
export type ShareLinkBody = z.infer<typeof shareLinkBodySchema>;

export const shareLinkResponseSchema = z.object({
  url: z.string(),
  token: z.string(),
  expires_at: z.string(),
});
export type ShareLinkView = z.infer<typeof shareLinkResponseSchema>;

/** Severity words worst first (the structured findings of "The report, next level"). */
export const REPORT_SEVERITIES = ['blocker', 'major', 'minor', 'cosmetic'] as const;

/** One finding as the report shows it: the key finding, with its details when the tester gave them. */
export const reportFindingViewSchema = z.object({
  text: z.string(),
  severity: z.string().nullable(),
  steps: z.string().nullable(),
  expected: z.string().nullable(),
  actual: z.string().nullable(),
  at_ms: z.number().nullable(),
  /** Its place in the tester's own order (0 first): the summary's evidence names findings so. */
  index: z.number().int().optional(),
});
export type ReportFindingView = z.infer<typeof reportFindingViewSchema>;

/** GET /api/shared/{token}: the report as the share page shows it (no e-mail address of anyone). */
export const sharedReportViewSchema = z.object({
  job: z.object({
    id: z.string(),
    title: z.string(),
    url: z.string(),
    requirements: z.array(z.string()),
  }),
  submitted_at: z.string(),
  /** The poster has not accepted yet: only the preview (key findings, device, browser) is shared. */
  locked: z.boolean(),
  tester: z.object({ first_name: z.string(), country: z.string().nullable() }),
  device_used: z.string().nullable(),
  browser_used: z.string().nullable(),
  findings: z.array(reportFindingViewSchema),
  requirement_responses: z.array(z.object({ requirement: z.string(), response_text: z.string() })),
  general_feedback: z.string().nullable(),
  screenshots: z.array(
    z.object({ url: z.string(), name: z.string().nullable(), content_type: z.string() }),
  ),
  recording: z
    .object({
      url: z.string(),
      mime_type: z.string().nullable(),
      duration_ms: z.number().nullable(),
    })
    .nullable(),
  pdf_url: z.string(),
  expires_at: z.string(),
  /** The machine health check of the site (null until site-check has announced one). */
  health_check: healthCheckViewSchema.nullable(),
  /**
   * The verdict (issue #51) as the poster sees it: what to fix first, task metrics, the reel (its
   * clips and proof through the share token). Null until it is computed.
   */
  summary: reportSummarySchema.nullable().optional(),
});
export type SharedReportView = z.infer<typeof sharedReportViewSchema>;

/** One tester's report inside a pack's shared report (the pack's site, PDF and link are the pack's). */
export const packTesterReportSchema = sharedReportViewSchema
  .omit({
    pdf_url: true,
    expires_at: true,
    health_check: true,
    summary: true,
  })
  .extend({
    /** The report (the summary's evidence names it so). */
    submission_id: z.string(),
  });
export type PackTesterReportView = z.infer<typeof packTesterReportSchema>;

/**
 * GET /api/shared/{token} of a pack's link (issue #51): one report for the whole pack, leading
 * with what the testers agree on (the pack's summary), then each tester's report.
 */
export const sharedPackViewSchema = z.object({
  pack: z.object({
    id: z.string(),
    /** Testers asked for (slots not closed). */
    size: z.number().int(),
    /** Testers whose report is in it. */
    reported: z.number().int(),
  }),
  job: z.object({
    title: z.string(),
    url: z.string(),
    requirements: z.array(z.string()),
  }),
  summary: reportSummarySchema.nullable(),
  reports: z.array(packTesterReportSchema),
  pdf_url: z.string(),
  expires_at: z.string(),
  health_check: healthCheckViewSchema.nullable(),
});
export type SharedPackView = z.infer<typeof sharedPackViewSchema>;

/** What a share token opens: a job's report or a pack's (the pack's has `pack`). */
export const sharedViewSchema = z.union([sharedPackViewSchema, sharedReportViewSchema]);
export type SharedView = z.infer<typeof sharedViewSchema>;

/** Sorted worst first; findings without a severity keep their order after the rest. */
export function sortBySeverity<T extends { severity: string | null }>(findings: T[]): T[] {
  const rank = (s: string | null) => {
    const i = s ? (REPORT_SEVERITIES as readonly string[]).indexOf(s) : -1;
    return i < 0 ? REPORT_SEVERITIES.length : i;
  };
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f.severity) - rank(b.f.severity) || a.i - b.i)
    .map((x) => x.f);
}

/** `m:ss` of a moment in a recording. */
export function formatMoment(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

// ---- Webhooks --------------------------------------------------------------------------------

export const WEBHOOK_EVENT_TYPES = [
  'job.paid',
  'job.claimed',
  'job.submitted',
  'job.revision_requested',
  'job.completed',
  'report.summarized',
  'session.checked',
  'replacement.requested',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/**
 * What an endpoint created without `events` receives: the job's own changes. report.summarized
 * (issue #51), session.checked and replacement.requested (issue #52) are sent only to endpoints
 * that ask for them, so existing endpoints see no new type.
 */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEventType[] = [
  'job.paid',
  'job.claimed',
  'job.submitted',
  'job.revision_requested',
  'job.completed',
];

export const webhookEndpointBodySchema = z.object({
  url: z
    .string({ error: REPORT_MESSAGES.webhookUrl })
    .trim()
    .max(2000, { error: REPORT_MESSAGES.webhookUrlTooLong })
    .refine(
      (v) => {
        try {
          const u = new URL(v);
          return (
            (u.protocol === 'https:' || u.protocol === 'http:') &&
            !!u.hostname &&
            !u.username &&
            !u.password
          );
        } catch {
          return false;
        }
      },
      { error: REPORT_MESSAGES.webhookUrl },
    ),
  events: z
    .array(z.enum(WEBHOOK_EVENT_TYPES, { error: REPORT_MESSAGES.webhookEvents }), {
      error: REPORT_MESSAGES.webhookEvents,
    })
    .min(1, { error: REPORT_MESSAGES.webhookEvents })
    .optional()
    .transform((v) => (v ? [...new Set(v)] : [...DEFAULT_WEBHOOK_EVENTS])),
});
export type WebhookEndpointBody = z.infer<typeof webhookEndpointBodySchema>;

export const webhookEndpointViewSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  created_at: z.string(),
  /** Set when 3 days of failures disabled it. */
  disabled_at: z.string().nullable(),
});
export type WebhookEndpointView = z.infer<typeof webhookEndpointViewSchema>;

/** POST /api/webhook-endpoints: the only answer that carries the secret. */
export const webhookEndpointCreatedSchema = webhookEndpointViewSchema.extend({
  secret: z.string(),
});
export type WebhookEndpointCreatedView = WebhookEndpointView & { secret: string };

export const webhookDeliveryViewSchema = z.object({
  id: z.string(),
  /** The webhook-id header of every attempt. */
  webhook_id: z.string(),
  event: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  last_response_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: z.string().nullable(),
  created_at: z.string(),
  delivered_at: z.string().nullable(),
});
export type WebhookDeliveryView = z.infer<typeof webhookDeliveryViewSchema>;

/** The body of every webhook: `{type, timestamp, data}`. */
export interface WebhookPayload {
  type: WebhookEventType | 'webhook.test';
  timestamp: string;
  data: {
    job_id: string;
    title: string;
    status: string;
    report_url: string;
    /** report.summarized: the pack it summarises (null for one job), its summary's API path and top problems. */
    pack_id?: string | null;
    summary_url?: string;
    problems?: Array<{
      title: string;
      severity: string | null;
      testers_hit: number;
      testers_total: number;
    }>;
    /** session.checked: the check's verdict, its "Checked" line and its reasons in the owner's words. */
    verdict?: 'pass' | 'borderline' | 'fail';
    checked_line?: string;
    /** session.checked, replacement.requested: each reason in the owner's words. */
    reasons?: string[];
    /** replacement.requested: the check failed the report, or the owner asked for a free replacement. */
    requested_by?: 'check' | 'poster';
    /** replacement.requested: when the replacement's report is expected at the latest. */
    expected_by?: string;
  };
}

// ---- Issue trackers ----------------------------------------------------------------------------

export const TRACKER_KINDS = ['github', 'jira'] as const;
export type TrackerKind = (typeof TRACKER_KINDS)[number];

export const TRACKER_MESSAGES = {
  token: 'Paste the token',
  repository: 'Write the repository as owner/name',
  siteUrl: 'Enter your Jira site address, e.g. https://yourteam.atlassian.net',
  siteHttps:
    'Your Jira site must start with https:// (over plain http:// your API token would travel unencrypted)',
  email: 'Enter the e-mail address of the Jira account',
  projectKey: 'Enter the project key, e.g. WEB',
  tracker: 'Choose github or jira',
} as const;

export const githubTrackerBodySchema = z.object({
  token: z
    .string({ error: TRACKER_MESSAGES.token })
    .trim()
    .min(1, { error: TRACKER_MESSAGES.token })
    .max(500, { error: TRACKER_MESSAGES.token }),
  repository: z
    .string({ error: TRACKER_MESSAGES.repository })
    .trim()
    .regex(/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/, {
      error: TRACKER_MESSAGES.repository,
    }),
});
export type GithubTrackerBody = z.infer<typeof githubTrackerBodySchema>;

export const jiraTrackerBodySchema = z.object({
  site_url: z
    .string({ error: TRACKER_MESSAGES.siteUrl })
    .trim()
    .max(300, { error: TRACKER_MESSAGES.siteUrl })
    .refine(
      (v) => {
        try {
          const u = new URL(v);
          return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password;
        } catch {
          return false;
        }
      },
      { error: TRACKER_MESSAGES.siteUrl, abort: true },
    )
    // The API token goes with every call: never over plain http.
    .refine((v) => new URL(v).protocol === 'https:', { error: TRACKER_MESSAGES.siteHttps })
    .transform((v) => v.replace(/\/+$/, '')),
  email: z.email({ error: TRACKER_MESSAGES.email }).max(254, { error: TRACKER_MESSAGES.email }),
  api_token: z
    .string({ error: TRACKER_MESSAGES.token })
    .trim()
    .min(1, { error: TRACKER_MESSAGES.token })
    .max(500, { error: TRACKER_MESSAGES.token }),
  project_key: z
    .string({ error: TRACKER_MESSAGES.projectKey })
    .trim()
    .regex(/^[A-Z][A-Z0-9_]{0,19}$/, { error: TRACKER_MESSAGES.projectKey }),
});
export type JiraTrackerBody = z.infer<typeof jiraTrackerBodySchema>;

export const sendFindingBodySchema = z.object({
  tracker: z.enum(TRACKER_KINDS, { error: TRACKER_MESSAGES.tracker }),
});

/** GET /api/trackers: what is configured, never a token. */
export const trackersViewSchema = z.object({
  github: z.object({ repository: z.string() }).nullable(),
  jira: z.object({ site_url: z.string(), email: z.string(), project_key: z.string() }).nullable(),
});
export type TrackersView = z.infer<typeof trackersViewSchema>;

export const trackerIssueViewSchema = z.object({
  /** The finding's place in the submission; null: the whole report's issue. */
  finding_index: z.number().int().nullable(),
  tracker: z.enum(TRACKER_KINDS),
  url: z.string(),
});
export type TrackerIssueView = z.infer<typeof trackerIssueViewSchema>;

/** GET /api/webhook-endpoints. */
export const webhookEndpointsResponseSchema = z.object({
  endpoints: z.array(webhookEndpointViewSchema),
});
/** GET /api/webhook-endpoints/{id}/deliveries. */
export const webhookDeliveriesResponseSchema = z.object({
  deliveries: z.array(webhookDeliveryViewSchema),
});
/** POST /api/webhook-endpoints/{id}/test and .../redeliver. */
export const webhookDeliveryResponseSchema = z.object({ delivery: webhookDeliveryViewSchema });
/** GET /api/jobs/{id}/issues. */
export const trackerIssuesResponseSchema = z.object({ issues: z.array(trackerIssueViewSchema) });
