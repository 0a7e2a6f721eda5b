import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { handledEventsTable, outboxTable } from '@htm/events/outbox';
import type { FindingDetails, SiteCheckSummary, TaskAnswerView } from '@htm/contracts';
import {
  DEFAULT_GEO_RULE,
  PRICE_PER_TEST_CENTS,
  type SessionCheckReason,
  type SessionMetrics,
} from '@htm/contracts/marketplace';

export const jobsSchema = pgSchema('jobs');
export const outbox = outboxTable(jobsSchema);
export const handledEvents = handledEventsTable(jobsSchema);

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export interface LastReview {
  decision: string;
  reason: string | null;
  specific_issues?: string[];
  at: string;
}

export const jobs = jobsSchema.table(
  'jobs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    title: text('title').notNull(),
    url: text('url').notNull(),
    whatToTest: text('what_to_test').notNull(),
    budgetCents: integer('budget_cents').notNull().default(PRICE_PER_TEST_CENTS),
    expectedCompletionHours: integer('expected_completion_hours').notNull().default(48),
    geoRule: text('geo_rule').notNull().default(DEFAULT_GEO_RULE),
    requirements: jsonb('requirements').$type<string[]>().notNull(),
    status: text('status').notNull().default('open'),
    paymentStatus: text('payment_status').notNull().default('unpaid'),
    checkoutSessionId: text('checkout_session_id'),
    checkoutAttempts: integer('checkout_attempts').notNull().default(0),
    checkoutCancelledAt: ts('checkout_cancelled_at'),
    paidAt: ts('paid_at'),
    posterId: text('poster_id').notNull(),
    /** Poster e-mail and name from the token at creation (the users projection may know newer ones). */
    posterEmail: text('poster_email').notNull().default(''),
    posterName: text('poster_name').notNull().default(''),
    testerId: text('tester_id'),
    /** Submission currently under review / last accepted one. */
    currentSubmissionId: uuid('current_submission_id'),
    revisionCount: integer('revision_count').notNull().default(0),
    lastReview: jsonb('last_review').$type<LastReview>(),
    acceptedBy: text('accepted_by'),
    createdAt: ts('created_at').notNull().defaultNow(),
    claimedAt: ts('claimed_at'),
    submittedAt: ts('submitted_at'),
    completedAt: ts('completed_at'),
    claimDeadlineAt: ts('claim_deadline_at'),
    autoAcceptAt: ts('auto_accept_at'),
    revisionDeadlineAt: ts('revision_deadline_at'),
    /** Only testers who never submitted work on this poster's jobs for the same site (the rules module's freshEyesBlocks). */
    freshEyes: boolean('fresh_eyes').notNull().default(true),
    /** Only testers whose profile lists this assistive technology; null: anyone. */
    assistiveTech: text('assistive_tech'),
    /** The URL's host, lower-case, a leading `www.` removed (the fresh-eyes "same site"). */
    siteHost: text('site_host').notNull().default(''),
    /** A re-test (POST /api/jobs/:id/retest): the completed job it checks again. */
    retestOf: uuid('retest_of'),
    /** Re-tests: the original tester, who alone may see and claim it until reserved_until. */
    reservedTesterId: text('reserved_tester_id'),
    /** Set when a re-test is paid: paid_at + RETEST_RESERVE_MS. */
    reservedUntil: ts('reserved_until'),
    /**
     * Set when the poster deletes an unpaid job: it leaves every list. Should its checkout
     * still be paid (an old tab), JobPaid clears it again, so a payment always ends in a live job.
     */
    deletedAt: ts('deleted_at'),
    /** Who the job was last taken from, and why ('claim_timeout', 'revision_expired', 'tester_unapproved'). */
    releasedTesterId: text('released_tester_id'),
    releaseReason: text('release_reason'),
    /**
     * When the job last went back to Available Jobs for a replacement (session_failed,
     * replacement_requested): the owner's "results expected by" counts from here.
     */
    replacedAt: ts('replaced_at'),
    /** A slot of a pack (several testers ordered in one checkout), else null. */
    packId: uuid('pack_id'),
    /** A pack's slot: paid_at + PACK_FILL_WINDOW_MS; still open then, it is closed and refunded. */
    fillDeadlineAt: ts('fill_deadline_at'),
    /** When an unfilled slot was closed (status closed). */
    closedAt: ts('closed_at'),
    /** The poster asks for a screen recording: a report without one fails its session check. */
    recordingRequired: boolean('recording_required').notNull().default(false),
  },
  (t) => [
    // Available jobs for testers: newest first, keyset pagination, only live jobs indexed.
    index('jobs_available_idx')
      .on(t.createdAt.desc(), t.id.desc())
      .where(sql`status = 'open' AND payment_status = 'paid'`),
    index('jobs_poster_idx').on(t.posterId, t.createdAt.desc()),
    index('jobs_tester_idx').on(t.testerId, t.status),
    // Re-tests held for their original tester (the first page of that tester's available jobs).
    index('jobs_pack_idx')
      .on(t.packId)
      .where(sql`pack_id IS NOT NULL`),
    index('jobs_reserved_idx')
      .on(t.reservedTesterId)
      .where(sql`reserved_tester_id IS NOT NULL AND status = 'open'`),
  ],
);

/** A pack: `size` jobs of one poster for one site, paid in one checkout, each for a different tester. */
export const packs = jobsSchema.table('packs', {
  id: uuid('id').primaryKey().defaultRandom(),
  posterId: text('poster_id').notNull(),
  size: integer('size').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

/**
 * Who took a slot of a pack (written with the claim, never removed: a tester released from a slot
 * still "held" one). The primary key is the rule "a different person per slot": a second claim of
 * the same tester in the same pack conflicts, whatever the race.
 */
export const packMembers = jobsSchema.table(
  'pack_members',
  {
    packId: uuid('pack_id').notNull(),
    testerId: text('tester_id').notNull(),
    jobId: uuid('job_id').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'pack_members_pk', columns: [t.packId, t.testerId] }),
    index('pack_members_tester_idx').on(t.testerId),
  ],
);

export const submissions = jobsSchema.table(
  'submissions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    jobId: uuid('job_id').notNull(),
    testerId: text('tester_id').notNull(),
    /** 0 for the first submission of a claim, 1 for the resubmission after a revision request. */
    revision: integer('revision').notNull(),
    variant: text('variant').notNull(),
    submittedByName: text('submitted_by_name').notNull(),
    submittedByLocation: text('submitted_by_location'),
    deviceUsed: text('device_used'),
    browserUsed: text('browser_used'),
    keyFindings: jsonb('key_findings').$type<string[]>().notNull(),
    /** Each key finding's details (severity, steps, expected, actual, at_ms), in key_findings' order. */
    findingDetails: jsonb('finding_details').$type<FindingDetails[]>().notNull().default([]),
    requirementResponses: jsonb('requirement_responses')
      .$type<Array<{ requirement_index: number; response_text: string }>>()
      .notNull(),
    generalFeedback: text('general_feedback'),
    previewFileId: uuid('preview_file_id'),
    /** What the tester said the work took (1-240), or null. */
    minutesSpent: integer('minutes_spent'),
    /** Minutes from the claim to this submission, measured here. */
    claimToSubmitMinutes: integer('claim_to_submit_minutes'),
    fileIds: jsonb('file_ids').$type<string[]>().notNull(),
    /** The screen recording attached (jobs.recordings.id), or null. */
    recordingId: text('recording_id'),
    submittedAt: ts('submitted_at').notNull().defaultNow(),
    autoAcceptAt: ts('auto_accept_at'),
    acceptedAt: ts('accepted_at'),
    acceptedBy: text('accepted_by'),
    /**
     * Kept from the job's poster (API, e-mail, webhooks, share, PDF, summaries and pack grouping):
     * its session check has not passed yet (written true with the submission when the checks are
     * on), or it failed and nobody released it. Readers that group or summarise findings filter on
     * `held = false` (README, "Session checks").
     */
    held: boolean('held').notNull().default(false),
    /** Per thing to check: done / partly / not done, SEQ 1-7, minutes (issue #51; only those answered). */
    taskAnswers: jsonb('task_answers').$type<TaskAnswerView[]>().notNull().default([]),
    /** The 10 SUS answers (1-5), or null when not given. */
    susAnswers: jsonb('sus_answers').$type<number[]>(),
  },
  (t) => [
    index('submissions_job_idx').on(t.jobId, t.submittedAt.desc()),
    index('submissions_tester_idx').on(t.testerId),
    // "usually N minutes": the latest submissions that say how long they took.
    index('submissions_minutes_idx')
      .on(t.submittedAt.desc())
      .where(sql`minutes_spent IS NOT NULL`),
  ],
);

/**
 * The stored report summary of a job or a pack (issue #51), and its queue: a change that alters
 * the summary's input counts a request (`request_seq`) in its own transaction (requestSummary); a
 * jobs process leases the row (lease_until, SKIP LOCKED), computes, and stores it with
 * ReportSummarized, marking `computed_seq` the request it answered (a request that came meanwhile
 * leaves it pending).
 */
export const reportSummaries = jobsSchema.table(
  'report_summaries',
  {
    /** The job's id (scope job) or the pack's (scope pack). */
    scopeId: uuid('scope_id').primaryKey(),
    scope: text('scope').notNull(),
    requestedAt: ts('requested_at').notNull().defaultNow(),
    /** Counts the requests; the stored summary answers request `computed_seq` (pending while lower). */
    requestSeq: bigint('request_seq', { mode: 'number' }).notNull().default(1),
    computedSeq: bigint('computed_seq', { mode: 'number' }).notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    leaseUntil: ts('lease_until'),
    attempts: integer('attempts').notNull().default(0),
    /** sha256 of the input: the same input gives the same summary, and no new event. */
    inputHash: text('input_hash'),
    summary: jsonb('summary').$type<Record<string, unknown>>(),
    generatedAt: ts('generated_at'),
    lastSubmissionAt: ts('last_submission_at'),
  },
  (t) => [
    index('report_summaries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`computed_seq < request_seq`),
  ],
);
export type ReportSummaryRow = typeof reportSummaries.$inferSelect;

/**
 * "Same problem" decisions about two findings of a job or pack (issue #51): a tester's "same
 * problem?" yes, or the owner's merge (same) and split (not the same). The owner's decision on a
 * pair replaces any other; a tester's never replaces the owner's. The pair is stored in order
 * (a < b by submission id, then finding index).
 */
export const findingLinks = jobsSchema.table(
  'finding_links',
  {
    scopeId: uuid('scope_id').notNull(),
    aSubmissionId: uuid('a_submission_id').notNull(),
    aIndex: integer('a_index').notNull(),
    bSubmissionId: uuid('b_submission_id').notNull(),
    bIndex: integer('b_index').notNull(),
    same: boolean('same').notNull(),
    /** 'tester' or 'owner'. */
    decidedBy: text('decided_by').notNull(),
    decidedAt: ts('decided_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({
      columns: [t.scopeId, t.aSubmissionId, t.aIndex, t.bSubmissionId, t.bIndex],
    }),
  ],
);
export type FindingLinkRow = typeof findingLinks.$inferSelect;

/**
 * One session check per submission ("Every session checked"): written `pending` with the
 * submission, leased by a jobs process (lease_until), then `done` with what it measured.
 */
export const sessionChecks = jobsSchema.table(
  'session_checks',
  {
    submissionId: uuid('submission_id').primaryKey(),
    jobId: uuid('job_id').notNull(),
    testerId: text('tester_id').notNull(),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    leaseUntil: ts('lease_until'),
    verdict: text('verdict'),
    reasons: jsonb('reasons').$type<SessionCheckReason[]>(),
    metrics: jsonb('metrics').$type<SessionMetrics>(),
    /** The job went to another tester because of this session: 'check' (it failed) or 'poster' (free replacement of a borderline one). */
    replacedBy: text('replaced_by'),
    /** A failed session was released to the poster after all (by the admin, or by an accepted appeal). */
    releasedAt: ts('released_at'),
    /** Who released it: 'admin' or 'appeal'. */
    releasedBy: text('released_by'),
    /** The admin confirmed the failed check: it counts as a strike of the tester. */
    confirmedAt: ts('confirmed_at'),
    /** The admin who released or confirmed it. */
    decidedBy: text('decided_by'),
    /** Why a check could not measure something (ffmpeg missing, unreadable recording), or null. */
    note: text('note'),
    createdAt: ts('created_at').notNull().defaultNow(),
    checkedAt: ts('checked_at'),
  },
  (t) => [
    index('session_checks_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
  ],
);
export type SessionCheckRow = typeof sessionChecks.$inferSelect;

/** The poster's rating of the tester of a completed job: one per job. */
export const ratings = jobsSchema.table(
  'ratings',
  {
    jobId: uuid('job_id').primaryKey(),
    testerId: text('tester_id').notNull(),
    posterId: text('poster_id').notNull(),
    stars: integer('stars').notNull(),
    comment: text('comment'),
    createdAt: ts('created_at').notNull().defaultNow(),
    /** An appeal overturned it: it no longer counts in the tester's average. */
    overturnedAt: ts('overturned_at'),
  },
  (t) => [index('ratings_tester_idx').on(t.testerId)],
);

/** Every strike a tester got (a job released from them), with its reason; an appeal may overturn it. */
export const strikes = jobsSchema.table(
  'strikes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    testerId: text('tester_id').notNull(),
    jobId: uuid('job_id').notNull(),
    /** claim_timeout | revision_expired */
    reason: text('reason').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    overturnedAt: ts('overturned_at'),
  },
  (t) => [index('strikes_tester_idx').on(t.testerId, t.jobId)],
);

/** A tester's appeal of a strike or a low rating: one per job and kind; the admin decides. */
export const appeals = jobsSchema.table(
  'appeals',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    testerId: text('tester_id').notNull(),
    jobId: uuid('job_id').notNull(),
    kind: text('kind').notNull(),
    message: text('message').notNull(),
    /** open | overturned | upheld */
    status: text('status').notNull().default('open'),
    decisionNote: text('decision_note'),
    decidedBy: text('decided_by'),
    createdAt: ts('created_at').notNull().defaultNow(),
    decidedAt: ts('decided_at'),
  },
  (t) => [
    uniqueIndex('appeals_once').on(t.testerId, t.jobId, t.kind),
    index('appeals_status_idx').on(t.status, t.createdAt),
  ],
);
/** A poster's favourite tester (#34): a tester whose work on one of the poster's jobs they accepted. */
export const favourites = jobsSchema.table(
  'favourites',
  {
    posterId: text('poster_id').notNull(),
    testerId: text('tester_id').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.posterId, t.testerId] }),
    index('favourites_tester_idx').on(t.testerId),
  ],
);
export type FavouriteRow = typeof favourites.$inferSelect;
export type AppealRow = typeof appeals.$inferSelect;
export type StrikeRow = typeof strikes.$inferSelect;

export const files = jobsSchema.table(
  'files',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    jobId: uuid('job_id').notNull(),
    submissionId: uuid('submission_id'),
    /** 'original' (uploaded) or 'preview' (small image made with sharp). */
    kind: text('kind').notNull(),
    storageKey: text('storage_key').notNull(),
    contentType: text('content_type').notNull(),
    ext: text('ext').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    /** The uploaded file's own name, sanitised (null for previews and older files). */
    originalName: text('original_name'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('files_job_idx').on(t.jobId),
    uniqueIndex('files_storage_key_idx').on(t.storageKey),
  ],
);

/**
 * Screen recordings uploaded over tus (POST /api/recordings): the bytes live in the tus store
 * (local disk or S3) under the id; `uploading` until the last byte, then `complete` once checked.
 */
export const recordings = jobsSchema.table(
  'recordings',
  {
    id: text('id').primaryKey(),
    jobId: uuid('job_id').notNull(),
    testerId: text('tester_id').notNull(),
    status: text('status').notNull().default('uploading'),
    mimeType: text('mime_type'),
    sizeBytes: bigint('size_bytes', { mode: 'number' }),
    /** Measured with ffprobe once remuxed (seekable); null until then or without ffmpeg. */
    durationMs: integer('duration_ms'),
    createdAt: ts('created_at').notNull().defaultNow(),
    lastActivityAt: ts('last_activity_at').notNull().defaultNow(),
    completedAt: ts('completed_at'),
  },
  (t) => [index('recordings_job_idx').on(t.jobId)],
);

/** Projection of identity's users (UserSignedUp, UserRoleChosen, TesterApprovalChanged) plus strikes. */
export const users = jobsSchema.table('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull().default(''),
  name: text('name').notNull().default(''),
  type: text('type'),
  approved: boolean('approved'),
  country: text('country'),
  location: text('location'),
  strikes: integer('strikes').notNull().default(0),
  /** The strike limit identity announced for this tester (null: none announced yet, the rules' default applies). */
  strikeLimit: integer('strike_limit'),
  /** From identity's TesterApprovalChanged (the tester's profile). */
  assistiveTech: jsonb('assistive_tech').$type<string[]>().notNull().default([]),
  /** Sum and count of the stars posters gave this tester (ratings here; the priority window). */
  ratingSum: integer('rating_sum').notNull().default(0),
  ratingCount: integer('rating_count').notNull().default(0),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export type JobRow = typeof jobs.$inferSelect;
export type SubmissionRow = typeof submissions.$inferSelect;
export type FileRow = typeof files.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type RatingRow = typeof ratings.$inferSelect;
export type RecordingRow = typeof recordings.$inferSelect;
export type PackRow = typeof packs.$inferSelect;

/**
 * One live share link per job (POST /api/jobs/:id/share) and one per pack (POST
 * /api/packs/:id/share, `scope` 'pack': `job_id` then holds the pack's id; ids are random UUIDs, so
 * a job's and a pack's never meet): the token is derived from `nonce`, looked up by its hash.
 */
export const shareLinks = jobsSchema.table(
  'share_links',
  {
    jobId: uuid('job_id').primaryKey(),
    scope: text('scope').$type<'job' | 'pack'>().notNull().default('job'),
    nonce: text('nonce').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    expiresAt: ts('expires_at').notNull(),
    /** Revoked by its owner: it opens nothing, and "Download my data" lists it as revoked. */
    revokedAt: ts('revoked_at'),
  },
  (t) => [uniqueIndex('share_links_token_hash_idx').on(t.tokenHash)],
);

/** A poster's webhook endpoint (Standard Webhooks); `secret` is the whsec_ signing secret. */
export const webhookEndpoints = jobsSchema.table(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ownerId: text('owner_id').notNull(),
    url: text('url').notNull(),
    events: jsonb('events').$type<string[]>().notNull(),
    secret: text('secret').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    /** First failure of the current run of failures (cleared by a success); 3 days of it disables the endpoint. */
    failingSince: ts('failing_since'),
    disabledAt: ts('disabled_at'),
  },
  (t) => [index('webhook_endpoints_owner_idx').on(t.ownerId)],
);

/** One message to one endpoint: the durable queue (status pending + next_attempt_at) and its history. */
export const webhookDeliveries = jobsSchema.table(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    endpointId: uuid('endpoint_id').notNull(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastResponseCode: integer('last_response_code'),
    lastError: text('last_error'),
    nextAttemptAt: ts('next_attempt_at'),
    lockedUntil: ts('locked_until'),
    createdAt: ts('created_at').notNull().defaultNow(),
    deliveredAt: ts('delivered_at'),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_event_idx').on(t.endpointId, t.eventId),
    index('webhook_deliveries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt.desc()),
  ],
);

export type ShareLinkRow = typeof shareLinks.$inferSelect;
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/** A poster's issue tracker (github | jira): settings in the clear, the token AES-256-GCM encrypted. */
export const trackerCredentials = jobsSchema.table(
  'tracker_credentials',
  {
    ownerId: text('owner_id').notNull(),
    kind: text('kind').notNull(),
    settings: jsonb('settings').$type<Record<string, string>>().notNull(),
    secretEnc: text('secret_enc').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'tracker_credentials_pk', columns: [t.ownerId, t.kind] })],
);

/** The issue made from a finding (index in the report's order) in one tracker: never made twice. */
export const trackerIssues = jobsSchema.table(
  'tracker_issues',
  {
    jobId: uuid('job_id').notNull(),
    findingIndex: integer('finding_index').notNull(),
    kind: text('kind').notNull(),
    url: text('url').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'tracker_issues_pk', columns: [t.jobId, t.findingIndex, t.kind] })],
);

export type TrackerCredentialRow = typeof trackerCredentials.$inferSelect;
export type TrackerIssueRow = typeof trackerIssues.$inferSelect;

/**
 * The machine health check of a job's site as site-check announced it (SiteChecked,
 * SiteCheckFailed): a small projection for the share page and the PDF, so reports never call
 * site-check. The full results stay in site-check (GET /api/jobs/:id/site-check).
 */
export const siteChecks = jobsSchema.table('site_checks', {
  jobId: uuid('job_id').primaryKey(),
  /** done or failed */
  state: text('state').notNull(),
  checkedAt: ts('checked_at').notNull(),
  /** complete or partial (done only) */
  status: text('status'),
  summary: jsonb('summary').$type<SiteCheckSummary>(),
  failureReason: text('failure_reason'),
});
export type SiteCheckRow = typeof siteChecks.$inferSelect;
