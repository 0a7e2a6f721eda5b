import { z } from 'zod';
import { LOCAL_URL_MESSAGE, emailSchema, trimmed, webUrlProblem } from './common.js';

/** POST /api/feedback (Send Feedback modal). */
export const feedbackBodySchema = z.object({
  email: emailSchema,
  message: trimmed('Feedback is required', 5000, 'Feedback must be 5000 characters or less'),
  page_url: z
    .string()
    .trim()
    .max(2000, { error: 'Page address must be 2000 characters or less' })
    .optional()
    .nullable(),
});
export type FeedbackBody = z.infer<typeof feedbackBodySchema>;

// ---------------------------------------------------------------------------------------------
// Waitlist, tester signup and job request (POST /api/waitlist)
// ---------------------------------------------------------------------------------------------

/** The tester signup roles offered on the landing page (spec section 6). */
export const TESTER_SIGNUP_ROLES = [
  'Tester (9-to-5)',
  'Tester (Global community)',
  'Tester (indie/agency)',
  'Tester (student)',
] as const;
/** The fixed role the no-Gmail waitlist form sends. */
export const WAITLIST_FORM_ROLE = 'tester';
/** Entries with this role are job requests (need a signed-in caller, url and testing needs). */
export const JOB_REQUEST_ROLE = 'Site owner';
export const WAITLIST_ROLES = [
  ...TESTER_SIGNUP_ROLES,
  WAITLIST_FORM_ROLE,
  JOB_REQUEST_ROLE,
] as const;
export type WaitlistRole = (typeof WAITLIST_ROLES)[number];

/** What an entry is, decided from its role: tester signup, job request, or the no-Gmail waitlist. */
export const WAITLIST_KINDS = ['signup', 'job_request', 'waitlist'] as const;
export type WaitlistKind = (typeof WAITLIST_KINDS)[number];

export function waitlistKindOf(role: WaitlistRole): WaitlistKind {
  if (role === JOB_REQUEST_ROLE) return 'job_request';
  if (role === WAITLIST_FORM_ROLE) return 'waitlist';
  return 'signup';
}

/** User-facing messages of the landing-page forms (the web app shows the same words). */
export const WAITLIST_MESSAGES = {
  roleRequired: 'Please choose a role',
  urlInvalid: 'Please enter a valid URL (starting with http:// or https://)',
  urlLocal: LOCAL_URL_MESSAGE,
  urlRequired: 'Website URL is required',
  urlTooLong: 'URL must be 2000 characters or less',
  needsRequired: 'Please describe your testing needs',
  noteTooLong: 'Note must be 2000 characters or less',
  nameTooShort: 'Name must be at least 2 characters',
  nameTooLong: 'Name must be 100 characters or less',
  fillAllFields: 'Please fill in all fields',
  signInFirst: 'Please sign in first',
  alreadySignedUp: "Already signed up! You'll hear from us soon.",
  waitlistSuccess:
    "Successfully joined waitlist! We'll notify you when we support all email providers.",
  waitlistFailure: 'Failed to join waitlist',
  signupFailure: 'Failed to sign up. Please try again.',
  jobRequestFailure: 'Failed to create job. Please try again.',
} as const;

/** Optional trimmed text: '' and whitespace count as absent (forms send empty strings). */
const optionalText = (max: number, maxMessage: string) =>
  z.preprocess(
    (v) => ((typeof v === 'string' && v.trim() === '') || v === null ? undefined : v),
    z.string().trim().max(max, { error: maxMessage }).optional(),
  );

export const waitlistBodySchema = z
  .object({
    email: emailSchema,
    role: z.enum(WAITLIST_ROLES, { error: WAITLIST_MESSAGES.roleRequired }),
    url: optionalText(2000, WAITLIST_MESSAGES.urlTooLong).superRefine((v, ctx) => {
      const problem = v === undefined ? null : webUrlProblem(v);
      if (problem)
        ctx.addIssue({
          code: 'custom',
          message: problem === 'local' ? WAITLIST_MESSAGES.urlLocal : WAITLIST_MESSAGES.urlInvalid,
        });
    }),
    note: optionalText(2000, WAITLIST_MESSAGES.noteTooLong),
    name: optionalText(100, WAITLIST_MESSAGES.nameTooLong).refine(
      (v) => v === undefined || v.length >= 2,
      {
        error: WAITLIST_MESSAGES.nameTooShort,
      },
    ),
  })
  .superRefine((v, ctx) => {
    if (v.role !== JOB_REQUEST_ROLE) return;
    if (v.url === undefined)
      ctx.addIssue({ code: 'custom', path: ['url'], message: WAITLIST_MESSAGES.urlRequired });
    if (v.note === undefined)
      ctx.addIssue({ code: 'custom', path: ['note'], message: WAITLIST_MESSAGES.needsRequired });
  });
export type WaitlistBody = z.infer<typeof waitlistBodySchema>;

// ---------------------------------------------------------------------------------------------
// Developer lead ('Looking for a Developer?') and client telemetry
// ---------------------------------------------------------------------------------------------

export const LEAD_MESSAGES = {
  thoughtsRequired: 'Please share your thoughts',
  thoughtsTooLong: 'Your message must be 5000 characters or less',
  failure: 'Something went wrong. Please try again.',
} as const;

/** POST /api/leads. */
export const leadBodySchema = z.object({
  email: emailSchema,
  message: trimmed(LEAD_MESSAGES.thoughtsRequired, 5000, LEAD_MESSAGES.thoughtsTooLong),
});
export type LeadBody = z.infer<typeof leadBodySchema>;

/** The client telemetry names the server accepts (spec section 3); others are dropped. */
export const TELEMETRY_EVENT_NAMES = [
  'post_job_attempt',
  'post_job_success',
  'post_job_failure',
  'api_refresh_attempt',
  'api_refresh_success',
  'api_refresh_failure',
] as const;
export type TelemetryEventName = (typeof TELEMETRY_EVENT_NAMES)[number];
export const TELEMETRY_MAX_BATCH = 50;
export const TELEMETRY_MAX_PROPS_BYTES = 2048;

export const TELEMETRY_MESSAGES = {
  batchEmpty: 'Send at least one event',
  batchTooLarge: `Send at most ${TELEMETRY_MAX_BATCH} events at a time`,
  nameRequired: 'Event name is required',
  atInvalid: 'Event time must be an ISO 8601 date-time',
  propsTooLarge: `Event props must be ${TELEMETRY_MAX_PROPS_BYTES} bytes or less`,
  propsFlat: 'Event props must be strings, numbers, booleans or null',
} as const;

const telemetryEventSchema = z.object({
  name: z
    .string({ error: TELEMETRY_MESSAGES.nameRequired })
    .trim()
    .min(1, { error: TELEMETRY_MESSAGES.nameRequired })
    .max(100),
  at: z.iso.datetime({ offset: true, error: TELEMETRY_MESSAGES.atInvalid }).optional(),
  props: z
    .record(
      z.string().max(100),
      z.union(
        [
          z.string().max(500, { error: TELEMETRY_MESSAGES.propsTooLarge }),
          z.number(),
          z.boolean(),
          z.null(),
        ],
        { error: TELEMETRY_MESSAGES.propsFlat },
      ),
      { error: TELEMETRY_MESSAGES.propsFlat },
    )
    .refine(
      (p) => new TextEncoder().encode(JSON.stringify(p)).length <= TELEMETRY_MAX_PROPS_BYTES,
      { error: TELEMETRY_MESSAGES.propsTooLarge },
    )
    .optional(),
});

/** POST /api/telemetry: a batch of client events; unknown names are accepted and dropped. */
export const telemetryBodySchema = z.object({
  events: z
    .array(telemetryEventSchema, { error: TELEMETRY_MESSAGES.batchEmpty })
    .min(1, { error: TELEMETRY_MESSAGES.batchEmpty })
    .max(TELEMETRY_MAX_BATCH, { error: TELEMETRY_MESSAGES.batchTooLarge }),
});
export type TelemetryBody = z.infer<typeof telemetryBodySchema>;

export function isTelemetryEventName(name: string): name is TelemetryEventName {
  return (TELEMETRY_EVENT_NAMES as readonly string[]).includes(name);
}

// ---------------------------------------------------------------------------------------------
// Admin lists and actions
// ---------------------------------------------------------------------------------------------

/** Default page sizes of the admin lists (spec section 9: signups 10, job requests 5). */
export const ADMIN_PAGE_SIZE = 10;
export const ADMIN_JOB_REQUEST_PAGE_SIZE = 5;
export const ADMIN_MAX_PAGE_SIZE = 100;

const listQueryBase = {
  q: z
    .string({ error: 'Search must be one text, given once' })
    .trim()
    .max(200, { error: 'Search must be 200 characters or less' })
    .optional(),
  page: z.coerce
    .number({ error: 'Page must be a whole number of 1 or more' })
    .int({ error: 'Page must be a whole number of 1 or more' })
    .min(1, { error: 'Page must be a whole number of 1 or more' })
    .default(1),
  page_size: z.coerce
    .number({ error: `Page size must be a whole number from 1 to ${ADMIN_MAX_PAGE_SIZE}` })
    .int({ error: `Page size must be a whole number from 1 to ${ADMIN_MAX_PAGE_SIZE}` })
    .min(1, { error: `Page size must be a whole number from 1 to ${ADMIN_MAX_PAGE_SIZE}` })
    .max(ADMIN_MAX_PAGE_SIZE, {
      error: `Page size must be a whole number from 1 to ${ADMIN_MAX_PAGE_SIZE}`,
    })
    .optional(),
  export: z.enum(['csv'], { error: "Export must be 'csv'" }).optional(),
};

/** GET /api/admin/waitlist query. */
export const adminWaitlistQuerySchema = z.object({
  ...listQueryBase,
  role: z.enum(WAITLIST_ROLES, { error: 'Unknown role' }).optional(),
  kind: z
    .enum(WAITLIST_KINDS, { error: 'Kind must be signup, job_request or waitlist' })
    .optional(),
  approved: z
    .enum(['true', 'false'], { error: 'Approved must be true or false' })
    .transform((v) => v === 'true')
    .optional(),
});
export type AdminWaitlistQuery = z.infer<typeof adminWaitlistQuerySchema>;

/** GET /api/admin/leads and /api/admin/feedback query. */
export const adminListQuerySchema = z.object(listQueryBase);
export type AdminListQuery = z.infer<typeof adminListQuerySchema>;

/** PATCH /api/admin/waitlist/:id. */
export const approveWaitlistBodySchema = z.object({
  approved: z.boolean({ error: 'Approved must be true or false' }),
});
export type ApproveWaitlistBody = z.infer<typeof approveWaitlistBodySchema>;

export const waitlistEntryDtoSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  role: z.string(),
  kind: z.enum(WAITLIST_KINDS),
  url: z.string().nullable(),
  note: z.string().nullable(),
  approved: z.boolean(),
  created_at: z.string(),
});
export type WaitlistEntryDto = z.infer<typeof waitlistEntryDtoSchema>;
export const leadDtoSchema = z.object({
  id: z.string(),
  email: z.string(),
  message: z.string(),
  created_at: z.string(),
});
export type LeadDto = z.infer<typeof leadDtoSchema>;
export const feedbackDtoSchema = z.object({
  id: z.string(),
  email: z.string(),
  message: z.string(),
  page_url: z.string().nullable(),
  created_at: z.string(),
});
export type FeedbackDto = z.infer<typeof feedbackDtoSchema>;
export const clearJobsResultSchema = z.object({
  jobs_deleted: z.number().int(),
  submissions_deleted: z.number().int(),
  waitlist_deleted: z.number().int(),
  /** Paid jobs nobody finished: their posters are refunded (by payments, shortly after). */
  refunded_jobs: z.number().int(),
});
export type ClearJobsResult = z.infer<typeof clearJobsResultSchema>;

/** POST /api/admin/clear-jobs/preview: what clear-all would do, and the token confirming exactly that. */
export const clearJobsPreviewSchema = z.object({
  jobs_total: z.number().int(),
  jobs_by_status: z.record(z.string(), z.number().int()),
  submissions: z.number().int(),
  paid_unfinished: z.number().int(),
  paid_unfinished_cents: z.number().int(),
  paid_completed: z.number().int(),
  paid_completed_cents: z.number().int(),
  unpaid: z.number().int(),
  job_requests: z.number().int(),
  confirmation: z.string(),
  expires_at: z.string(),
});
export type ClearJobsPreview = z.infer<typeof clearJobsPreviewSchema>;

export const CLEAR_JOBS_MESSAGES = {
  confirmationRequired: 'Preview the clear first, then confirm it with the confirmation it gives',
  confirmationInvalid:
    'This confirmation is expired, already used or not yours. Please preview the clear again.',
} as const;

/** POST /api/admin/clear-jobs body: the confirmation a preview answered (single use, 5 minutes). */
export const clearJobsBodySchema = z.object({
  confirmation: z
    .string({ error: CLEAR_JOBS_MESSAGES.confirmationRequired })
    .trim()
    .min(1, { error: CLEAR_JOBS_MESSAGES.confirmationRequired })
    .max(200, { error: CLEAR_JOBS_MESSAGES.confirmationRequired }),
});

/** What the audit log records (one row per admin action). */
export const AUDIT_ACTIONS = [
  'tester.approved',
  'tester.unapproved',
  'signup.approved',
  'signup.unapproved',
  'job.assigned',
  'submission.accepted',
  'payout.sent',
  'jobs.cleared',
  'user.export_run',
  'user.deletion_scheduled',
  'appeal.overturned',
  'appeal.upheld',
  'session.released',
  'session.confirmed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

const isoDate = (field: string) =>
  z
    .string({ error: `${field} must be a date` })
    .refine((v) => !Number.isNaN(Date.parse(v)), { error: `${field} must be a date (ISO 8601)` })
    .optional();

/** GET /api/admin/audit and /api/admin/audit.csv query: pages, and filters that combine. */
export const adminAuditQuerySchema = z.object({
  page: listQueryBase.page,
  page_size: listQueryBase.page_size,
  action: z.enum(AUDIT_ACTIONS, { error: 'Unknown action' }).optional(),
  actor: z
    .string({ error: 'Actor must be one text' })
    .trim()
    .max(200, { error: 'Actor must be 200 characters or less' })
    .optional(),
  target: z
    .string({ error: 'Target must be one text' })
    .trim()
    .max(200, { error: 'Target must be 200 characters or less' })
    .optional(),
  from: isoDate('From'),
  to: isoDate('To'),
});
export type AdminAuditQuery = z.infer<typeof adminAuditQuerySchema>;

export const auditEntryDtoSchema = z.object({
  id: z.number().int(),
  at: z.string(),
  actor_id: z.string().nullable(),
  action: z.enum(AUDIT_ACTIONS),
  target: z.string(),
  details: z.record(z.string(), z.unknown()),
  correlation_id: z.string().nullable(),
});
export type AuditEntryDto = z.infer<typeof auditEntryDtoSchema>;

/** GET /api/admin/dead-letters: events no consumer could apply, per consumer group (admin's Overview). */
export const deadLettersViewSchema = z.object({
  total: z.number().int(),
  groups: z.array(z.object({ group: z.string(), count: z.number().int() })),
});
export type DeadLettersView = z.infer<typeof deadLettersViewSchema>;
/** POST /api/admin/dead-letters/replay: how many dead letters each group was asked to handle again. */
export const replayDeadLettersResultSchema = z.object({
  replayed: z.number().int(),
  groups: z.array(z.object({ group: z.string(), count: z.number().int() })),
});
export type ReplayDeadLettersResult = z.infer<typeof replayDeadLettersResultSchema>;

const pageFields = { total: z.number().int(), page: z.number().int(), page_size: z.number().int() };
/** GET /api/admin/waitlist (JSON; export=csv answers text/csv). */
export const waitlistPageSchema = z.object({
  entries: z.array(waitlistEntryDtoSchema),
  ...pageFields,
});
export type WaitlistPage = z.infer<typeof waitlistPageSchema>;
/** GET /api/admin/leads (JSON; export=csv answers text/csv). */
export const leadsPageSchema = z.object({ leads: z.array(leadDtoSchema), ...pageFields });
export type LeadsPage = z.infer<typeof leadsPageSchema>;
/** GET /api/admin/feedback. */
export const feedbackPageSchema = z.object({ feedback: z.array(feedbackDtoSchema), ...pageFields });
export type FeedbackPage = z.infer<typeof feedbackPageSchema>;
/** GET /api/admin/audit. */
export const auditPageSchema = z.object({ entries: z.array(auditEntryDtoSchema), ...pageFields });
export type AuditPage = z.infer<typeof auditPageSchema>;
/** PATCH /api/admin/waitlist/{id}. */
export const waitlistEntryResponseSchema = z.object({ entry: waitlistEntryDtoSchema });
/** POST /api/waitlist, /api/leads. */
export const formSentResponseSchema = z.object({ success: z.literal(true) });
/** POST /api/feedback: the feedback's id. */
export const feedbackSentResponseSchema = z.object({ success: z.literal(true), id: z.string() });
/** POST /api/telemetry: how many events of the batch were published. */
export const telemetryAcceptedResponseSchema = z.object({ accepted: z.number().int() });
