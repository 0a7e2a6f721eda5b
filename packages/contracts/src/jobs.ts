import { z } from 'zod';
import { LOCAL_URL_MESSAGE, webUrlProblem } from './common.js';
import { ASSISTIVE_TECH, ASSISTIVE_TECH_MESSAGE } from './identity.js';
import {
  FINDING_SEVERITIES,
  findingViewSchema,
  recordingLimitsSchema,
  recordingViewSchema,
} from './findings.js';
import { taskAnswerSchema } from './summary.js';
import {
  TESTER_LEVELS,
  PACK_SIZE,
  DEFAULT_GEO_RULE,
  LOW_RATING_MAX,
  DETAILED_REPORT_LIMITS as DETAILED,
  GEO_RULES,
  JOB_STATUSES,
  QUICK_REPORT_LIMITS as QUICK,
  REPORT_FILE_LIMITS,
  replacementExpectedBy,
  SESSION_CHECK_DEFAULTS,
  SESSION_CHECK_REASON_CODES,
  SESSION_VERDICTS,
  type GeoRule,
  type JobStatus,
} from './marketplace.js';

/**
 * Jobs: request schemas and their user-facing messages (spec sections 5 and 9), shared by the
 * jobs service and the web app.
 */

export { JOB_STATUSES, GEO_RULES };
export type { JobStatus, GeoRule };

export const JOB_LIMITS = {
  titleMax: 200,
  urlMax: 2000,
  whatToTestMax: 4000,
  requirementMax: 300,
  requirementsMax: 10,
  hoursMin: 1,
  hoursMax: 168,
  hoursDefault: 48,
  feedbackMin: QUICK.feedbackMin,
  feedbackMax: QUICK.feedbackMax,
  keyFindingMin: QUICK.keyFindingMin,
  keyFindingMax: QUICK.keyFindingMax,
  bulletMax: DETAILED.bulletMax,
  deviceMax: DETAILED.deviceMax,
  browserMax: DETAILED.browserMax,
  responseMax: QUICK.responseMax,
  responseMin: DETAILED.responseMin,
  generalFeedbackMax: DETAILED.generalFeedbackMax,
  reasonMax: 2000,
  specificIssueMax: 500,
  specificIssuesMax: 20,
  ...REPORT_FILE_LIMITS,
  minutesMin: QUICK.minutesMin,
  minutesMax: QUICK.minutesMax,
  starsMin: 1,
  starsMax: 5,
  ratingCommentMax: 500,
} as const;

export const JOB_MESSAGES = {
  /** A tester's job taken back by the claim timer / at the end of the revision window. */
  claimExpired: 'Your claim on this job expired, so it went back to the available jobs.',
  revisionExpired:
    'Your revision window for this job ended, so it went back to the available jobs.',
  /** A tester whose report on a job failed its check (or was replaced) claims its replacement. */
  replacedFromYou:
    'This job went to another tester because your report on it did not pass the checks, so it is not yours to take again.',
  replacedFromTester:
    "This job went to another tester because this tester's report on it did not pass the checks.",
  /** The poster asks for a report its session check has not passed yet ("Every session checked"). */
  reportChecking:
    'The tester has sent their report. We check every session before you see it: it will be here in a few minutes.',
  titleRequired: 'Title is required',
  titleTooLong: `Title must be ${JOB_LIMITS.titleMax} characters or less`,
  urlRequired: 'URL is required',
  urlInvalid: 'Please enter a valid URL starting with http:// or https://',
  urlTooLong: `URL must be ${JOB_LIMITS.urlMax} characters or less`,
  urlLocal: LOCAL_URL_MESSAGE,
  whatToTestRequired: 'Please describe what to test',
  whatToTestTooLong: `What to test must be ${JOB_LIMITS.whatToTestMax} characters or less`,
  requirementsRequired: 'Please add at least one thing to check.',
  requirementTooLong: `Each thing to check must be ${JOB_LIMITS.requirementMax} characters or less`,
  requirementsTooMany: `You can add at most ${JOB_LIMITS.requirementsMax} things to check`,
  budgetFixed: 'Budget is fixed at $1',
  hoursRange: `Expected completion must be a whole number of hours from ${JOB_LIMITS.hoursMin} to ${JOB_LIMITS.hoursMax}`,
  geoRuleInvalid: `Please choose who may test: ${GEO_RULES.slice(0, -1).join(', ')} or ${GEO_RULES[GEO_RULES.length - 1]}`,
  // Submit work, tester-dashboard variant
  feedbackTooShort: 'Feedback must be at least 10 characters',
  feedbackTooLong: 'Feedback must be less than 1000 characters',
  keyFindingRequired: 'At least one key finding (min 5 characters) is required',
  keyFindingTooLong: 'Key finding must be less than 120 characters',
  imageOnly: 'Please upload an image file only',
  imageOrVideoOnly: 'Please upload image or video files only',
  imageTooLarge: 'File size must be less than 10MB',
  videoTooLarge: 'File size must be less than 100MB',
  tooManyFiles: `Please upload at most ${JOB_LIMITS.maxFiles} files`,
  // Submit work, poster-flow variant
  responsesRequired: 'Please provide at least one response to the requirements before submitting.',
  responsesTooShort: 'Please provide more detailed responses (at least 10 characters each).',
  responseTooLong: `Each response must be ${JOB_LIMITS.responseMax} characters or less`,
  responsesInvalid: 'Requirement responses must be a list of {requirement_index, response_text}',
  deviceRequired: 'Device used is required',
  deviceTooLong: `Device used must be ${JOB_LIMITS.deviceMax} characters or less`,
  browserRequired: 'Browser used is required',
  browserTooLong: `Browser used must be ${JOB_LIMITS.browserMax} characters or less`,
  bulletRequired: (n: number) => `Key finding ${n} is required`,
  bulletTooLong: (n: number) => `Key finding ${n} must be 100 characters or less`,
  generalFeedbackTooLong: `General feedback must be ${JOB_LIMITS.generalFeedbackMax} characters or less`,
  // Review
  decisionRequired: 'Please choose a decision',
  rejectNotSupported: 'Rejection not supported in MVP. Request revision instead.',
  revisionReasonRequired: 'Please say what the tester should change',
  reasonTooLong: `Reason must be ${JOB_LIMITS.reasonMax} characters or less`,
  specificIssueTooLong: `Each specific issue must be ${JOB_LIMITS.specificIssueMax} characters or less`,
  specificIssuesTooMany: `You can list at most ${JOB_LIMITS.specificIssuesMax} specific issues`,
  specificIssuesInvalid: 'Specific issues must be a list of short texts',
  // Beyond the peers, part 1
  minutesRange: `Minutes spent must be a whole number from ${JOB_LIMITS.minutesMin} to ${JOB_LIMITS.minutesMax}`,
  starsRange: `Stars must be a whole number from ${JOB_LIMITS.starsMin} to ${JOB_LIMITS.starsMax}`,
  ratingCommentTooLong: `Comment must be ${JOB_LIMITS.ratingCommentMax} characters or less`,
  lowRatingNeedsReason:
    'Say why: the tester sees the reason for a rating of 1 or 2 stars and may appeal it',
  freshEyesInvalid: 'fresh_eyes must be true or false',
  recordingRequiredInvalid: 'recording_required must be true or false',
  /** Post New Job switches and the badge. */
  freshEyesLabel: 'A tester who has not seen my site before',
  recordingRequiredLabel: `A screen recording with the tester's voice, at least ${SESSION_CHECK_DEFAULTS.minRecordingMs / 60_000} minutes (checked before you see the report)`,
  /** What a tester reads on a job that asks for a recording. */
  recordingRequiredNote: `Asks for a screen recording with your voice, at least ${SESSION_CHECK_DEFAULTS.minRecordingMs / 60_000} minutes: a report without one does not pass the checks.`,
  assistiveTechLabel: 'Tested by someone who uses a screen reader',
  /** Claim refusals. */
  alreadyTestedSite:
    'This job asks for a tester who has not tested this site before, and you have.',
  assistiveTechRequired:
    'This job is for a tester who uses the assistive technology it names. Add it to your profile if you use it.',
  priorityWindow:
    'This job is open to top-rated testers first. Please check again in a few minutes.',
  testersRange: `Testers must be a whole number from ${PACK_SIZE.min} to ${PACK_SIZE.max}`,
  notCompleted: 'You can rate the tester once the job is completed.',
  alreadyRated: 'You have already rated this job.',
} as const;

/** Optional minutes a tester spent on the job (both submission flows; a multipart text field). */
export const minutesSpentSchema = z
  .union([z.number(), z.string().trim()], { error: JOB_MESSAGES.minutesRange })
  .optional()
  .nullable()
  .transform((v, ctx) => {
    if (v === undefined || v === null || v === '') return null;
    const n = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isInteger(n) || n < JOB_LIMITS.minutesMin || n > JOB_LIMITS.minutesMax) {
      ctx.addIssue({ code: 'custom', message: JOB_MESSAGES.minutesRange });
      return z.NEVER;
    }
    return n;
  });

const optionalText = (max: number, message: string) =>
  z
    .string()
    .trim()
    .max(max, { error: message })
    .optional()
    .nullable()
    .transform((v) => (v ? v : undefined));

/**
 * What a too-short Key finding N (2 or 3, which may stay empty) says; a too-long one says the
 * specification's 'Key finding must be less than 120 characters', as the first does.
 */
export const keyFindingLengthMessage = (n: number) =>
  `Key finding ${n} must be at least ${JOB_LIMITS.keyFindingMin} characters (or leave it empty)`;

/**
 * An optional key finding of the dashboard variant: empty is fine, else 5-120 characters. The
 * first one keeps the "at least one" message; the others say their own rule.
 */
const keyFinding = (n: number) =>
  z
    .string()
    .trim()
    .max(JOB_LIMITS.keyFindingMax, {
      error: JOB_MESSAGES.keyFindingTooLong,
    })
    .refine((v) => v.length === 0 || v.length >= JOB_LIMITS.keyFindingMin, {
      error: n === 1 ? JOB_MESSAGES.keyFindingRequired : keyFindingLengthMessage(n),
    })
    .optional()
    .nullable()
    .transform((v) => (v ? v : undefined));

/**
 * POST /api/jobs/{id}/accept. A tester takes the job for herself (no body); the admin "accepts
 * or assigns" (spec) by naming the approved tester who takes it (the same as
 * POST /api/admin/assign/{jobId}/{testerId}).
 */
export const ACCEPT_JOB_MESSAGES = {
  testerRequired: 'Choose the tester who takes this job',
  failure: 'Failed to accept job',
} as const;
export const acceptJobBodySchema = z.object({
  tester_id: z
    .string({ error: ACCEPT_JOB_MESSAGES.testerRequired })
    .trim()
    .min(1, { error: ACCEPT_JOB_MESSAGES.testerRequired })
    .max(100, { error: ACCEPT_JOB_MESSAGES.testerRequired })
    .optional(),
});
export type AcceptJobBody = z.infer<typeof acceptJobBodySchema>;

/** The job's website address: public only, or (SITE_CHECK_ALLOW_PRIVATE, tests only) local too. */
const jobUrlSchema = (allowLocal: boolean) =>
  z
    .string({ error: JOB_MESSAGES.urlRequired })
    .trim()
    .min(1, { error: JOB_MESSAGES.urlRequired })
    .max(JOB_LIMITS.urlMax, { error: JOB_MESSAGES.urlTooLong })
    .superRefine((v, ctx) => {
      const problem = webUrlProblem(v);
      if (problem && !(allowLocal && problem === 'local'))
        ctx.addIssue({
          code: 'custom',
          message: problem === 'local' ? JOB_MESSAGES.urlLocal : JOB_MESSAGES.urlInvalid,
        });
    });

/** POST /api/jobs (Post New Job modal). */
export const createJobBodySchema = z.object({
  title: z
    .string({ error: JOB_MESSAGES.titleRequired })
    .trim()
    .min(1, { error: JOB_MESSAGES.titleRequired })
    .max(JOB_LIMITS.titleMax, { error: JOB_MESSAGES.titleTooLong }),
  url: jobUrlSchema(false),
  what_to_test: z
    .string({ error: JOB_MESSAGES.whatToTestRequired })
    .trim()
    .min(1, { error: JOB_MESSAGES.whatToTestRequired })
    .max(JOB_LIMITS.whatToTestMax, { error: JOB_MESSAGES.whatToTestTooLong }),
  requirements: z
    .array(
      z
        .string({ error: JOB_MESSAGES.requirementsRequired })
        .trim()
        .max(JOB_LIMITS.requirementMax, { error: JOB_MESSAGES.requirementTooLong }),
      {
        error: JOB_MESSAGES.requirementsRequired,
      },
    )
    // Blank rows of the form are dropped; at least one real one must remain.
    .transform((list) => list.filter((r) => r.length > 0))
    .pipe(
      z
        .array(z.string())
        .min(1, { error: JOB_MESSAGES.requirementsRequired })
        .max(JOB_LIMITS.requirementsMax, { error: JOB_MESSAGES.requirementsTooMany }),
    ),
  budget: z
    .union([z.literal(1), z.literal('1')], { error: JOB_MESSAGES.budgetFixed })
    .optional()
    .nullable()
    .transform(() => 1 as const),
  expected_completion_hours: z.coerce
    .number({ error: JOB_MESSAGES.hoursRange })
    .int({ error: JOB_MESSAGES.hoursRange })
    .min(JOB_LIMITS.hoursMin, { error: JOB_MESSAGES.hoursRange })
    .max(JOB_LIMITS.hoursMax, { error: JOB_MESSAGES.hoursRange })
    .optional()
    .nullable()
    .transform((v) => v ?? JOB_LIMITS.hoursDefault),
  geo_rule: z
    .enum(GEO_RULES, { error: JOB_MESSAGES.geoRuleInvalid })
    .optional()
    .nullable()
    .transform((v) => v ?? DEFAULT_GEO_RULE),
  /** Only testers who never submitted work on this poster's jobs for the same site (default on). */
  fresh_eyes: z
    .boolean({ error: JOB_MESSAGES.freshEyesInvalid })
    .optional()
    .nullable()
    .transform((v) => v ?? true),
  /** The tester must attach a screen recording (its session check fails without one; default off). */
  recording_required: z
    .boolean({ error: JOB_MESSAGES.recordingRequiredInvalid })
    .optional()
    .nullable()
    .transform((v) => v ?? false),
  /** Only testers whose profile lists this assistive technology (default: anyone). */
  assistive_tech: z
    .enum(ASSISTIVE_TECH, { error: ASSISTIVE_TECH_MESSAGE })
    .optional()
    .nullable()
    .transform((v) => v ?? null),
  /** How many testers (a pack: one job per tester, one checkout for all): 1-10, default 1. */
  testers: z
    .number({ error: JOB_MESSAGES.testersRange })
    .int({ error: JOB_MESSAGES.testersRange })
    .min(PACK_SIZE.min, { error: JOB_MESSAGES.testersRange })
    .max(PACK_SIZE.max, { error: JOB_MESSAGES.testersRange })
    .optional()
    .nullable()
    .transform((v) => v ?? PACK_SIZE.default),
  /** A favourite tester (#34) to hold the job for first (RETEST_RESERVE_MS from its payment), then everyone. */
  invite_tester_id: z
    .string({ error: 'invite_tester_id must be the id of one of your favourite testers' })
    .trim()
    .max(200, { error: 'invite_tester_id must be the id of one of your favourite testers' })
    .optional()
    .nullable()
    .transform((v) => v || undefined),
});
export type CreateJobBody = z.infer<typeof createJobBodySchema>;
/**
 * POST /api/jobs when SITE_CHECK_ALLOW_PRIVATE is on (tests only, refused in production): a job may
 * name a local address (http://127.0.0.1:PORT/), so the site check's tests can serve fixture sites.
 */
export const createJobBodyAllowingLocalSchema = createJobBodySchema.extend({
  url: jobUrlSchema(true),
});

/** POST /api/jobs/:id/submit-work (tester dashboard Submit Work modal), text fields. */
export const requirementResponseSchema = z.object({
  requirement_index: z.coerce
    .number({ error: JOB_MESSAGES.responsesInvalid })
    .int({ error: JOB_MESSAGES.responsesInvalid })
    .min(0, { error: JOB_MESSAGES.responsesInvalid }),
  response_text: z
    .string({ error: JOB_MESSAGES.responsesInvalid })
    .trim()
    .max(JOB_LIMITS.responseMax, { error: JOB_MESSAGES.responseTooLong }),
});

export const submitWorkDashboardSchema = z
  .object({
    feedback_text: z
      .string({ error: JOB_MESSAGES.feedbackTooShort })
      .trim()
      .min(JOB_LIMITS.feedbackMin, { error: JOB_MESSAGES.feedbackTooShort })
      .max(JOB_LIMITS.feedbackMax, { error: JOB_MESSAGES.feedbackTooLong }),
    key_finding_1: keyFinding(1),
    key_finding_2: keyFinding(2),
    key_finding_3: keyFinding(3),
    minutes_spent: minutesSpentSchema,
    /** Optional answers to the job's checklist (the service parses the multipart JSON string first). */
    requirement_responses: z
      .array(requirementResponseSchema, { error: JOB_MESSAGES.responsesInvalid })
      .max(QUICK.responsesMax, { error: JOB_MESSAGES.responsesInvalid })
      .optional(),
  })
  .superRefine((v, ctx) => {
    // Each non-empty finding is already 5+ characters; at least one must be given.
    if (![v.key_finding_1, v.key_finding_2, v.key_finding_3].some((f) => f)) {
      ctx.addIssue({
        code: 'custom',
        path: ['key_finding_1'],
        message: JOB_MESSAGES.keyFindingRequired,
      });
    }
  })
  .transform((v) => ({
    feedback_text: v.feedback_text,
    key_findings: [v.key_finding_1, v.key_finding_2, v.key_finding_3].filter(
      (f): f is string => !!f,
    ),
    minutes_spent: v.minutes_spent,
    requirement_responses: v.requirement_responses ?? [],
  }));
export type SubmitWorkDashboard = z.infer<typeof submitWorkDashboardSchema>;

const bullet = (n: number) =>
  z
    .string({ error: JOB_MESSAGES.bulletRequired(n) })
    .trim()
    .min(1, { error: JOB_MESSAGES.bulletRequired(n) })
    .max(JOB_LIMITS.bulletMax, { error: JOB_MESSAGES.bulletTooLong(n) });

/**
 * POST /api/jobs/:id/submissions (poster-flow Submit Work modal), text fields.
 * `requirement_responses` arrives as a JSON string in multipart; the service parses it first.
 */
export const submitWorkPosterFlowSchema = z
  .object({
    requirement_responses: z
      .array(requirementResponseSchema, { error: JOB_MESSAGES.responsesRequired })
      .max(DETAILED.responsesMax, { error: JOB_MESSAGES.responsesInvalid }),
    general_feedback: optionalText(
      JOB_LIMITS.generalFeedbackMax,
      JOB_MESSAGES.generalFeedbackTooLong,
    ),
    device_used: z
      .string({ error: JOB_MESSAGES.deviceRequired })
      .trim()
      .min(1, { error: JOB_MESSAGES.deviceRequired })
      .max(JOB_LIMITS.deviceMax, { error: JOB_MESSAGES.deviceTooLong }),
    browser_used: z
      .string({ error: JOB_MESSAGES.browserRequired })
      .trim()
      .min(1, { error: JOB_MESSAGES.browserRequired })
      .max(JOB_LIMITS.browserMax, { error: JOB_MESSAGES.browserTooLong }),
    key_findings_bullet_1: bullet(1),
    key_findings_bullet_2: bullet(2),
    key_findings_bullet_3: bullet(3),
    minutes_spent: minutesSpentSchema,
  })
  .superRefine((v, ctx) => {
    const filled = v.requirement_responses.filter((r) => r.response_text.length > 0);
    if (!filled.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['requirement_responses'],
        message: JOB_MESSAGES.responsesRequired,
      });
    } else if (!filled.some((r) => r.response_text.length >= JOB_LIMITS.responseMin)) {
      ctx.addIssue({
        code: 'custom',
        path: ['requirement_responses'],
        message: JOB_MESSAGES.responsesTooShort,
      });
    }
  })
  .transform((v) => ({
    requirement_responses: v.requirement_responses.filter((r) => r.response_text.length > 0),
    general_feedback: v.general_feedback ?? null,
    device_used: v.device_used,
    browser_used: v.browser_used,
    key_findings: [v.key_findings_bullet_1, v.key_findings_bullet_2, v.key_findings_bullet_3],
    minutes_spent: v.minutes_spent,
  }));
export type SubmitWorkPosterFlow = z.infer<typeof submitWorkPosterFlowSchema>;

/** POST /api/jobs/:id/review (Review Submission modal). */
export const reviewBodySchema = z
  .object({
    decision: z.enum(['accept', 'request_revision', 'reject'], {
      error: JOB_MESSAGES.decisionRequired,
    }),
    reason: optionalText(JOB_LIMITS.reasonMax, JOB_MESSAGES.reasonTooLong),
    // A list of short items; a single text is read as one item per line. Blank items are dropped.
    specific_issues: z
      .union([z.string().transform((text) => text.split(/\r?\n/)), z.array(z.string())], {
        error: JOB_MESSAGES.specificIssuesInvalid,
      })
      .optional()
      .nullable()
      .transform((v) => (v ?? []).map((s) => s.trim()).filter((s) => s.length > 0))
      .pipe(
        z
          .array(
            z
              .string()
              .max(JOB_LIMITS.specificIssueMax, { error: JOB_MESSAGES.specificIssueTooLong }),
          )
          .max(JOB_LIMITS.specificIssuesMax, { error: JOB_MESSAGES.specificIssuesTooMany }),
      ),
  })
  .superRefine((v, ctx) => {
    if (v.decision === 'reject')
      ctx.addIssue({
        code: 'custom',
        path: ['decision'],
        message: JOB_MESSAGES.rejectNotSupported,
      });
    if (v.decision === 'request_revision' && !v.reason)
      ctx.addIssue({
        code: 'custom',
        path: ['reason'],
        message: JOB_MESSAGES.revisionReasonRequired,
      });
  });
export type ReviewBody = z.infer<typeof reviewBodySchema>;

/** POST /api/jobs/:id/rating: the poster rates the tester of a completed job, once. */
export const rateJobBodySchema = z
  .object({
    stars: z
      .number({ error: JOB_MESSAGES.starsRange })
      .int({ error: JOB_MESSAGES.starsRange })
      .min(JOB_LIMITS.starsMin, { error: JOB_MESSAGES.starsRange })
      .max(JOB_LIMITS.starsMax, { error: JOB_MESSAGES.starsRange }),
    comment: optionalText(JOB_LIMITS.ratingCommentMax, JOB_MESSAGES.ratingCommentTooLong).transform(
      (v) => v ?? null,
    ),
  })
  .superRefine((v, ctx) => {
    // A low rating shows the tester its reason ("Fair and fast for testers").
    // Only for valid stars: a bad stars value is its own error.
    if (
      Number.isInteger(v.stars) &&
      v.stars >= JOB_LIMITS.starsMin &&
      v.stars <= LOW_RATING_MAX &&
      !v.comment
    )
      ctx.addIssue({
        code: 'custom',
        path: ['comment'],
        message: JOB_MESSAGES.lowRatingNeedsReason,
      });
  });
export type RateJobBody = z.infer<typeof rateJobBodySchema>;

export const ratingViewSchema = z.object({
  stars: z.number().int(),
  comment: z.string().nullable(),
  created_at: z.string(),
});
export type RatingView = z.infer<typeof ratingViewSchema>;

/** GET /api/tester/available-jobs query. */
export const AVAILABLE_JOBS_PAGE = { default: 20, max: 100 } as const;
export const AVAILABLE_JOBS_QUERY_MESSAGES = {
  limit: `limit must be a whole number from 1 to ${AVAILABLE_JOBS_PAGE.max}`,
  cursor: 'cursor must be the next_cursor of the previous page',
} as const;
const { limit: limitMessage, cursor: cursorMessage } = AVAILABLE_JOBS_QUERY_MESSAGES;
export const availableJobsQuerySchema = z.object({
  // A repeated parameter (?limit=20&limit=30) arrives as a list, which is not a number either.
  limit: z.coerce
    .number({ error: limitMessage })
    .int({ error: limitMessage })
    .min(1, { error: limitMessage })
    .max(AVAILABLE_JOBS_PAGE.max, { error: limitMessage })
    .optional()
    .default(AVAILABLE_JOBS_PAGE.default),
  cursor: z.string({ error: cursorMessage }).max(200, { error: cursorMessage }).optional(),
});
export type AvailableJobsQuery = z.infer<typeof availableJobsQuerySchema>;

/** The job object of every jobs answer (docs/api-contracts.md "Jobs"). */
export const jobViewSchema = z.object({
  id: z.string(),
  title: z.string(),
  url: z.string(),
  what_to_test: z.string(),
  budget: z.literal(1),
  expected_completion_hours: z.number(),
  geo_rule: z.enum(GEO_RULES),
  requirements: z.array(z.string()),
  status: z.enum(JOB_STATUSES),
  payment_status: z.enum(['paid', 'unpaid']),
  poster_id: z.string(),
  tester_id: z.string().nullable(),
  poster_info: z.object({ email: z.string(), name: z.string() }).optional(),
  last_review: z
    .object({
      decision: z.string(),
      reason: z.string().nullable(),
      specific_issues: z.array(z.string()).optional(),
      at: z.string(),
    })
    .nullable(),
  revision_count: z.number().int(),
  created_at: z.string(),
  claimed_at: z.string().nullable(),
  submitted_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  claim_deadline_at: z.string().nullable(),
  auto_accept_at: z.string().nullable(),
  revision_deadline_at: z.string().nullable(),
  /** Only testers new to this poster's site (same host, `www.` ignored) may take it. */
  fresh_eyes: z.boolean(),
  /** Only testers who use this assistive technology may take it; null: anyone. */
  assistive_tech: z.enum(ASSISTIVE_TECH).nullable(),
  /** The tester must attach a screen recording (absent from older answers: false). */
  recording_required: z.boolean().optional(),
  /** The poster's rating of the tester (poster and admin views of a completed job), else null. */
  rating: ratingViewSchema.nullable().optional(),
  /** A re-test: the completed job it checks again ("Re-test: ..."), else null. */
  retest_of: z.string().nullable().optional(),
  /** A paid re-test is held for the original tester until then (RETEST_RESERVE_MS after payment). */
  reserved_until: z.string().nullable().optional(),
  /** When the job was paid (null while unpaid). */
  paid_at: z.string().nullable().optional(),
  /** The pack this job is one slot of (several testers ordered in one checkout), else null. */
  pack_id: z.string().nullable().optional(),
  /**
   * Submitted, and the report is being checked before its poster sees it ("Every session
   * checked"): the poster's lists say so instead of offering a review (absent: false).
   */
  report_checking: z.boolean().optional(),
  /**
   * When the job last went back to Available Jobs for a replacement (its report failed the
   * session check, or the owner took the free replacement of a borderline one), else null.
   */
  replaced_at: z.string().nullable().optional(),
  /**
   * When the results are expected at the latest (resultsExpectedBy): after a replacement, the
   * replacement's 24-48 h window from `replaced_at`; null while unpaid.
   */
  results_expected_by: z.string().nullable().optional(),
});
export type JobView = z.infer<typeof jobViewSchema>;

/** A pack's progress: its slots by state ("3 of 5 done"). */
export const packSummarySchema = z.object({
  id: z.string(),
  size: z.number().int(),
  claimed: z.number().int(),
  submitted: z.number().int(),
  completed: z.number().int(),
  closed: z.number().int(),
});
export type PackSummary = z.infer<typeof packSummarySchema>;

/** One tester's finding inside a cluster of GET /api/packs/{id}. */
export const packClusterFindingSchema = z.object({
  job_id: z.string(),
  /** The finding by its report and place (what POST /api/packs/{id}/groups names). */
  submission_id: z.string(),
  finding_index: z.number().int(),
  text: z.string(),
  severity: z.enum(FINDING_SEVERITIES).nullable(),
});
export type PackClusterFinding = z.infer<typeof packClusterFindingSchema>;

/**
 * Findings of several testers that say the same thing: grouped by the testers' "same problem"
 * answers and the owner's merge / split first, then by the similarity of their text.
 */
export const packClusterSchema = z.object({
  /** The cluster's most representative finding text. */
  summary: z.string(),
  /** How many different testers (jobs) hit it. */
  count: z.number().int(),
  job_ids: z.array(z.string()),
  findings: z.array(packClusterFindingSchema),
});
export type PackCluster = z.infer<typeof packClusterSchema>;

/** GET /api/packs/{id} (the poster, the admin): the pack, its jobs and what the testers agree on. */
export const packViewSchema = z.object({
  pack: packSummarySchema,
  jobs: z.array(jobViewSchema),
  /**
   * Testers whose reports are in and shown (current reports; one still held by its session check
   * is left out): the N of each cluster's "n of N testers", the same N as the pack summary's
   * testers_total.
   */
  reported: z.number().int(),
  clusters: z.array(packClusterSchema),
});
export type PackView = z.infer<typeof packViewSchema>;

/** A paid job's results are promised within its completion window plus this margin to be claimed. */
export const RESULTS_CLAIM_MARGIN_HOURS = 48;

/**
 * "Results expected by": paid_at + expected_completion_hours + RESULTS_CLAIM_MARGIN_HOURS
 * (48 h to be claimed, then the tester's window), or null for an unpaid job. After a replacement
 * (`replaced_at`) the promise starts again: the replacement's window from when the job reopened
 * (replacementExpectedBy, "24-48 hours" as the owner is told).
 */
export function resultsExpectedBy(
  job: Pick<JobView, 'paid_at' | 'expected_completion_hours' | 'replaced_at'>,
): string | null {
  if (!job.paid_at) return null;
  const replaced = job.replaced_at ? Date.parse(job.replaced_at) : NaN;
  if (!Number.isNaN(replaced)) return replacementExpectedBy(new Date(replaced)).toISOString();
  const paid = Date.parse(job.paid_at);
  if (Number.isNaN(paid)) return null;
  return new Date(
    paid + (job.expected_completion_hours + RESULTS_CLAIM_MARGIN_HOURS) * 3_600_000,
  ).toISOString();
}

/** GET /api/tester/available-jobs: a page of jobs, the next cursor, and how long recent tests took. */
export const availableJobsPageSchema = z.object({
  jobs: z.array(jobViewSchema),
  next_cursor: z.string().nullable(),
  /** Median minutes_spent of recent submissions ("usually N minutes"), null before any. */
  usual_minutes: z.number().nullable(),
  /** How many jobs a tester may hold at once (MAX_ACTIVE_CLAIMS): Claim waits while they hold that many. */
  max_active_claims: z.number().int(),
});
export type AvailableJobsPage = z.infer<typeof availableJobsPageSchema>;

/**
 * What the session check of a report found ("Every session checked"): the poster reads the
 * "Checked" line and, for a borderline session, the warning and whether the free replacement is
 * still theirs; the tester reads each reason in plain words.
 */
export const sessionCheckViewSchema = z.object({
  status: z.enum(['checking', 'done']),
  verdict: z.enum(SESSION_VERDICTS).nullable(),
  /** "6:12 recorded, 64% talking, 3 of 3 things checked, original text" (null while checking). */
  line: z.string().nullable(),
  reasons: z.array(z.object({ code: z.enum(SESSION_CHECK_REASON_CODES), text: z.string() })),
  /** The poster may still ask for the job's one free replacement of this report. */
  replacement_available: z.boolean(),
});
export type SessionCheckView = z.infer<typeof sessionCheckViewSchema>;

/** GET /api/tester/session-checks: the tester's reports whose check found something, newest first. */
export const testerSessionChecksSchema = z.object({
  checks: z.array(
    z.object({
      submission_id: z.string(),
      job_id: z.string(),
      title: z.string(),
      verdict: z.enum(SESSION_VERDICTS),
      reasons: z.array(z.object({ code: z.enum(SESSION_CHECK_REASON_CODES), text: z.string() })),
      /** The report is kept from the poster and the job went to another tester: it earns nothing unless an appeal succeeds. */
      held: z.boolean(),
      /** The poster asked for a free replacement of this borderline report: it earns nothing. */
      replaced: z.boolean(),
      checked_at: z.string(),
      /** The admin (or an appeal) released the failed report: no strike. */
      released: z.boolean().optional(),
      /** The admin confirmed the failure: it counts as a strike. */
      confirmed: z.boolean().optional(),
    }),
  ),
});
export type TesterSessionChecks = z.infer<typeof testerSessionChecksSchema>;

/** GET /api/admin/session-checks?status= : failed sessions waiting for the admin (held), or decided ones. */
export const adminSessionChecksQuerySchema = z.object({
  status: z.enum(['held', 'decided'], { error: 'status must be held or decided' }).default('held'),
});

/** A failed session as the admin's queue shows it: what was measured, the report, and its appeal. */
export const heldSessionViewSchema = z.object({
  submission_id: z.string(),
  job_id: z.string(),
  title: z.string(),
  tester_id: z.string(),
  /** The tester's name as the report carries it. */
  tester_name: z.string().nullable(),
  submitted_at: z.string(),
  checked_at: z.string().nullable(),
  /** "0:40 recorded, 0% talking, 1 of 2 things checked, original text" */
  line: z.string(),
  reasons: z.array(z.object({ code: z.enum(SESSION_CHECK_REASON_CODES), text: z.string() })),
  metrics: z.object({
    recording_ms: z.number().nullable(),
    talk_pct: z.number().nullable(),
    longest_idle_ms: z.number().nullable(),
    items_total: z.number().int(),
    items_covered: z.number().int(),
    max_containment: z.number().nullable(),
  }),
  /** Why something could not be measured (no ffmpeg, an unreadable recording), or null. */
  note: z.string().nullable(),
  key_findings: z.array(z.string()),
  general_feedback: z.string().nullable(),
  recording_url: z.string().nullable(),
  /** The job now: open means nobody took the replacement yet (a release gives the report back to its owner). */
  job_status: z.enum(JOB_STATUSES),
  appeal: z
    .object({
      id: z.string(),
      status: z.enum(['open', 'overturned', 'upheld']),
      message: z.string(),
    })
    .nullable(),
  decision: z
    .object({
      decision: z.enum(['released', 'confirmed']),
      by: z.enum(['admin', 'appeal']),
      at: z.string(),
    })
    .nullable(),
});
export type HeldSessionView = z.infer<typeof heldSessionViewSchema>;

export const adminSessionChecksResponseSchema = z.object({
  sessions: z.array(heldSessionViewSchema),
});
export type AdminSessionChecks = z.infer<typeof adminSessionChecksResponseSchema>;

/** POST /api/admin/session-checks/{id}/release|confirm: the session after the decision; delivered: its owner reads it now. */
export const sessionDecisionResponseSchema = z.object({
  session: heldSessionViewSchema,
  delivered: z.boolean(),
});
export type SessionDecisionAnswer = z.infer<typeof sessionDecisionResponseSchema>;

export const submissionViewSchema = z.object({
  id: z.string(),
  job_id: z.string(),
  revision: z.number().int(),
  submitted_at: z.string(),
  locked: z.boolean(),
  auto_accept_at: z.string().nullable(),
  submitted_by_snapshot: z.object({ name: z.string(), location: z.string().nullable() }),
  human_preview: z.object({
    device_used: z.string().nullable(),
    browser_used: z.string().nullable(),
    key_findings_bullets: z.array(z.string()),
    small_image_url: z.string().nullable(),
  }),
  requirement_responses: z
    .array(z.object({ requirement_index: z.number().int(), response_text: z.string() }))
    .nullable(),
  general_feedback: z.string().nullable(),
  file_urls: z.array(z.string()).nullable(),
  /** Each file's own name as uploaded (sanitised), in file_urls' order; null where unknown. */
  file_names: z.array(z.string().nullable()).nullable(),
  /** What the tester said they spent (1-240), or null. */
  minutes_spent: z.number().nullable(),
  /** Minutes from the claim to this submission, measured by the server. */
  claim_to_submit_minutes: z.number().nullable(),
  /** The key findings with their details (severity, steps, expected/actual, moment), in finding order. */
  findings: z.array(findingViewSchema),
  /** The screen recording attached to the submission, or null. */
  recording: recordingViewSchema.nullable(),
  /**
   * Per thing to check: done / partly / not done, how easy (SEQ 1-7), minutes (issue #51; only
   * those answered). Null while locked for the poster, like the checklist answers.
   */
  task_answers: z.array(taskAnswerSchema).nullable().optional(),
  /** The 10 SUS answers (1-5) when the tester gave them; null when not given or locked. */
  sus: z.array(z.number().int()).nullable().optional(),
  /** Its session check (absent from views of reports written before the checks). */
  session_check: sessionCheckViewSchema.nullable().optional(),
});
export type SubmissionView = z.infer<typeof submissionViewSchema>;

/**
 * GET /api/jobs/{id}/released-reports: the job's reports that failed their session check and were
 * released after all (an upheld appeal, the admin) once the job had gone to another tester. The
 * owner reads them whole at no cost (the platform pays their testers), oldest first.
 */
export const releasedReportsResponseSchema = z.object({
  reports: z.array(submissionViewSchema),
});
export type ReleasedReportsResponse = z.infer<typeof releasedReportsResponseSchema>;

/** GET /api/jobs/{id}/before-after: a re-test's findings beside the original's, per checklist item and key finding. */
export const retestComparisonViewSchema = z.object({
  job_id: z.string(),
  retest_of: z.string(),
  /**
   * The accepted submission of the original job; null for a tester who did not write it (a
   * re-test that went to someone else gets only the per-item findings below).
   */
  before: submissionViewSchema.nullable(),
  /** The re-test's submission (locked for the poster until accepted), or null before one exists. */
  after: submissionViewSchema.nullable(),
  requirements: z.array(
    z.object({
      requirement_index: z.number().int(),
      requirement: z.string(),
      before: z.string().nullable(),
      after: z.string().nullable(),
    }),
  ),
  key_findings: z.array(
    z.object({
      index: z.number().int(),
      before: z.string().nullable(),
      after: z.string().nullable(),
    }),
  ),
});
export type RetestComparisonView = z.infer<typeof retestComparisonViewSchema>;

/**
 * GET /api/tester/standing: the tester's record and level (the rules module's testerLevel) and,
 * below Top, what the next level still needs. `priority_access`: whether newly paid jobs show to
 * them during the priority window.
 */
export const testerStandingSchema = z.object({
  jobs_completed: z.number().int(),
  /** Accepted jobs over finished claims (accepted + strikes in force), whole percent; null before any. */
  acceptance_rate_pct: z.number().int().nullable(),
  /** Average of the stars posters gave (overturned ratings left out), one decimal; null without ratings. */
  rating_avg: z.number().nullable(),
  rating_count: z.number().int(),
  level: z.enum(TESTER_LEVELS),
  priority_access: z.boolean(),
  next_level: z.object({ level: z.enum(TESTER_LEVELS), needs: z.array(z.string()) }).nullable(),
});
export type TesterStandingView = z.infer<typeof testerStandingSchema>;

/** GET /api/jobs (a poster's own jobs; the admin: every job with poster_info). */
export const jobsListResponseSchema = z.object({ jobs: z.array(jobViewSchema) });
/** GET /api/tester/my-jobs: the tester's jobs and the recorder's limits. */
export const myJobsResponseSchema = z.object({
  jobs: z.array(jobViewSchema),
  recording_limits: recordingLimitsSchema,
});
export type MyJobsResponse = z.infer<typeof myJobsResponseSchema>;
/** One job: claim, accept, assign. */
export const jobResponseSchema = z.object({ job: jobViewSchema });
/**
 * POST /api/jobs, /retest, /checkout: the checkout session (null when payments did not answer:
 * payment_error says so) for the job, or a pack's first slot, with every slot and the pack.
 */
export const checkoutAnswerSchema = z.object({
  checkout_url: z.string().nullable(),
  session_id: z.string().nullable(),
  job: jobViewSchema,
  jobs: z.array(jobViewSchema),
  pack: z.object({ id: z.string(), size: z.number().int() }).nullable(),
  payment_error: z.string().optional(),
});
export type CheckoutAnswer = z.infer<typeof checkoutAnswerSchema>;
/** POST /api/jobs/{id}/submit-work and /submissions: the new submission and the job. */
export const submitWorkResponseSchema = z.object({
  submission: submissionViewSchema,
  job: jobViewSchema,
});
/** POST /api/jobs/{id}/review, PATCH /api/jobs/{id}/complete. */
export const reviewResponseSchema = z.object({
  payment_processed: z.boolean(),
  revision_count: z.number().int(),
  job: jobViewSchema,
});
export type ReviewResponse = z.infer<typeof reviewResponseSchema>;
/** POST /api/jobs/{id}/rating. */
export const ratingResponseSchema = z.object({ rating: ratingViewSchema });
