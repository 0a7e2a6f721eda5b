import { z } from 'zod';

/** The documented JSON error shape of every service. */
export const errorBodySchema = z.object({
  detail: z.string(),
  code: z.string(),
  errors: z.record(z.string(), z.array(z.string())).optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Trimmed string helper: required with a message, optional max length. */
export const trimmed = (required: string, max?: number, maxMessage?: string) => {
  let s = z.string({ error: required }).trim().min(1, { error: required });
  if (max) s = s.max(max, { error: maxMessage ?? `Must be ${max} characters or less` });
  return s;
};

export const emailSchema = z
  .string({ error: 'Email is required' })
  .trim()
  .toLowerCase()
  .min(1, { error: 'Email is required' })
  .max(254, { error: 'Email is too long' })
  .email({ error: 'Please enter a valid email address' });
