import { z } from 'zod';
import {
  createCheckoutSessionBodySchema,
  createCheckoutSessionResponseSchema,
} from './payments.js';
import { privacyBlockersSchema, privacyPartSchema } from './privacy.js';

/**
 * The internal routes (`/internal/...`, service token, never proxied by the gateway): the few
 * synchronous calls between services. Their schemas live here so the calling and the answering
 * service share them, and `npm run compat:snapshot` writes them to compat/internal-openapi.json,
 * where CI catches a breaking change (a service deployed alone must still answer the old callers).
 */

/** GET /internal/jobs/clear-preview (admin -> jobs): what clear-all would delete, and its fingerprint. */
export const internalClearPreviewSchema = z.object({
  jobs_total: z.number().int().min(0),
  jobs_by_status: z.record(z.string(), z.number().int().min(0)),
  submissions: z.number().int().min(0),
  paid_unfinished: z.number().int().min(0),
  paid_unfinished_cents: z.number().int().min(0),
  paid_completed: z.number().int().min(0),
  paid_completed_cents: z.number().int().min(0),
  unpaid: z.number().int().min(0),
  fingerprint: z.string().min(1),
});

/** POST /internal/jobs/clear (admin -> jobs) body: the preview's fingerprint and the admin who confirmed. */
export const internalClearBodySchema = z.object({
  fingerprint: z
    .string({ error: 'The preview fingerprint is required' })
    .min(1, 'The preview fingerprint is required'),
  actor_id: z.string().min(1).optional(),
});

/** POST /internal/jobs/clear answer (refunded_jobs absent from jobs before round 3: read as 0). */
export const internalClearAnswerSchema = z.object({
  jobs_deleted: z.number().int().min(0),
  submissions_deleted: z.number().int().min(0),
  refunded_jobs: z.number().int().min(0).default(0),
});

/** GET /internal/jwks (any service -> identity): the ES256 public keys access tokens are verified with. */
export const internalJwksSchema = z.object({
  keys: z.array(
    z.object({
      kty: z.string(),
      kid: z.string(),
      alg: z.string().optional(),
      use: z.string().optional(),
      crv: z.string().optional(),
      x: z.string().optional(),
      y: z.string().optional(),
    }),
  ),
});

export interface InternalOperation {
  method: 'get' | 'post';
  path: string;
  /** The service that answers. */
  service: 'identity' | 'jobs' | 'payments';
  /** The services whose token it accepts ('any' for the public key set). */
  callers: string[];
  summary: string;
  body?: z.ZodType;
  response: z.ZodType;
  /** A file answer instead of JSON: its media types. */
  produces?: string[];
}

export const INTERNAL_OPERATIONS: InternalOperation[] = [
  {
    method: 'get',
    path: '/internal/jwks',
    service: 'identity',
    callers: ['any'],
    summary: 'The public keys access tokens are signed with (current and recently retired)',
    response: internalJwksSchema,
  },
  {
    method: 'post',
    path: '/internal/checkout-sessions',
    service: 'payments',
    callers: ['jobs'],
    summary: 'A $1 checkout session for one job and attempt (idempotent per job and attempt)',
    body: createCheckoutSessionBodySchema,
    response: createCheckoutSessionResponseSchema,
  },
  {
    method: 'get',
    path: '/internal/jobs/clear-preview',
    service: 'jobs',
    callers: ['admin'],
    summary: 'What clear-all would delete, with the fingerprint of exactly these jobs',
    response: internalClearPreviewSchema,
  },
  {
    method: 'post',
    path: '/internal/jobs/clear',
    service: 'jobs',
    callers: ['admin'],
    summary:
      'Delete every job and submission if they are still those of the fingerprint (else 409 clear_preview_stale)',
    body: internalClearBodySchema,
    response: internalClearAnswerSchema,
  },
];

/**
 * The /internal/privacy routes every service answers identity with (packages/service-kit
 * privacy-routes.ts): each service's part of a data export, its files, what blocks an account
 * deletion, and whether it erased a deleted user.
 */
export const PRIVACY_INTERNAL_OPERATIONS: Array<Omit<InternalOperation, 'service'>> = [
  {
    method: 'get',
    path: '/internal/privacy/users/{userId}/export',
    callers: ['identity'],
    summary: "This service's part of the user's data export ({data, files}); ?email= the account's",
    response: privacyPartSchema,
  },
  {
    method: 'get',
    path: '/internal/privacy/users/{userId}/files/{fileId}',
    callers: ['identity'],
    summary: 'A file of that part (jobs: uploads and recordings)',
    response: z.string(),
    produces: ['application/octet-stream'],
  },
  {
    method: 'get',
    path: '/internal/privacy/users/{userId}/blockers',
    callers: ['identity'],
    summary: "Sentences saying what stops the user's account deletion now",
    response: privacyBlockersSchema,
  },
  {
    method: 'get',
    path: '/internal/privacy/erasures/{eventId}',
    callers: ['identity'],
    summary: 'Whether this service handled that UserDeleted event (its erasure is done)',
    response: z.object({ handled: z.boolean() }),
  },
];
