import { randomBytes } from 'node:crypto';
import { AppError, type Caller } from '@htm/service-kit';
import type { Db } from '@htm/service-kit/db';
import type { WebhookEndpointBody, WebhookEventType, WebhookPayload } from '@htm/contracts';
import type { JobsConfig } from '../config.js';
import type { JobsDeps } from '../deps.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../db/schema.js';
import { findJob } from '../db/job.repository.js';
import { findShareLinkOfJob } from '../db/share.repository.js';
import {
  deleteEndpoint,
  endpointsFor,
  enqueueDelivery,
  findDelivery,
  findEndpoint,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  requeueDelivery,
} from '../db/webhook.repository.js';
import { ShareTokens } from '../storage/share-tokens.js';

const HOUR = 3_600_000;
/** Deliveries are retried for at least this long after they were first due. */
export const RETRY_FOR_MS = 24 * HOUR;
/** An endpoint that failed every attempt for this long is disabled (and its owner e-mailed). */
export const DISABLE_AFTER_MS = 72 * HOUR;

/** Which of our events become which webhook, and the job status each announces. */
export const WEBHOOK_OF_EVENT: Record<string, { type: WebhookEventType; status: string }> = {
  JobPaid: { type: 'job.paid', status: 'open' },
  JobClaimed: { type: 'job.claimed', status: 'claimed' },
  WorkSubmitted: { type: 'job.submitted', status: 'submitted' },
  RevisionRequested: { type: 'job.revision_requested', status: 'revision_requested' },
  SubmissionAccepted: { type: 'job.completed', status: 'completed' },
};

/**
 * When attempt `attempts` (1 = the first) failed at `at`, the next attempt: WEBHOOK_RETRY_BASE_MS
 * after the first, doubling each time, while the delivery is younger than 24 h (so the last
 * retry is at or after 24 h). null: give up.
 */
export function nextAttemptAfter(
  attempts: number,
  createdAt: Date,
  at: Date,
  baseMs: number,
): Date | null {
  if (at.getTime() - createdAt.getTime() >= RETRY_FOR_MS) return null;
  const delay = baseMs * 2 ** Math.min(attempts - 1, 30);
  return new Date(at.getTime() + delay);
}

const notFound = () => AppError.notFound('Webhook endpoint not found.', 'endpoint_not_found');

async function ownEndpoint(
  deps: Pick<JobsDeps, 'db'>,
  caller: Caller,
  id: string,
): Promise<WebhookEndpointRow> {
  const e = await findEndpoint(deps.db, id);
  // Someone else's endpoint is not found either: its existence is not told.
  if (!e || e.ownerId !== caller.id) throw notFound();
  return e;
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export async function createEndpoint(
  deps: Pick<JobsDeps, 'db'>,
  caller: Caller,
  body: WebhookEndpointBody,
): Promise<WebhookEndpointRow> {
  const count = (await listEndpoints(deps.db, caller.id)).length;
  if (count >= 10)
    throw AppError.conflict(
      'You have 10 webhook endpoints already: remove one first.',
      'too_many_endpoints',
    );
  return insertEndpoint(deps.db, {
    ownerId: caller.id,
    url: body.url,
    events: body.events,
    secret: newWebhookSecret(),
  });
}

export const listOwnEndpoints = (deps: Pick<JobsDeps, 'db'>, caller: Caller) =>
  listEndpoints(deps.db, caller.id);

export async function removeEndpoint(
  deps: Pick<JobsDeps, 'db'>,
  caller: Caller,
  id: string,
): Promise<void> {
  await deleteEndpoint(deps.db, (await ownEndpoint(deps, caller, id)).id);
}

export async function endpointDeliveries(
  deps: Pick<JobsDeps, 'db'>,
  caller: Caller,
  id: string,
): Promise<WebhookDeliveryRow[]> {
  return listDeliveries(deps.db, (await ownEndpoint(deps, caller, id)).id);
}

/** POST .../test: a webhook.test delivery, due now. */
export async function sendTestWebhook(
  deps: Pick<JobsDeps, 'db' | 'config'>,
  caller: Caller,
  id: string,
): Promise<WebhookDeliveryRow> {
  const e = await ownEndpoint(deps, caller, id);
  const payload: WebhookPayload = {
    type: 'webhook.test',
    timestamp: new Date().toISOString(),
    data: {
      job_id: '00000000-0000-0000-0000-000000000000',
      title: 'Test webhook',
      status: 'open',
      report_url: `${deps.config.PUBLIC_URL.replace(/\/+$/, '')}/dashboard`,
    },
  };
  const row = await enqueueDelivery(deps.db, {
    endpointId: e.id,
    eventId: `test-${randomBytes(8).toString('hex')}`,
    eventType: 'webhook.test',
    payload: payload as unknown as Record<string, unknown>,
  });
  return row!;
}

export async function redeliver(
  deps: Pick<JobsDeps, 'db'>,
  caller: Caller,
  endpointId: string,
  deliveryId: string,
): Promise<WebhookDeliveryRow> {
  const e = await ownEndpoint(deps, caller, endpointId);
  const d = await findDelivery(deps.db, deliveryId);
  if (!d || d.endpointId !== e.id)
    throw AppError.notFound('Delivery not found.', 'delivery_not_found');
  if (e.disabledAt)
    throw AppError.conflict(
      'This endpoint was disabled after failing for 3 days: remove it and add it again.',
      'endpoint_disabled',
    );
  return (await requeueDelivery(deps.db, d.id))!;
}

/**
 * The event stream's consumer: one delivery per endpoint of the job's poster that wants this
 * webhook (a redelivered event adds none). The body is fixed here, so every retry sends the same.
 */
export async function fanOutEvent(
  deps: {
    db: Db;
    config: Pick<JobsConfig, 'PUBLIC_URL' | 'FILE_URL_SECRET' | 'SERVICE_TOKEN_SECRET'>;
  },
  event: { id: string; type: string; occurredAt: string; data: unknown },
): Promise<number> {
  const hook = WEBHOOK_OF_EVENT[event.type];
  if (!hook) return 0;
  const d = event.data as { jobId: string; posterId: string };
  const endpoints = await endpointsFor(deps.db, d.posterId, hook.type);
  if (!endpoints.length) return 0;
  const job = await findJob(deps.db, d.jobId);
  if (!job) return 0;
  const base = deps.config.PUBLIC_URL.replace(/\/+$/, '');
  const link = await findShareLinkOfJob(deps.db, job.id);
  const reportUrl =
    link && link.expiresAt.getTime() > Date.now()
      ? `${base}/r/${ShareTokens.fromConfig(deps.config).token(link.jobId, link.nonce)}`
      : `${base}/dashboard?job=${job.id}`;
  const payload: WebhookPayload = {
    type: hook.type,
    timestamp: event.occurredAt,
    data: { job_id: job.id, title: job.title, status: hook.status, report_url: reportUrl },
  };
  let n = 0;
  for (const e of endpoints)
    if (
      await enqueueDelivery(deps.db, {
        endpointId: e.id,
        eventId: event.id,
        eventType: hook.type,
        payload: payload as unknown as Record<string, unknown>,
      })
    )
      n++;
  return n;
}
