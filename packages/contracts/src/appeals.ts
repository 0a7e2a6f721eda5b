import { z } from 'zod';
import { APPEAL_MESSAGE_MAX, APPEAL_MESSAGE_MIN } from './marketplace.js';

/**
 * Reasons and one appeal ("Fair and fast for testers"): what a tester may appeal, and the admin's
 * decision. `session_check`: a report whose session check failed ("Every session checked"), one
 * appeal whether or not the admin confirmed the failure as a strike.
 */
export const APPEAL_KINDS = ['strike', 'rating', 'session_check'] as const;
export type AppealKind = (typeof APPEAL_KINDS)[number];
export const APPEAL_STATUSES = ['open', 'overturned', 'upheld'] as const;
export type AppealStatus = (typeof APPEAL_STATUSES)[number];

export const APPEAL_MESSAGES = {
  jobId: 'Choose the job whose strike, rating or failed check you appeal',
  kind: 'Appeal a "strike", a "rating" or a "session_check"',
  message: `Your reason must be ${APPEAL_MESSAGE_MIN} to ${APPEAL_MESSAGE_MAX} characters`,
  decision: 'Decide "overturn" or "uphold"',
  note: `Note must be ${APPEAL_MESSAGE_MAX} characters or less`,
  status: 'status must be open, overturned or upheld',
} as const;

/** POST /api/appeals */
export const appealBodySchema = z.object({
  job_id: z.string({ error: APPEAL_MESSAGES.jobId }).uuid({ error: APPEAL_MESSAGES.jobId }),
  kind: z.enum(APPEAL_KINDS, { error: APPEAL_MESSAGES.kind }),
  message: z
    .string({ error: APPEAL_MESSAGES.message })
    .trim()
    .min(APPEAL_MESSAGE_MIN, { error: APPEAL_MESSAGES.message })
    .max(APPEAL_MESSAGE_MAX, { error: APPEAL_MESSAGES.message }),
});
export type AppealBody = z.infer<typeof appealBodySchema>;

/** POST /api/admin/appeals/{id}/decision */
export const appealDecisionBodySchema = z.object({
  decision: z.enum(['overturn', 'uphold'], { error: APPEAL_MESSAGES.decision }),
  note: z
    .string({ error: APPEAL_MESSAGES.note })
    .trim()
    .max(APPEAL_MESSAGE_MAX, { error: APPEAL_MESSAGES.note })
    .optional(),
});
export type AppealDecisionBody = z.infer<typeof appealDecisionBodySchema>;

/** GET /api/admin/appeals?status= (default open) */
export const adminAppealsQuerySchema = z.object({
  status: z.enum(APPEAL_STATUSES, { error: APPEAL_MESSAGES.status }).default('open'),
});

/** An appeal as the tester and the admin see it, with what it is about (the strike's or rating's reason). */
export const appealViewSchema = z.object({
  id: z.string(),
  job_id: z.string(),
  job_title: z.string(),
  tester_id: z.string(),
  kind: z.enum(APPEAL_KINDS),
  /** Why the tester got the strike or the rating (the rating's stars and comment). */
  reason: z.string(),
  stars: z.number().int().nullable(),
  message: z.string(),
  status: z.enum(APPEAL_STATUSES),
  decision_note: z.string().nullable(),
  created_at: z.string(),
  decided_at: z.string().nullable(),
});
export type AppealView = z.infer<typeof appealViewSchema>;

/** A strike or low rating the tester may see (and appeal while `appealable_until` has not passed). */
export const appealableViewSchema = z.object({
  job_id: z.string(),
  job_title: z.string(),
  kind: z.enum(APPEAL_KINDS),
  reason: z.string(),
  stars: z.number().int().nullable(),
  at: z.string(),
  appealable_until: z.string(),
  overturned: z.boolean(),
  appeal: appealViewSchema.nullable(),
});
export type AppealableView = z.infer<typeof appealableViewSchema>;

/** GET /api/appeals (tester): their strikes and low ratings with reasons, and their appeals. */
export const myAppealsResponseSchema = z.object({ items: z.array(appealableViewSchema) });
export const adminAppealsResponseSchema = z.object({ appeals: z.array(appealViewSchema) });
export const appealResponseSchema = z.object({ appeal: appealViewSchema });
