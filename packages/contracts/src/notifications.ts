import { z } from 'zod';
import { emailSchema } from './common.js';
import { RULE_WORDS } from './marketplace.js';

/**
 * The e-mails the notifications service sends ("Beyond the peers, part 2"), one preference each.
 * Posters: a tester took the job, results are ready, the job was accepted automatically.
 * Testers: approved to test, revision requested, submission accepted (earned), paid out.
 * Later: the poster's payment receipt, a tester's claim that ran out of time, and the opt-in digest
 * of new jobs a tester can take.
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
  'pack_slot_refunded',
  'data_export_ready',
  'account_deletion_scheduled',
  'account_deletion_cancelled',
  'job_paid',
  'claim_expired',
  'job_digest',
  'appeal_decided',
  'job_held_for_you',
  'replacement_coming',
  'session_held',
  'session_borderline',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** Who gets each kind, and how the profile names it ('everyone': account e-mails, always sent, no switch). */
export const NOTIFICATION_KIND_INFO: Record<
  NotificationKind,
  {
    audience: 'poster' | 'tester' | 'everyone';
    label: string;
    /** Off until the user switches it on (the others are on until switched off). */
    optIn?: true;
  }
> = {
  job_claimed: { audience: 'poster', label: 'A tester is on your job' },
  work_submitted: { audience: 'poster', label: 'Your results are ready' },
  auto_accepted: { audience: 'poster', label: 'Results accepted automatically' },
  tester_approved: { audience: 'tester', label: "You're approved to test" },
  revision_requested: { audience: 'tester', label: 'The poster asked for a revision' },
  submission_accepted: {
    audience: 'tester',
    label: `Your work was accepted (you earned ${RULE_WORDS.testerShare})`,
  },
  tester_paid: { audience: 'tester', label: 'You were paid out' },
  webhook_disabled: { audience: 'poster', label: 'A webhook endpoint was switched off' },
  pack_slot_refunded: { audience: 'poster', label: 'An unfilled tester slot was refunded' },
  data_export_ready: { audience: 'everyone', label: 'Your data download is ready' },
  account_deletion_scheduled: {
    audience: 'everyone',
    label: 'Your account is scheduled for deletion',
  },
  account_deletion_cancelled: {
    audience: 'everyone',
    label: 'Your account deletion was cancelled',
  },
  job_paid: { audience: 'poster', label: 'Payment receipt (with the date results are expected)' },
  claim_expired: {
    audience: 'tester',
    label: 'A job I claimed went back to the others (time ran out)',
  },
  job_digest: {
    audience: 'tester',
    label: 'New jobs I can take (at most one e-mail an hour)',
    optIn: true,
  },
  appeal_decided: { audience: 'tester', label: 'Your appeal was decided' },
  replacement_coming: {
    audience: 'poster',
    label: 'A report did not pass our checks and another tester is on it',
  },
  session_held: { audience: 'tester', label: 'A report of mine did not pass the checks' },
  session_borderline: {
    audience: 'tester',
    label: 'A report of mine was delivered with a warning from the checks',
  },
  job_held_for_you: {
    audience: 'tester',
    label: 'A poster holds a job for me first (an invitation or a re-test)',
  },
};

/** Whether a kind is on for a user who switched `disabled` off and `enabled` on (opt-in kinds start off). */
export function notificationKindOn(
  kind: NotificationKind,
  prefs: { disabled: readonly string[]; enabled: readonly string[] },
): boolean {
  // Account e-mails (a data download, a deletion) are not a preference: they always go.
  if (NOTIFICATION_KIND_INFO[kind].audience === 'everyone') return true;
  return NOTIFICATION_KIND_INFO[kind].optIn
    ? prefs.enabled.includes(kind)
    : !prefs.disabled.includes(kind);
}

/** The brand every e-mail, page and sender name uses. */
export const BRAND_NAME = 'HumanTest';

/** The job digest goes to a tester at most once in this many milliseconds. */
export const JOB_DIGEST_MIN_GAP_MS = 3_600_000;

export const NOTIFICATION_MESSAGES = {
  notBoolean: 'Must be true or false',
  unknownKind: 'Unknown notification kind',
  tokenInvalid: 'This unsubscribe link is not valid.',
};

/** GET /api/notifications/preferences and the answer of PATCH: every kind, on (true) or off. */
export type NotificationPreferences = Record<NotificationKind, boolean>;
export const notificationPreferencesResponseSchema = z.object({
  preferences: z.record(z.enum(NOTIFICATION_KINDS), z.boolean()),
});
export type NotificationPreferencesResponse = { preferences: NotificationPreferences };

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
export const devMailResponseSchema = z.object({
  messages: z.array(
    z.object({ to: z.string(), subject: z.string(), text: z.string(), created_at: z.string() }),
  ),
});
export type DevMailResponse = z.infer<typeof devMailResponseSchema>;

/** POST /api/notifications/unsubscribe from a mail client (JSON): the kind switched off. */
export const unsubscribedResponseSchema = z.object({
  unsubscribed: z.literal(true),
  kind: z.enum(NOTIFICATION_KINDS),
});
