import type { Tx } from '@htm/service-kit/db';
import type { EventEnvelope, EventHandlers } from '@htm/events';
import {
  PRICE_PER_TEST_CENTS,
  resultsExpectedBy,
  TESTER_SHARE_CENTS,
  TESTER_SIGNUP_ROLES,
  type NotificationKind,
} from '@htm/contracts';
import {
  platformFundsRelease,
  replacementExpectedBy,
  SESSION_CHECK_REASONS,
} from '@htm/contracts/marketplace';
import type { Logger } from 'pino';
import {
  attachSummaryToResults,
  enqueueMessage,
  saveReportSummary,
  summaryCounting,
  wasQueued,
  type SummaryCounting,
} from '../db/message.repository.js';
import {
  clearJobs,
  findJob,
  isKnownTester,
  publishJob,
  recordApproval,
  recordTestedSite,
  recordTester,
  setJobStatus,
  upsertJob,
  upsertUser,
} from '../db/projection.repository.js';
import { eraseNotificationsUser } from '../db/privacy.repository.js';

/** The recipient of a landing-page signup's approval e-mail: no account yet, only the address. */
export const signupRecipient = (email: string) => `signup:${email.trim().toLowerCase()}`;

/**
 * What the notifications service consumes. Each handler runs once per event id, in the
 * transaction that records the id as handled: the queued e-mail (notifications.messages) and
 * the handled-id commit together, so a redelivered event queues nothing twice.
 */
export function notificationsEventHandlers(opts: {
  logger: Logger;
  kick: () => void;
  /** MAIL_MAX_EVENT_AGE_MS */
  maxEventAgeMs: number;
  /** MAIL_SUMMARY_WAIT_MS: how long the results e-mail waits for the report's summary. */
  summaryWaitMs: number;
}): EventHandlers {
  const queue = async (
    tx: Tx,
    e: EventEnvelope,
    kind: NotificationKind,
    userId: string,
    data: Record<string, unknown>,
    /** Due this much later (a results e-mail waiting for its summary). */
    delayMs = 0,
  ) => {
    // The group reads each stream from its beginning the first time: no e-mail about old news.
    if (Date.now() - Date.parse(e.occurredAt) > opts.maxEventAgeMs) {
      opts.logger.debug(
        { eventId: e.id, type: e.type, kind, correlationId: e.correlationId },
        'no e-mail: the event is older than MAIL_MAX_EVENT_AGE_MS',
      );
      return;
    }
    await enqueueMessage(tx, {
      eventId: e.id,
      kind,
      userId,
      data,
      correlationId: e.correlationId ?? undefined,
      ...(delayMs ? { nextAttemptAt: new Date(Date.now() + delayMs) } : {}),
    });
    // The sender looks right after the commit (the handler's transaction ends before it reads).
    setImmediate(opts.kick);
  };
  const posterOf = async (tx: Tx, e: EventEnvelope, jobId: string) => {
    const job = await findJob(tx, jobId);
    if (!job)
      opts.logger.warn(
        { eventId: e.id, type: e.type, jobId, correlationId: e.correlationId },
        'no e-mail: the job is not known (JobCreated not seen)',
      );
    return job;
  };
  /**
   * "Your results are ready" (issue #51): with what to fix first from the report's summary. A
   * summary that already counts the report is used at once; else the e-mail waits
   * (MAIL_SUMMARY_WAIT_MS at most) for ReportSummarized (below), which lets it go.
   */
  const queueResults = async (
    tx: Tx,
    e: EventEnvelope,
    job: { id: string; posterId: string; title: string },
    r: { packId: string | null; reasons?: string[]; counted: SummaryCounting },
  ) => {
    const problems = await summaryCounting(tx, r.packId ?? job.id, job.id, r.counted);
    await queue(
      tx,
      e,
      'work_submitted',
      job.posterId,
      {
        jobId: job.id,
        title: job.title,
        packId: r.packId,
        ...(r.reasons ? { reasons: r.reasons } : {}),
        ...(problems ? { problems } : { awaitingSummary: true }),
      },
      problems ? 0 : opts.summaryWaitMs,
    );
  };
  return {
    // identity: where to write to
    UserSignedUp: async (e, tx) =>
      upsertUser(tx, { id: e.data.userId, email: e.data.email, name: e.data.name }),
    UserRenamed: async (e, tx) =>
      upsertUser(tx, { id: e.data.userId, email: e.data.email, name: e.data.name }),
    UserRoleChosen: async (e, tx) => {
      const d = e.data;
      if (d.type === 'tester')
        await recordTester(tx, {
          id: d.userId,
          email: d.email,
          name: d.name,
          approved: d.approved,
          country: d.country,
        });
      else await upsertUser(tx, { id: d.userId, email: d.email, name: d.name });
    },
    TesterApprovalChanged: async (e, tx) => {
      const d = e.data;
      const turnedOn = await recordApproval(tx, {
        id: d.userId,
        email: d.email,
        name: d.name,
        approved: d.approved,
        country: d.country,
        assistiveTech: d.assistiveTech,
      });
      // A landing-page signup was told when the admin approved it (SignupApproved): not twice.
      if (
        turnedOn &&
        !(
          d.reason === 'signup' &&
          (await wasQueued(tx, signupRecipient(d.email), 'tester_approved'))
        )
      )
        await queue(tx, e, 'tester_approved', d.userId, { country: d.country });
    },
    // admin: the admin approved a landing-page tester signup. The e-mail goes now, not when the
    // tester next signs in; a tester identity already knows is told through TesterApprovalChanged.
    SignupApproved: async (e, tx) => {
      const d = e.data;
      if (!d.approved || !(TESTER_SIGNUP_ROLES as readonly string[]).includes(d.role)) return;
      const to = signupRecipient(d.email);
      if (await isKnownTester(tx, d.email)) return;
      if (await wasQueued(tx, to, 'tester_approved')) return;
      await queue(tx, e, 'tester_approved', to, {
        email: d.email.trim().toLowerCase(),
        country: null,
      });
    },
    // jobs
    JobCreated: async (e, tx) =>
      upsertJob(tx, {
        id: e.data.jobId,
        posterId: e.data.posterId,
        title: e.data.title,
        url: e.data.url,
        geoRule: e.data.geoRule,
        expectedCompletionHours: e.data.expectedCompletionHours,
      }),
    // Paid and open to testers: the poster's receipt (with when results are expected); the job
    // digest picks the job up from the projection.
    JobPublished: async (e, tx) => {
      const d = e.data;
      const job = await publishJob(tx, {
        id: d.jobId,
        posterId: d.posterId,
        title: d.title,
        geoRule: d.geoRule,
        paidAt: new Date(d.paidAt),
        expectedCompletionHours: d.expectedCompletionHours,
        assistiveTech: d.assistiveTech,
        freshEyes: d.freshEyes,
        siteHost: d.siteHost,
        reservedTesterId: d.reservedTesterId,
        reservedUntil: d.reservedUntil ? new Date(d.reservedUntil) : null,
      });
      const expectedBy =
        job.expectedCompletionHours != null
          ? resultsExpectedBy({
              paid_at: d.paidAt,
              expected_completion_hours: job.expectedCompletionHours,
            })
          : null;
      await queue(tx, e, 'job_paid', d.posterId, {
        jobId: d.jobId,
        title: job.title || undefined,
        amountCents: PRICE_PER_TEST_CENTS,
        ...(expectedBy ? { expectedBy } : {}),
      });
      // Held for one tester first (an invited favourite, a re-test): they hear of it at once.
      if (
        d.reservedTesterId &&
        d.reservedUntil &&
        new Date(d.reservedUntil).getTime() > Date.now()
      ) {
        await queue(tx, e, 'job_held_for_you', d.reservedTesterId, {
          jobId: d.jobId,
          title: job.title || undefined,
          at: d.reservedUntil,
        });
      }
    },
    JobsCleared: async (_e, tx) => clearJobs(tx),
    JobClaimed: async (e, tx) => {
      await setJobStatus(tx, e.data.jobId, 'taken');
      const job = await posterOf(tx, e, e.data.jobId);
      if (job) await queue(tx, e, 'job_claimed', job.posterId, { jobId: job.id, title: job.title });
    },
    JobReleased: async (e, tx) => {
      const d = e.data;
      await setJobStatus(tx, d.jobId, 'open');
      if (d.reason !== 'claim_timeout') return;
      const job = await findJob(tx, d.jobId);
      await queue(tx, e, 'claim_expired', d.testerId, { jobId: d.jobId, title: job?.title });
    },
    WorkSubmitted: async (e, tx) => {
      await recordTestedSite(tx, e.data.testerId, e.data.jobId);
      // A report its session check holds is announced when the check delivers it (SessionChecked).
      if (e.data.awaitsCheck) return;
      const job = await posterOf(tx, e, e.data.jobId);
      if (!job) return;
      await queueResults(tx, e, job, {
        packId: e.data.job?.pack_id ?? null,
        counted: { submittedAt: new Date(e.data.submittedAt) },
      });
    },
    // jobs: a report's summary (issue #51): the results e-mails waiting for it list its top problems.
    ReportSummarized: async (e, tx) => {
      const d = e.data;
      const problems = d.top.map((p) => ({
        title: p.title,
        severity: p.severity,
        testersHit: p.testersHit,
        testersTotal: d.testersTotal,
      }));
      await saveReportSummary(tx, {
        scopeId: d.scopeId,
        jobIds: d.jobIds,
        problems,
        lastSubmissionAt: new Date(d.lastSubmissionAt),
        summarizedAt: new Date(d.summarizedAt),
      });
      const released = await attachSummaryToResults(tx, {
        scope: d.scope,
        jobIds: d.jobIds,
        packId: d.scope === 'pack' ? d.scopeId : null,
        problems,
      });
      if (released) setImmediate(opts.kick);
    },
    // jobs: a report's session check passed (or found one soft reason): the poster may read it now
    SessionChecked: async (e, tx) => {
      const d = e.data;
      if (!d.delivered) return;
      const job = await posterOf(tx, e, d.jobId);
      if (!job) return;
      await queueResults(tx, e, job, {
        packId: null,
        // Borderline: delivered with its warning.
        reasons: d.reasons.map((r) => SESSION_CHECK_REASONS[r].owner),
        // The report joined its summary at its delivery.
        counted: { summarizedSince: new Date(d.checkedAt) },
      });
      // Borderline: its tester hears what was borderline, that it went out, and what may follow.
      if (d.verdict === 'borderline')
        await queue(tx, e, 'session_borderline', d.testerId, {
          jobId: d.jobId,
          title: job.title,
          reasons: d.reasons.map((r) => SESSION_CHECK_REASONS[r].tester),
        });
    },
    // jobs: a failed session released after its job went to another tester: the owner has one
    // more report, free (the platform pays its tester).
    SessionDecided: async (e, tx) => {
      const d = e.data;
      if (!platformFundsRelease(d)) return;
      const job = await posterOf(tx, e, d.jobId);
      if (job)
        await queue(tx, e, 'work_submitted', job.posterId, {
          jobId: job.id,
          title: job.title,
          extra: true,
        });
    },
    // jobs: a session check held a report, or the poster asked for a free replacement
    ReplacementRequested: async (e, tx) => {
      const d = e.data;
      await setJobStatus(tx, d.jobId, 'open');
      const job = await posterOf(tx, e, d.jobId);
      if (!job) return;
      const words = (who: 'owner' | 'tester') =>
        d.reasons.map((r) => SESSION_CHECK_REASONS[r][who]);
      await queue(tx, e, 'replacement_coming', job.posterId, {
        jobId: d.jobId,
        title: job.title,
        reason: d.requestedBy,
        reasons: d.requestedBy === 'check' ? words('owner') : [],
        expectedBy: replacementExpectedBy(new Date(d.requestedAt)).toISOString(),
      });
      if (d.requestedBy === 'check')
        await queue(tx, e, 'session_held', d.testerId, {
          jobId: d.jobId,
          title: job.title,
          reasons: words('tester'),
        });
    },
    RevisionRequested: async (e, tx) => {
      const job = await findJob(tx, e.data.jobId);
      await queue(tx, e, 'revision_requested', e.data.testerId, {
        jobId: e.data.jobId,
        title: job?.title,
        reason: e.data.reason,
      });
    },
    SubmissionAccepted: async (e, tx) => {
      const d = e.data;
      await queue(tx, e, 'submission_accepted', d.testerId, {
        jobId: d.jobId,
        title: d.title,
        amountCents: TESTER_SHARE_CENTS,
      });
      if (d.acceptedBy === 'auto')
        await queue(tx, e, 'auto_accepted', d.posterId, { jobId: d.jobId, title: d.title });
    },
    // jobs: a poster's webhook endpoint failed for 3 days and was disabled
    WebhookEndpointDisabled: async (e, tx) =>
      queue(tx, e, 'webhook_disabled', e.data.ownerId, { url: e.data.url }),
    // identity: "Your data, your call"
    DataExportReady: async (e, tx) =>
      queue(tx, e, 'data_export_ready', e.data.userId, {
        url: e.data.downloadUrl,
        at: new Date(e.data.expiresAt).toUTCString(),
      }),
    UserDeletionRequested: async (e, tx) =>
      queue(tx, e, 'account_deletion_scheduled', e.data.userId, {
        at: new Date(e.data.dueAt).toUTCString(),
      }),
    UserDeletionCancelled: async (e, tx) =>
      queue(tx, e, 'account_deletion_cancelled', e.data.userId, {}),
    UserDeleted: async (e, tx) => eraseNotificationsUser(tx, e.data),
    // payments: a pack's slot nobody claimed was closed and its $1 given back
    PaymentRefunded: async (e, tx) => {
      const d = e.data;
      if (d.reason !== 'pack_slot_unfilled' || !d.posterId) return;
      await queue(tx, e, 'pack_slot_refunded', d.posterId, {
        jobId: d.jobId,
        title: d.title,
        amountCents: d.amountCents,
      });
    },
    // jobs: the admin decided a tester's appeal (#34)
    AppealDecided: async (e, tx) => {
      const job = await findJob(tx, e.data.jobId);
      await queue(tx, e, 'appeal_decided', e.data.testerId, {
        jobId: e.data.jobId,
        title: job?.title,
        kind: e.data.kind,
        decision: e.data.decision,
        note: e.data.note,
      });
    },
    // payments
    TesterPaid: async (e, tx) =>
      queue(tx, e, 'tester_paid', e.data.testerId, {
        amountCents: e.data.amountCents,
        jobIds: e.data.jobIds,
      }),
  };
}
