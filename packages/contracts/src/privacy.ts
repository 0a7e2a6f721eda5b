import { z } from 'zod';

/** "Your data, your call" (issue 38): download my data, delete my account. */

/** The services whose part is in every export, in the archive's order (`services/<name>.json`). */
export const PRIVACY_SERVICES = [
  'identity',
  'jobs',
  'payments',
  'admin',
  'notifications',
  'analytics',
] as const;
export type PrivacyService = (typeof PRIVACY_SERVICES)[number];

export const privacyMessages = {
  confirmEmail: 'Type the e-mail address of this account to confirm.',
  emailMismatch: 'That is not the e-mail address of this account: type it exactly to confirm.',
  exportDaily:
    'You can download your data once a day. Your last export was asked for less than 24 hours ago.',
  exportRunning: 'Your data export is still being prepared.',
  deletionScheduled: 'Your account is already scheduled for deletion.',
} as const;

/** POST /api/me/deletion and POST /api/admin/users/{id}/deletion: the account's e-mail, typed to confirm. */
export const deletionBodySchema = z.object({
  email: z
    .string({ error: privacyMessages.confirmEmail })
    .trim()
    .min(1, privacyMessages.confirmEmail)
    .max(320, privacyMessages.confirmEmail),
});
export type DeletionBody = z.infer<typeof deletionBodySchema>;

export const exportStatusSchema = z.enum(['pending', 'building', 'ready', 'failed', 'expired']);
export const dataExportSchema = z.object({
  id: z.string(),
  user_id: z.string(),
  status: exportStatusSchema,
  /** Services whose part is done, of `parts_total` (the progress shown). */
  parts_done: z.array(z.string()),
  parts_total: z.number().int(),
  progress: z.number().min(0).max(100),
  requested_at: z.string(),
  ready_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  size_bytes: z.number().int().nullable(),
  requested_by_admin: z.boolean(),
  /** When the next export may be asked for (one a day). */
  next_allowed_at: z.string(),
});
export type DataExportDto = z.infer<typeof dataExportSchema>;

export const deletionStatusSchema = z.enum(['scheduled', 'cancelled', 'erasing', 'completed']);
export const accountDeletionSchema = z.object({
  id: z.string(),
  user_id: z.string(),
  status: deletionStatusSchema,
  requested_at: z.string(),
  due_at: z.string(),
  cancelled_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  services_done: z.array(z.string()),
  requested_by_admin: z.boolean(),
});
export type AccountDeletionDto = z.infer<typeof accountDeletionSchema>;

/** GET /api/me/privacy: the caller's latest export and open (or last) deletion. */
export const privacyStatusSchema = z.object({
  export: dataExportSchema.nullable(),
  deletion: accountDeletionSchema.nullable(),
});
export type PrivacyStatus = z.infer<typeof privacyStatusSchema>;

/** GET /api/admin/privacy: exports and deletions not finished (and the latest finished ones). */
export const adminPrivacySchema = z.object({
  exports: z.array(dataExportSchema.extend({ email: z.string().nullable() })),
  deletions: z.array(accountDeletionSchema.extend({ email: z.string().nullable() })),
});
export type AdminPrivacy = z.infer<typeof adminPrivacySchema>;

/** What a service answers at GET /internal/privacy/users/{id}/export (its part of the archive). */
export const privacyPartSchema = z.object({
  data: z.record(z.string(), z.unknown()),
  /** Files of the user this service stores (jobs): fetched one by one at .../files/{id}. */
  files: z
    .array(z.object({ id: z.string(), name: z.string(), size: z.number().int().nullable() }))
    .default([]),
});
export type PrivacyPart = z.infer<typeof privacyPartSchema>;

/** GET /internal/privacy/users/{id}/blockers: sentences saying what to do before the account can be deleted. */
export const privacyBlockersSchema = z.object({ blockers: z.array(z.string()) });
