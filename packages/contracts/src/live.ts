import { z } from 'zod';
import { jobViewSchema } from './jobs.js';
import { SESSION_VERDICTS } from './marketplace.js';

/**
 * The live channel (Server-Sent Events, served by the gateway itself): the ticket answer, the
 * stream's query, and the `data` of each message. The gateway builds messages of these shapes;
 * the web app reads them.
 */
export const LIVE_TICKET_TTL_SECONDS = 60;

export const liveTicketResponseSchema = z.object({
  ticket: z.string(),
  expires_in: z.literal(LIVE_TICKET_TTL_SECONDS),
});
export type LiveTicketResponse = z.infer<typeof liveTicketResponseSchema>;

export const liveStreamQuerySchema = z.object({
  ticket: z.string().describe('single-use ticket from POST /api/live/ticket'),
  last_event_id: z
    .string()
    .optional()
    .describe('resume after this message id (same as the Last-Event-ID header)'),
});

/** `event: job`: a job of the user's (or, for admins, any job) changed. */
export const liveJobMessageSchema = z.object({
  job_id: z.string(),
  /** The status and payment status after the event (absent on SessionChecked: a check changes neither). */
  status: z.string().optional(),
  payment_status: z.string().optional(),
  /** The event type behind it (JobClaimed, WorkSubmitted, ...). */
  event: z.string(),
  accepted_by: z.enum(['poster', 'admin', 'auto']).optional(),
  /** A pack's slot (PackSlotClosed, its PaymentRefunded): the pack. */
  pack_id: z.string().nullable().optional(),
  /** PaymentRefunded of an unfilled pack slot: the cents given back. */
  refunded_cents: z.number().int().optional(),
  /** SessionChecked: the check's verdict, and whether it handed the report to its poster. */
  verdict: z.enum(SESSION_VERDICTS).optional(),
  delivered: z.boolean().optional(),
  /**
   * The job just after the change, as the API answers it (without the admin's poster_info and
   * the poster's rating), when the event carries it (the transition table's events): the web app
   * writes it into its cached lists instead of reading them again.
   */
  job: jobViewSchema.optional(),
});
export type LiveJobMessage = z.infer<typeof liveJobMessageSchema>;

/** `event: available`: a job became claimable for this tester, or stopped being so. */
export const liveAvailableMessageSchema = z.object({
  job_id: z.string(),
  action: z.enum(['added', 'removed']),
});
export type LiveAvailableMessage = z.infer<typeof liveAvailableMessageSchema>;

/** `event: earnings`: the tester earned (an accepted submission) or was paid (a payout). */
export const liveEarningsMessageSchema = z.object({
  action: z.enum(['earned', 'paid']),
  job_id: z.string().optional(),
  job_ids: z.array(z.string()).optional(),
  amount_cents: z.number().int(),
});
export type LiveEarningsMessage = z.infer<typeof liveEarningsMessageSchema>;

/** `event: admin`: one of the admin's lists changed. */
export const liveAdminMessageSchema = z.object({
  list: z.enum(['testers', 'waitlist', 'leads', 'feedback']),
});
export type LiveAdminMessage = z.infer<typeof liveAdminMessageSchema>;

/** `event: appeal`: an appeal was filed (admins) or decided (the tester and admins), issue #34. */
export const liveAppealMessageSchema = z.object({
  appeal_id: z.string(),
  job_id: z.string(),
  kind: z.enum(['strike', 'rating']),
  decision: z.enum(['overturn', 'uphold']).nullable(),
});
export type LiveAppealMessage = z.infer<typeof liveAppealMessageSchema>;

/** The gateway's own live routes, for the API reference (not proxied: not in OPERATIONS). */
export const LIVE_OPERATIONS = [
  {
    method: 'post',
    path: '/api/live/ticket',
    summary:
      'A single-use ticket (60 s) for the live stream, bound to the caller; 429 too_many_streams at the cap',
    response: liveTicketResponseSchema,
  },
  {
    method: 'get',
    path: '/api/live',
    summary:
      'The live stream (text/event-stream): job, available, earnings, admin and appeal messages with ids, a ping comment every 20 s; 401 invalid_ticket',
    query: liveStreamQuerySchema,
  },
] as const;
