/**
 * What the live channel tells whom: one event from the bus becomes zero or more messages, each
 * with its audience. Pure: no I/O (the feed stores the result, each replica's hub delivers it).
 */
import type { EventEnvelope } from '@htm/events';
import { GEO_ADMISSION, LIVE_JOB_STATE, type UserCountry } from '@htm/contracts/marketplace';

export const LIVE_EVENT_NAMES = ['job', 'available', 'earnings', 'admin', 'appeal'] as const;
export type LiveEventName = (typeof LIVE_EVENT_NAMES)[number];

export type TesterCountry = UserCountry;

/** Who receives a message: named users, every admin, and/or approved testers of some countries. */
export interface Audience {
  users: string[];
  admins?: boolean;
  /** Approved testers whose country is listed, or every approved tester ('any'). */
  testers?: TesterCountry[] | 'any';
}

export interface LiveMessage {
  event: LiveEventName;
  data: Record<string, unknown>;
  to: Audience;
}

/** Testers a job's geo rule admits (the rules module's GEO_ADMISSION; 'any' for global_beta or an unknown rule). */
export function testersAdmittedBy(geoRule: string | null | undefined): TesterCountry[] | 'any' {
  const admitted = geoRule
    ? (GEO_ADMISSION as Record<string, readonly TesterCountry[] | 'any' | undefined>)[geoRule]
    : undefined;
  return admitted && admitted !== 'any' ? [...admitted] : 'any';
}

/** The job's status and payment status after each event the channel reports (the rules module's transition table). */
const JOB_STATE = LIVE_JOB_STATE;

const present = (...ids: Array<string | null | undefined>): string[] => [
  ...new Set(ids.filter((x): x is string => !!x)),
];

/** The messages one event produces (none for events nobody watches live). */
export function toLiveMessages(e: EventEnvelope): LiveMessage[] {
  const state = JOB_STATE[e.type];
  // The job just after the change (the transition table's events carry it): screens show it as is.
  const view = (e.data as { job?: unknown }).job;
  const job = (
    jobId: string,
    users: string[],
    extra: Record<string, unknown> = {},
  ): LiveMessage => ({
    event: 'job',
    data: { job_id: jobId, ...state, event: e.type, ...extra, ...(view ? { job: view } : {}) },
    to: { users, admins: true },
  });
  switch (e.type) {
    case 'JobPaid': {
      const d = (e as EventEnvelope<'JobPaid'>).data;
      return [job(d.jobId, present(d.posterId))];
    }
    case 'JobPublished': {
      const d = (e as EventEnvelope<'JobPublished'>).data;
      return [
        job(d.jobId, present(d.posterId)),
        {
          event: 'available',
          data: { job_id: d.jobId, action: 'added' },
          to: { users: [], testers: testersAdmittedBy(d.geoRule) },
        },
      ];
    }
    case 'CheckoutCancelled': {
      const d = (e as EventEnvelope<'CheckoutCancelled'>).data;
      return [job(d.jobId, present(d.posterId))];
    }
    case 'JobClaimed': {
      const d = (e as EventEnvelope<'JobClaimed'>).data;
      return [
        job(d.jobId, present(d.posterId, d.testerId)),
        {
          event: 'available',
          data: { job_id: d.jobId, action: 'removed' },
          to: { users: [], testers: testersAdmittedBy(d.geoRule) },
        },
      ];
    }
    case 'WorkSubmitted': {
      const d = (e as EventEnvelope<'WorkSubmitted'>).data;
      // A report its session check holds reaches the poster with SessionChecked, not now.
      return [job(d.jobId, present(d.awaitsCheck ? null : d.posterId, d.testerId))];
    }
    case 'RevisionRequested': {
      const d = (e as EventEnvelope<'RevisionRequested'>).data;
      return [job(d.jobId, present(d.posterId, d.testerId))];
    }
    case 'SessionChecked': {
      // The check delivered the report: the poster's results are ready. The tester's own checks list changes.
      const d = (e as EventEnvelope<'SessionChecked'>).data;
      return [
        job(d.jobId, present(d.delivered ? d.posterId : null, d.testerId), {
          verdict: d.verdict,
          delivered: !!d.delivered,
        }),
      ];
    }
    case 'SubmissionAccepted': {
      const d = (e as EventEnvelope<'SubmissionAccepted'>).data;
      return [job(d.jobId, present(d.posterId, d.testerId), { accepted_by: d.acceptedBy })];
    }
    case 'EarningRecorded': {
      // From payments once the ledger has it, so the tester's refetch already sees it.
      const d = (e as EventEnvelope<'EarningRecorded'>).data;
      return [
        {
          event: 'earnings',
          data: { job_id: d.jobId, action: 'earned', amount_cents: d.amountCents },
          to: { users: [d.testerId] },
        },
      ];
    }
    case 'JobReleased':
    case 'ReplacementRequested': {
      // Back in Available Jobs for another tester (a timer, a failed session check, or the poster's free replacement).
      const d = (e as EventEnvelope<'JobReleased' | 'ReplacementRequested'>).data;
      return [
        job(d.jobId, present(d.posterId, d.testerId)),
        {
          event: 'available',
          data: { job_id: d.jobId, action: 'added' },
          to: {
            users: [],
            testers: testersAdmittedBy('geoRule' in d ? d.geoRule : d.job?.geo_rule),
          },
        },
      ];
    }
    case 'PackSlotClosed': {
      // The poster's pack card: the slot is closed (its refund follows from payments).
      const d = (e as EventEnvelope<'PackSlotClosed'>).data;
      return [job(d.jobId, present(d.posterId), { pack_id: d.packId })];
    }
    case 'PaymentRefunded': {
      const d = (e as EventEnvelope<'PaymentRefunded'>).data;
      if (d.reason !== 'pack_slot_unfilled') return [];
      return [
        {
          event: 'job',
          data: {
            job_id: d.jobId,
            event: e.type,
            status: 'closed',
            payment_status: 'paid',
            refunded_cents: d.amountCents,
            pack_id: d.packId ?? null,
          },
          to: { users: present(d.posterId), admins: true },
        },
      ];
    }
    case 'TesterPaid': {
      const d = (e as EventEnvelope<'TesterPaid'>).data;
      return [
        {
          event: 'earnings',
          data: { action: 'paid', amount_cents: d.amountCents, job_ids: d.jobIds },
          to: { users: [d.testerId] },
        },
      ];
    }
    // Appeals (#34): the admins' queue changes; the tester hears the decision.
    case 'AppealFiled': {
      const d = (e as EventEnvelope<'AppealFiled'>).data;
      return [
        {
          event: 'appeal',
          data: { appeal_id: d.appealId, job_id: d.jobId, kind: d.kind, decision: null },
          to: { users: [], admins: true },
        },
      ];
    }
    case 'AppealDecided': {
      const d = (e as EventEnvelope<'AppealDecided'>).data;
      return [
        {
          event: 'appeal',
          data: { appeal_id: d.appealId, job_id: d.jobId, kind: d.kind, decision: d.decision },
          to: { users: [d.testerId], admins: true },
        },
      ];
    }
    // The admin's lists of people and messages.
    case 'UserRoleChosen':
    case 'TesterApprovalChanged':
      return [adminList('testers')];
    case 'WaitlistJoined':
    case 'SignupApproved':
      return [adminList('waitlist')];
    case 'LeadReceived':
      return [adminList('leads')];
    case 'FeedbackReceived':
      return [adminList('feedback')];
    default:
      return [];
  }
}

/** `event: admin`: one of the admin's lists changed. */
const adminList = (list: 'testers' | 'waitlist' | 'leads' | 'feedback'): LiveMessage => ({
  event: 'admin',
  data: { list },
  to: { users: [], admins: true },
});

/** The sources whose events the live channel turns into messages. */
export const LIVE_SOURCES = ['jobs', 'payments', 'identity', 'admin'] as const;
