import { z } from 'zod';
import { emailSchema } from './common.js';

/**
 * The e-mails the notifications service sends ("Beyond the peers, part 2"), one preference each.
 * Posters: a tester took the job, results are ready, the job was accepted automatically.
 * Testers: approved to test, revision requested, submission accepted (earned), paid out.
 */
export const NOTIFICATION_KINDS = [
  'job_claimed',
  'work_submitted',
  'auto_accepted',
  'tester_approved',
  'revision_requested',
  'submission_accepted',
  'tester_paid',
  'webhook_disabled',
  'appeal_decided',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** Who gets each kind, and how the profile names it. */
export const NOTIFICATION_KIND_INFO: Record<
  NotificationKind,
  { audience: 'poster' | 'tester'; label: string }
> = {
  job_claimed: { audience: 'poster', label: 'A tester is on your job' },
  work_submitted: { audience: 'poster', label: 'Your results are ready' },
  auto_accepted: { audience: 'poster', label: 'Results accepted automatically' },
  tester_approved: { audience: 'tester', label: "You're approved to test" },
  revision_requested: { audience: 'tester', label: 'The poster asked for a revision' },
  submission_accepted: { audience: 'tester', label: 'Your work was accepted (you earned $0.82)' },
  tester_paid: { audience: 'tester', label: 'You were paid out' },
  webhook_disabled: { audience: 'poster', label: 'A webhook endpoint was switched off' },
  appeal_decided: { audience: 'tester', label: 'Your appeal was decided' },
};

export const NOTIFICATION_MESSAGES = {
  notBoolean: 'Must be true or false',
  unknownKind: 'Unknown notification kind',
  tokenInvalid: 'This unsubscribe link is not valid.',
};

/** GET /api/notifications/preferences and the answer of PATCH: every kind, on (true) or off. */
export type NotificationPreferences = Record<NotificationKind, boolean>;
export interface NotificationPreferencesResponse {
  preferences: NotificationPreferences;
}

/** PATCH /api/notifications/preferences: some kinds switched on or off; unknown kinds are refused. */
export const notificationPreferencesBodySchema = z
  .object(
    Object.fromEntries(
      NOTIFICATION_KINDS.map((k) => [
        k,
        z.boolean({ error: NOTIFICATION_MESSAGES.notBoolean }).optional(),
      ]),
    ) as Record<NotificationKind, z.ZodOptional<z.ZodBoolean>>,
  )
  .strict();
export type NotificationPreferencesBody = z.infer<typeof notificationPreferencesBodySchema>;

export const unsubscribeQuerySchema = z.object({
  token: z
    .string({ error: NOTIFICATION_MESSAGES.tokenInvalid })
    .min(1, { error: NOTIFICATION_MESSAGES.tokenInvalid })
    .max(500),
});

/** GET /api/dev/mail?to= (development only): messages sent to that address, newest first. */
export const devMailQuerySchema = z.object({ to: emailSchema });
export interface DevMailResponse {
  messages: Array<{ to: string; subject: string; text: string; created_at: string }>;
}
