import { z } from 'zod';
import {
  ASSISTIVE_TECH,
  GEO_RULES,
  SESSION_CHECK_REASON_CODES,
  SESSION_VERDICTS,
  USER_COUNTRIES,
} from '@htm/contracts/marketplace';
import { APPEAL_KINDS } from '@htm/contracts/appeals';
import { jobViewSchema } from '@htm/contracts/jobs';
import {
  SITE_CHECK_FAILURE_REASONS,
  SITE_CHECK_STATUSES,
  siteCheckSummarySchema,
} from '@htm/contracts/site-check';

/** Services that publish events; one stream/topic per source, keyed by subject. */
export const EVENT_SOURCES = ['identity', 'jobs', 'payments', 'admin', 'site-check'] as const;
export type EventSource = (typeof EVENT_SOURCES)[number];
/** Services hosted with hostService: the sources, plus services that only consume (notifications, analytics). */
export type ServiceName = EventSource | 'notifications' | 'analytics';

const id = z.string().min(1);
const iso = z.string().datetime({ offset: true });
const userType = z.enum(['poster', 'tester', 'admin']);
const country = z.enum(USER_COUNTRIES);
const location = z.enum(['USA', 'PR']);
const assistiveTech = z.enum(ASSISTIVE_TECH);
const geoRule = z.enum(GEO_RULES);
/** Added after the first release (for the live channel's routing): absent from older events. */
const posterId = id.nullish();
/** Who did it, when a person did (the admin's user id for admin actions; the admin's audit log reads it). Added in round 3. */
const actorId = id.optional();
/**
 * Identity's TESTER_STRIKE_LIMIT when it wrote the event: this many strikes unapprove the tester
 * (jobs acts on it at once). Absent from events written before it was added.
 */
const strikeLimit = z.number().int().min(1).optional();
/**
 * The job as the API answers it (`JobView`), just after the change: every event of the job
 * transition table carries it, so a consumer can show the new state without asking jobs
 * (absent from events written before it was added).
 */
const job = jobViewSchema.optional();

/**
 * The event catalogue: every type, its source, version and data schema. Published names are
 * permanent: add a new type or version, never rename one (docs/events.md is generated from this).
 */
export const catalogue = {
  // identity
  UserSignedUp: {
    source: 'identity',
    version: 1,
    description: 'A person signed in for the first time (account created).',
    data: z.object({ userId: id, email: z.string(), name: z.string() }),
  },
  UserRoleChosen: {
    source: 'identity',
    version: 1,
    description:
      'A user chose their role (poster or tester), location and country; or the admin account was created.',
    data: z.object({
      userId: id,
      email: z.string(),
      name: z.string(),
      type: userType,
      location: location.nullable(),
      country: country.nullable(),
      approved: z.boolean(),
      strikeLimit,
    }),
  },
  UserRenamed: {
    source: 'identity',
    version: 1,
    description:
      'A user signed in with a new name on their Google account; e-mails and admin lists use it from now on.',
    data: z.object({ userId: id, email: z.string(), name: z.string(), previousName: z.string() }),
  },
  TesterApprovalChanged: {
    source: 'identity',
    version: 1,
    description:
      'A tester was approved or unapproved (by the admin, a pre-approved signup, or strikes), or changed country.',
    data: z.object({
      userId: id,
      email: z.string(),
      name: z.string(),
      approved: z.boolean(),
      country: country.nullable(),
      /** The location the country implies (absent from events written before it was added). */
      location: location.nullish(),
      /** The assistive technology the tester uses (absent from events written before it was added). */
      assistiveTech: z.array(assistiveTech).optional(),
      /** appeal: an overturned strike took the tester back under the strike limit (re-approved). */
      reason: z.enum(['admin', 'signup', 'strikes', 'profile', 'appeal']),
      actorId,
      strikeLimit,
    }),
  },
  DataExportRequested: {
    source: 'identity',
    version: 1,
    description:
      "A user (or the admin for them) asked for a download of their data: identity collects every service's part over /internal/privacy routes.",
    data: z.object({ exportId: id, userId: id, requestedAt: iso, actorId }),
  },
  DataExportReady: {
    source: 'identity',
    version: 1,
    description:
      'A data export is built: notifications e-mails the signed download link (it expires at expiresAt).',
    data: z.object({
      exportId: id,
      userId: id,
      email: z.string(),
      downloadUrl: z.string(),
      expiresAt: iso,
    }),
  },
  UserDeletionRequested: {
    source: 'identity',
    version: 1,
    description:
      'A user confirmed "Delete my account" (or the admin did for them): every sign-in ended; the account is erased at dueAt unless they sign in again before.',
    data: z.object({ userId: id, email: z.string(), name: z.string(), dueAt: iso, actorId }),
  },
  UserDeletionCancelled: {
    source: 'identity',
    version: 1,
    description: 'The user signed in again during the grace period: the deletion will not happen.',
    data: z.object({ userId: id, reason: z.enum(['signed_in', 'admin']) }),
  },
  UserDeleted: {
    source: 'identity',
    version: 1,
    description:
      'The grace period ended: every service erases or anonymises what it holds about userId and email (money records keep the pseudonym instead of the person) and answers for it at GET /internal/privacy/erasures/{event id}.',
    data: z.object({
      userId: id,
      pseudonym: id,
      email: z.string(),
      type: userType.nullable(),
      deletedAt: iso,
    }),
  },
  // jobs
  JobCreated: {
    source: 'jobs',
    version: 1,
    description: 'A poster created a job (unpaid, not yet visible to testers).',
    data: z.object({
      jobId: id,
      posterId: id,
      title: z.string(),
      url: z.string(),
      geoRule,
      budgetCents: z.number().int(),
      expectedCompletionHours: z.number().int(),
    }),
  },
  JobClaimed: {
    source: 'jobs',
    version: 1,
    description: 'A tester took a job (claimed it, or the admin assigned it).',
    data: z.object({
      jobId: id,
      testerId: id,
      claimedAt: iso,
      deadlineAt: iso,
      by: z.enum(['tester', 'admin']),
      posterId,
      geoRule: geoRule.nullish(),
      actorId,
      job,
    }),
  },
  WorkSubmitted: {
    source: 'jobs',
    version: 1,
    description: 'The tester holding a job submitted (or resubmitted) their findings.',
    data: z.object({
      jobId: id,
      testerId: id,
      submissionId: id,
      revision: z.number().int(),
      submittedAt: iso,
      autoAcceptAt: iso,
      posterId,
      /** A screen recording is attached (issue #30; absent in events written before). */
      hasRecording: z.boolean().optional(),
      /** The deadline of the hold this submission ended: the claim's (revision 0) or the revision window's; its timer is removed (absent in events written before). */
      heldUntil: iso.optional(),
      /** The report waits for its session check (issue #52): its poster hears of it when SessionChecked delivers it (absent: delivered now). */
      awaitsCheck: z.boolean().optional(),
      /** Not a new submission: a failed session given back to its job by the admin or an accepted appeal (session_released). */
      releasedBy: z.enum(['admin', 'appeal']).optional(),
      job,
    }),
  },
  RevisionRequested: {
    source: 'jobs',
    version: 1,
    description: 'The poster (or admin) asked the tester for one revision.',
    data: z.object({
      jobId: id,
      testerId: id,
      reason: z.string(),
      requestedAt: iso,
      deadlineAt: iso,
      posterId,
      job,
    }),
  },
  SubmissionAccepted: {
    source: 'jobs',
    version: 1,
    description:
      'A submission was accepted by the poster, the admin, or automatically after the review window; the tester earns.',
    data: z.object({
      jobId: id,
      testerId: id,
      posterId: id,
      title: z.string(),
      acceptedBy: z.enum(['poster', 'admin', 'auto']),
      acceptedAt: iso,
      /** Minutes the tester said the accepted work took (absent or null when not given). */
      minutesSpent: z.number().int().nullish(),
      /** The accepted submission; a review's acceptance removes its auto-accept timer (absent in events written before). */
      submissionId: id.optional(),
      actorId,
      job,
    }),
  },
  TesterRated: {
    source: 'jobs',
    version: 1,
    description:
      "The poster rated the tester of a completed job (1-5 stars, once per job); identity keeps the tester's average.",
    data: z.object({
      jobId: id,
      testerId: id,
      posterId: id,
      stars: z.number().int().min(1).max(5),
      comment: z.string().nullable(),
      ratedAt: iso,
    }),
  },
  WebhookEndpointDisabled: {
    source: 'jobs',
    version: 1,
    description:
      "A poster's webhook endpoint failed every delivery for 3 days and was disabled; notifications e-mails its owner.",
    data: z.object({
      endpointId: id,
      ownerId: id,
      url: z.string(),
      failingSince: iso,
      disabledAt: iso,
    }),
  },
  JobReleased: {
    source: 'jobs',
    version: 1,
    description:
      'A job went back to open for another tester (claim timed out or the revision window expired).',
    data: z.object({
      jobId: id,
      testerId: id,
      reason: z.enum(['claim_timeout', 'revision_expired', 'tester_unapproved']),
      posterId,
      geoRule: geoRule.nullish(),
      job,
    }),
  },
  PackCreated: {
    source: 'jobs',
    version: 1,
    description:
      'A poster ordered several testers for one site in one checkout: a pack of `size` jobs (each also announced by JobCreated).',
    data: z.object({
      packId: id,
      posterId: id,
      size: z.number().int(),
      jobIds: z.array(id),
      url: z.string(),
    }),
  },
  SessionChecked: {
    source: 'jobs',
    version: 1,
    description:
      "A submission's session check finished (recording length, talk time, idle stretches, coverage, originality): pass, borderline (one soft reason: delivered with a warning) or fail (held from the poster).",
    data: z.object({
      submissionId: id,
      jobId: id,
      testerId: id,
      posterId,
      verdict: z.enum(SESSION_VERDICTS),
      reasons: z.array(z.enum(SESSION_CHECK_REASON_CODES)),
      metrics: z.object({
        recordingMs: z.number().int().nullable(),
        talkPct: z.number().int().nullable(),
        longestIdleMs: z.number().int().nullable(),
        itemsTotal: z.number().int(),
        itemsCovered: z.number().int(),
        maxContainment: z.number().nullable(),
      }),
      checkedAt: iso,
      /** The check handed the report to its poster (pass or borderline, the job still waiting for its review): e-mail, webhook and live notice follow. */
      delivered: z.boolean().optional(),
      /** The job's title (absent in events written before). */
      title: z.string().optional(),
    }),
  },
  ReplacementRequested: {
    source: 'jobs',
    version: 1,
    description:
      'A job goes back to Available Jobs for another tester at no cost to its poster: its session check failed, or the poster asked for a free replacement of a borderline session (once per job).',
    data: z.object({
      jobId: id,
      submissionId: id,
      testerId: id,
      posterId,
      requestedBy: z.enum(['check', 'poster']),
      reasons: z.array(z.enum(SESSION_CHECK_REASON_CODES)),
      requestedAt: iso,
      job,
    }),
  },
  SessionDecided: {
    source: 'jobs',
    version: 1,
    description:
      "The admin decided a failed session: released (the report goes to its owner when the job still waits for its replacement; no strike) or confirmed (a strike). By the admin's queue or by an appeal's decision. Released after its job went to another tester: the platform pays its tester.",
    data: z.object({
      submissionId: id,
      jobId: id,
      testerId: id,
      posterId,
      decision: z.enum(['released', 'confirmed']),
      by: z.enum(['admin', 'appeal']),
      /** released: the job took the report back and its owner reads it now. */
      delivered: z.boolean(),
      decidedAt: iso,
      actorId,
    }),
  },
  ReportSummarized: {
    source: 'jobs',
    version: 1,
    description:
      "A job's or a pack's report summary (what to fix first, task metrics, SUS, reel) was computed anew: after a submission, an acceptance, a revision, a re-test, an accepted appeal or the owner's regrouping. Recorded only when the summary changed; GET /api/jobs/{id}/summary or /api/packs/{id}/summary has it.",
    data: z.object({
      scope: z.enum(['job', 'pack']),
      /** The job's or the pack's id. */
      scopeId: id,
      jobIds: z.array(id),
      posterId,
      title: z.string(),
      testersTotal: z.number().int(),
      problems: z.number().int(),
      /** The first three problems, worst first (the results e-mail lists them). */
      top: z.array(
        z.object({
          title: z.string(),
          severity: z.string().nullable(),
          testersHit: z.number().int(),
        }),
      ),
      /** When the newest report it counts was submitted, and when it was summarised. */
      lastSubmissionAt: iso,
      summarizedAt: iso,
    }),
  },
  PackSlotClosed: {
    source: 'jobs',
    version: 1,
    description:
      "A pack's slot nobody claimed within PACK_FILL_WINDOW_MS of its payment was closed (status closed); payments refunds its $1.",
    data: z.object({
      jobId: id,
      packId: id,
      posterId: id,
      title: z.string(),
      closedAt: iso,
      job,
    }),
  },
  JobPublished: {
    source: 'jobs',
    version: 1,
    description:
      "The jobs service recorded a job's payment: the job is now open to the testers its geo rule admits.",
    data: z.object({
      jobId: id,
      posterId: id,
      geoRule,
      paidAt: iso,
      /** A pack's slot: when it is closed and refunded if nobody has claimed it by then (absent otherwise). */
      fillDeadlineAt: iso.optional(),
      /** Added for the poster's receipt and the testers' job digest (absent from older events). */
      title: z.string().optional(),
      expectedCompletionHours: z.number().int().optional(),
      /** The assistive technology the job asks its tester to use, or null. */
      assistiveTech: assistiveTech.nullish(),
      /** Only a tester new to the site (siteHost) may take it. */
      freshEyes: z.boolean().optional(),
      siteHost: z.string().nullish(),
      /** A re-test held for its original tester until reservedUntil. */
      reservedTesterId: id.nullish(),
      reservedUntil: iso.nullish(),
    }),
  },
  TesterStrikeRecorded: {
    source: 'jobs',
    version: 1,
    description:
      'A tester got a strike (job released from them); identity unapproves testers at its strike limit.',
    data: z.object({ testerId: id, jobId: id, strikes: z.number().int(), reason: z.string() }),
  },
  AppealFiled: {
    source: 'jobs',
    version: 1,
    description:
      'A tester appealed a strike, a rating of 1-2 stars or a failed session check (once each, within 14 days); the admin decides.',
    data: z.object({
      appealId: id,
      testerId: id,
      jobId: id,
      kind: z.enum(APPEAL_KINDS),
      message: z.string(),
      filedAt: iso,
    }),
  },
  AppealDecided: {
    source: 'jobs',
    version: 1,
    description:
      'The admin overturned or upheld an appeal. Overturned: identity removes the strike (re-approving a tester it released) or takes the rating out of the average; a failed session check is released (its strike, if the admin had confirmed one, removed); notifications e-mails the tester.',
    data: z.object({
      appealId: id,
      testerId: id,
      jobId: id,
      kind: z.enum(APPEAL_KINDS),
      decision: z.enum(['overturn', 'uphold']),
      note: z.string().nullable(),
      /** The overturned rating's stars (kind rating), so the average can lose them. */
      stars: z.number().int().min(1).max(5).nullable(),
      /** kind session_check: a strike the admin had confirmed was removed with it (absent: none). */
      strikeOverturned: z.boolean().optional(),
      decidedAt: iso,
      actorId,
    }),
  },
  JobsCleared: {
    source: 'jobs',
    version: 1,
    description:
      'The admin cleared every job, submission and file. Payments refunds the paid jobs nobody finished (refundJobIds).',
    data: z.object({
      jobsDeleted: z.number().int(),
      submissionsDeleted: z.number().int(),
      /** Paid jobs that were not completed when cleared: their posters get their payment back (absent before round 3). */
      refundJobIds: z.array(id).optional(),
      actorId,
    }),
  },
  JobsWithdrawn: {
    source: 'jobs',
    version: 1,
    description:
      "A poster's account was deleted (UserDeleted): their paid jobs nobody had started left every list; payments refunds them (refundJobIds).",
    data: z.object({
      posterId: id,
      refundJobIds: z.array(id),
      reason: z.enum(['account_deleted']),
    }),
  },
  // payments
  JobPaid: {
    source: 'payments',
    version: 1,
    description: "The poster's $1 checkout completed; the job becomes visible to testers.",
    data: z.object({
      jobId: id,
      sessionId: z.string(),
      posterId: id,
      amountCents: z.number().int(),
      paidAt: iso,
    }),
  },
  CheckoutCancelled: {
    source: 'payments',
    version: 1,
    description: 'A checkout session was cancelled or expired; the job stays unpublished.',
    data: z.object({
      jobId: id,
      sessionId: z.string(),
      reason: z.enum(['cancelled', 'expired']),
      posterId,
    }),
  },
  EarningRecorded: {
    source: 'payments',
    version: 1,
    description:
      "A tester's earning for an accepted submission is in the ledger (pending until paid out).",
    data: z.object({
      jobId: id,
      testerId: id,
      amountCents: z.number().int(),
      acceptedBy: z.enum(['poster', 'admin', 'auto']),
      /** The platform's fee booked with this earning (absent from events written before it was added). */
      platformFeeCents: z.number().int().optional(),
      /** When the submission was accepted: the day the ledger books the earning and fee on (absent from older events). */
      acceptedAt: iso.optional(),
    }),
  },
  PaymentRefunded: {
    source: 'payments',
    version: 1,
    description:
      "Money paid in was given back to the poster (a duplicate payment of an already paid job, a paid job nobody finished when the admin cleared all jobs, a pack's slot nobody claimed in its fill window, or a paid job nobody started when its poster deleted their account).",
    data: z.object({
      jobId: id,
      sessionId: z.string(),
      posterId: id.nullable(),
      amountCents: z.number().int(),
      reason: z.enum(['duplicate', 'jobs_cleared', 'pack_slot_unfilled', 'account_deleted']),
      refundedAt: iso,
      /** pack_slot_unfilled: the pack and the job's title (absent otherwise). */
      packId: id.optional(),
      title: z.string().optional(),
    }),
  },
  TesterPaid: {
    source: 'payments',
    version: 1,
    description: "A payout transferred a tester's pending earnings.",
    data: z.object({
      testerId: id,
      payoutId: id,
      amountCents: z.number().int(),
      jobIds: z.array(id),
      paidAt: iso,
      actorId,
    }),
  },
  // admin
  SignupApproved: {
    source: 'admin',
    version: 1,
    description:
      'The admin approved (or unapproved) a tester signup; identity pre-approves that e-mail.',
    data: z.object({ entryId: id, email: z.string(), role: z.string(), approved: z.boolean() }),
  },
  WaitlistJoined: {
    source: 'admin',
    version: 1,
    description: 'Someone joined the waitlist, signed up as a tester or requested a job.',
    data: z.object({
      entryId: id,
      email: z.string(),
      role: z.string(),
      name: z.string().nullable(),
    }),
  },
  LeadReceived: {
    source: 'admin',
    version: 1,
    description: "Someone sent the 'Looking for a Developer?' form.",
    data: z.object({ leadId: id, email: z.string() }),
  },
  FeedbackReceived: {
    source: 'admin',
    version: 1,
    description: 'Someone sent product feedback.',
    data: z.object({ feedbackId: id, email: z.string(), pageUrl: z.string().nullable() }),
  },
  ClientTelemetry: {
    source: 'admin',
    version: 1,
    description: 'A batch of allow-listed client telemetry events (post_job_*, api_refresh_*).',
    data: z.object({
      userId: z.string().nullable(),
      events: z.array(
        z.object({
          name: z.string(),
          at: iso,
          props: z.record(z.string(), z.unknown()).optional(),
        }),
      ),
    }),
  },
  // site-check
  SiteChecked: {
    source: 'site-check',
    version: 1,
    description:
      "The machine health check of a paid job's site finished (one check per checkout: each job of a pack gets this event with the same summary). The summary's findings are written for the owner.",
    data: z.object({
      jobId: id,
      checkedAt: iso,
      /** complete: every part measured; partial: Lighthouse could not measure a size. */
      status: z.enum(SITE_CHECK_STATUSES),
      summary: siteCheckSummarySchema,
    }),
  },
  SiteCheckFailed: {
    source: 'site-check',
    version: 1,
    description:
      "The machine health check of a paid job's site could not run (unreachable, timed out, a refused private address, too much memory, the browser failed, or no browser on this server). Never retried against the site.",
    data: z.object({
      jobId: id,
      failedAt: iso,
      reason: z.enum(SITE_CHECK_FAILURE_REASONS),
      /** A line for the operator (not shown to the owner). */
      detail: z.string(),
    }),
  },
} as const satisfies Record<string, EventDefinition>;

/**
 * An older version of a type that consumers still read: events of it written before the new
 * version (still in the streams), or by a service not yet upgraded during a rolling or independent
 * deploy. `upgrade` turns its data into the current version's, so handlers see one shape. It stays
 * in the catalogue at least until `deprecatedUntil` (ISO date): the compatibility check
 * (`npm run compat:snapshot`, deploy/test/compat.test.ts) refuses to drop it earlier.
 */
export interface PreviousVersion {
  version: number;
  data: z.ZodType;
  deprecatedUntil: string;
  upgrade: (data: never) => unknown;
}

export interface EventDefinition {
  source: EventSource;
  version: number;
  description: string;
  data: z.ZodType;
  /** Older versions consumers still read (none yet: every type is at its first version). */
  previous?: readonly PreviousVersion[];
}

/** The definition of a type, typed loosely (for code that handles every type alike). */
export function definitionOf(type: EventType): EventDefinition {
  return catalogue[type] as EventDefinition;
}

export type Catalogue = typeof catalogue;
export type EventType = keyof Catalogue;
export type EventData<T extends EventType> = z.infer<Catalogue[T]['data']>;
export const EVENT_TYPES = Object.keys(catalogue) as EventType[];

export function isEventType(t: string): t is EventType {
  return Object.prototype.hasOwnProperty.call(catalogue, t);
}
