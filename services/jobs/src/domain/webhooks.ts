import { randomBytes } from 'node:crypto';
import { AppError, type Caller } from '@htm/service-kit';
import type { Tx } from '@htm/service-kit/db';
import type { WebhookEndpointBody, WebhookEventType, WebhookPayload } from '@htm/contracts';
import type { JobsConfig } from '../config.js';
import type { JobsDeps } from '../deps.js';
import type { JobRow, WebhookDeliveryRow, WebhookEndpointRow } from '../db/schema.js';
import { findShareLinkOf } from '../db/share.repository.js';
import {
  countDeliveriesSince,
  deleteEndpoint,
  endpointsFor,
  enqueueDelivery,
  findDelivery,
  findEndpoint,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  lockEndpoint,
  requeueDelivery,
} from '../db/webhook.repository.js';
import { ShareTokens } from '../providers/share-tokens.js';

const HOUR = 3_600_000;
/** Deliveries are retried for at least this long after they were first due. */
export const RETRY_FOR_MS = 24 * HOUR;
/** An endpoint that failed every attempt for this long is disabled (and its owner e-mailed). */
export const DISABLE_AFTER_MS = 72 * HOUR;

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

/** Test sends per endpoint within TEST_SEND_WINDOW_MS (POST .../test answers 429 beyond). */
export const TEST_SENDS_PER_WINDOW = 5;
export const TEST_SEND_WINDOW_MS = 60_000;

/**
 * POST .../test: a webhook.test delivery, due now. At most TEST_SENDS_PER_WINDOW a minute per
 * endpoint (429 webhook_test_rate_limited): the endpoint is the poster's to name, so the button
 * must not turn the product into a request cannon against somebody's server.
 */
export async function sendTestWebhook(
  deps: Pick<JobsDeps, 'db' | 'config' | 'events'>,
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
  return deps.events.inTransaction(async (tx) => {
    // Counted and added under the endpoint's lock: simultaneous clicks take turns.
    await lockEndpoint(tx, e.id);
    const since = new Date(Date.now() - TEST_SEND_WINDOW_MS);
    if ((await countDeliveriesSince(tx, e.id, 'webhook.test', since)) >= TEST_SENDS_PER_WINDOW)
      throw new AppError(
        'rate_limited',
        `Test webhooks to this endpoint are limited to ${TEST_SENDS_PER_WINDOW} a minute. Please wait a minute and try again.`,
        {
          code: 'webhook_test_rate_limited',
          headers: { 'Retry-After': String(TEST_SEND_WINDOW_MS / 1000) },
        },
      );
    const row = await enqueueDelivery(tx, {
      endpointId: e.id,
      eventId: `test-${randomBytes(8).toString('hex')}`,
      eventType: 'webhook.test',
      payload: payload as unknown as Record<string, unknown>,
    });
    return row!;
  });
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

/** What writing a job's webhook deliveries needs: the public address and the share links' key. */
export type WebhookConfig = Pick<
  JobsConfig,
  'PUBLIC_URL' | 'FILE_URL_SECRET' | 'SERVICE_TOKEN_SECRET'
>;

/**
 * A job's webhook, in the transaction of the change it announces (the transition table's
 * `webhook`, or the payment jobs recorded): one delivery per live endpoint of the job's poster that
 * asks for this type, keyed by the event's id (written twice, it adds none). The body is fixed
 * here, so every retry sends the same; the webhook worker sends the due deliveries. How many.
 */
export async function enqueueJobWebhook(
  tx: Tx,
  config: WebhookConfig,
  w: {
    type: WebhookEventType;
    job: Pick<JobRow, 'id' | 'posterId' | 'title' | 'status'>;
    eventId: string;
    occurredAt: string;
    /** What this type says beyond the job (session.checked's verdict, replacement.requested's reasons). */
    data?: Partial<WebhookPayload['data']>;
  },
): Promise<number> {
  const endpoints = await endpointsFor(tx, w.job.posterId, w.type);
  if (!endpoints.length) return 0;
  const base = config.PUBLIC_URL.replace(/\/+$/, '');
  const link = await findShareLinkOf(tx, w.job.id);
  const reportUrl =
    link && link.expiresAt.getTime() > Date.now()
      ? `${base}/r/${ShareTokens.fromConfig(config).token(link.jobId, link.nonce)}`
      : `${base}/dashboard?job=${w.job.id}`;
  const payload: WebhookPayload = {
    type: w.type,
    timestamp: w.occurredAt,
    data: {
      job_id: w.job.id,
      title: w.job.title,
      status: w.job.status,
      report_url: reportUrl,
      ...w.data,
    },
  };
  let n = 0;
  for (const e of endpoints)
    if (
      await enqueueDelivery(tx, {
        endpointId: e.id,
        eventId: w.eventId,
        eventType: w.type,
        payload: payload as unknown as Record<string, unknown>,
      })
    )
      n++;
  return n;
}
