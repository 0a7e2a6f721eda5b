import type { Tx } from '@htm/service-kit/db';
import type { EventEnvelope, EventHandlers } from '@htm/events';
import { TESTER_SHARE_CENTS, type NotificationKind } from '@htm/contracts';
import type { Logger } from 'pino';
import { enqueueMessage } from '../db/message.repository.js';
import {
  clearJobs,
  findJob,
  recordApproval,
  upsertJob,
  upsertUser,
} from '../db/projection.repository.js';

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
}): EventHandlers {
  const queue = async (
    tx: Tx,
    e: EventEnvelope,
    kind: NotificationKind,
    userId: string,
    data: Record<string, unknown>,
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
  return {
    // identity: where to write to
    UserSignedUp: async (e, tx) =>
      upsertUser(tx, { id: e.data.userId, email: e.data.email, name: e.data.name }),
    UserRoleChosen: async (e, tx) =>
      upsertUser(tx, { id: e.data.userId, email: e.data.email, name: e.data.name }),
    TesterApprovalChanged: async (e, tx) => {
      const d = e.data;
      if (
        await recordApproval(tx, {
          id: d.userId,
          email: d.email,
          name: d.name,
          approved: d.approved,
        })
      )
        await queue(tx, e, 'tester_approved', d.userId, {});
    },
    // jobs
    JobCreated: async (e, tx) =>
      upsertJob(tx, { id: e.data.jobId, posterId: e.data.posterId, title: e.data.title }),
    JobsCleared: async (_e, tx) => clearJobs(tx),
    JobClaimed: async (e, tx) => {
      const job = await posterOf(tx, e, e.data.jobId);
      if (job) await queue(tx, e, 'job_claimed', job.posterId, { jobId: job.id, title: job.title });
    },
    WorkSubmitted: async (e, tx) => {
      const job = await posterOf(tx, e, e.data.jobId);
      if (job)
        await queue(tx, e, 'work_submitted', job.posterId, { jobId: job.id, title: job.title });
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
