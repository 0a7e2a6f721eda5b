import type { AdminAuditQuery, AuditAction, AuditEntryDto } from '@htm/contracts';
import type { EventEnvelope } from '@htm/events';
import type { Db, Tx } from '@htm/service-kit/db';
import type { AdminDeps } from '../deps.js';
import {
  appendAudit,
  pageAudit,
  streamAudit,
  type AuditFilter,
  type AuditRow,
} from '../db/audit.repository.js';

/**
 * The audit log: one row per admin action, from the event that tells of it (its id keeps a
 * redelivery from adding a second row). Actions by testers, posters or timers are not admin
 * actions and are not recorded. Events written before `actorId` existed name no actor.
 */
export type AuditedEvent =
  | EventEnvelope<'TesterApprovalChanged'>
  | EventEnvelope<'JobClaimed'>
  | EventEnvelope<'SubmissionAccepted'>
  | EventEnvelope<'TesterPaid'>
  | EventEnvelope<'JobsCleared'>
  | EventEnvelope<'SignupApproved'>
  | EventEnvelope<'DataExportRequested'>
  | EventEnvelope<'UserDeletionRequested'>
  | EventEnvelope<'AppealDecided'>
  | EventEnvelope<'SessionDecided'>;

function entryOf(
  e: AuditedEvent,
):
  | { action: AuditAction; target: string; actorId?: string; details: Record<string, unknown> }
  | undefined {
  switch (e.type) {
    case 'TesterApprovalChanged': {
      const d = (e as EventEnvelope<'TesterApprovalChanged'>).data;
      if (d.reason !== 'admin') return undefined;
      return {
        action: d.approved ? 'tester.approved' : 'tester.unapproved',
        target: `tester:${d.userId}`,
        actorId: d.actorId,
        details: { email: d.email, name: d.name },
      };
    }
    case 'JobClaimed': {
      const d = (e as EventEnvelope<'JobClaimed'>).data;
      if (d.by !== 'admin') return undefined;
      return {
        action: 'job.assigned',
        target: `job:${d.jobId}`,
        actorId: d.actorId,
        details: { tester_id: d.testerId },
      };
    }
    case 'SubmissionAccepted': {
      const d = (e as EventEnvelope<'SubmissionAccepted'>).data;
      if (d.acceptedBy !== 'admin') return undefined;
      return {
        action: 'submission.accepted',
        target: `job:${d.jobId}`,
        actorId: d.actorId,
        details: { tester_id: d.testerId, title: d.title },
      };
    }
    case 'TesterPaid': {
      const d = (e as EventEnvelope<'TesterPaid'>).data;
      // Payouts the admin ran carry the admin; others (a tester's own cash-out) are not admin actions.
      if (!d.actorId) return undefined;
      return {
        action: 'payout.sent',
        target: `tester:${d.testerId}`,
        actorId: d.actorId,
        details: { payout_id: d.payoutId, amount_cents: d.amountCents, job_ids: d.jobIds },
      };
    }
    case 'JobsCleared': {
      const d = (e as EventEnvelope<'JobsCleared'>).data;
      return {
        action: 'jobs.cleared',
        target: 'jobs:all',
        actorId: d.actorId,
        details: {
          jobs_deleted: d.jobsDeleted,
          submissions_deleted: d.submissionsDeleted,
          refunded_jobs: d.refundJobIds?.length ?? 0,
          refund_job_ids: d.refundJobIds ?? [],
        },
      };
    }
    case 'DataExportRequested': {
      const d = (e as EventEnvelope<'DataExportRequested'>).data;
      // Only an export the admin ran for a user who asked by e-mail is an admin action.
      if (!d.actorId) return undefined;
      return {
        action: 'user.export_run',
        target: `user:${d.userId}`,
        actorId: d.actorId,
        details: { export_id: d.exportId },
      };
    }
    case 'UserDeletionRequested': {
      const d = (e as EventEnvelope<'UserDeletionRequested'>).data;
      if (!d.actorId) return undefined;
      return {
        action: 'user.deletion_scheduled',
        target: `user:${d.userId}`,
        actorId: d.actorId,
        details: { due_at: d.dueAt },
      };
    }
    case 'AppealDecided': {
      const d = (e as EventEnvelope<'AppealDecided'>).data;
      return {
        action: d.decision === 'overturn' ? 'appeal.overturned' : 'appeal.upheld',
        target: `tester:${d.testerId}`,
        actorId: d.actorId,
        details: {
          appeal_id: d.appealId,
          job_id: d.jobId,
          kind: d.kind,
          note: d.note,
          stars: d.stars,
        },
      };
    }
    case 'SessionDecided': {
      // The admin's queue of failed sessions (a decision made through an appeal is AppealDecided's row).
      const d = (e as EventEnvelope<'SessionDecided'>).data;
      if (d.by !== 'admin') return undefined;
      return {
        action: d.decision === 'released' ? 'session.released' : 'session.confirmed',
        target: `job:${d.jobId}`,
        actorId: d.actorId,
        details: {
          submission_id: d.submissionId,
          tester_id: d.testerId,
          delivered: d.delivered,
        },
      };
    }
    case 'SignupApproved': {
      const d = (e as EventEnvelope<'SignupApproved'>).data;
      return {
        action: d.approved ? 'signup.approved' : 'signup.unapproved',
        target: `waitlist:${d.entryId}`,
        details: { email: d.email, role: d.role },
      };
    }
  }
}

/** Records the admin action an event tells of (nothing for other actions). In the handler's transaction. */
export async function recordAudit(tx: Tx | Db, e: AuditedEvent, actorId?: string): Promise<void> {
  const entry = entryOf(e);
  if (!entry) return;
  await appendAudit(tx, {
    eventId: e.id,
    at: new Date(e.occurredAt),
    actorId: entry.actorId ?? actorId ?? null,
    action: entry.action,
    target: entry.target,
    details: entry.details,
    correlationId: e.correlationId ?? null,
  });
}

export function toAuditDto(r: AuditRow): AuditEntryDto {
  return {
    id: r.id,
    at: r.at.toISOString(),
    actor_id: r.actorId,
    action: r.action as AuditAction,
    target: r.target,
    details: r.details,
    correlation_id: r.correlationId,
  };
}

const filterOf = (q: AdminAuditQuery): AuditFilter => ({
  action: q.action,
  actor: q.actor || undefined,
  target: q.target || undefined,
  from: q.from,
  to: q.to,
});

export async function listAudit(deps: AdminDeps, q: AdminAuditQuery) {
  const page = q.page;
  const pageSize = q.page_size ?? 20;
  const { rows, total } = await pageAudit(deps.db, filterOf(q), page, pageSize);
  return { entries: rows.map(toAuditDto), total, page, page_size: pageSize };
}

export async function* exportAudit(
  deps: AdminDeps,
  q: AdminAuditQuery,
): AsyncGenerator<AuditEntryDto> {
  for await (const r of streamAudit(deps.db, filterOf(q))) yield toAuditDto(r);
}
