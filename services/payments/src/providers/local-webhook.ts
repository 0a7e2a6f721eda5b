import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { injectTraceHeaders } from '@htm/service-kit/tracing';
import type { PaymentsDeps } from '../deps.js';
import type { LocalSessionRow } from '../db/local-sessions.repository.js';
import { localSessionObject, randomId } from './local.provider.js';

/**
 * Sends a signed webhook exactly as Stripe would (same header, same signing scheme) over real
 * HTTP to this service's own /api/payments/webhook. A failed delivery is logged: the status
 * call asks the provider and reconciles, just as with a lost Stripe webhook.
 */
export async function deliverLocalEvent(
  deps: Pick<PaymentsDeps, 'logger' | 'provider'>,
  selfUrl: string,
  type: string,
  session: LocalSessionRow,
): Promise<boolean> {
  const now = Math.floor(Date.now() / 1000);
  const event = {
    id: randomId('evt_local_'),
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: now,
    data: { object: localSessionObject(session) },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
  const payload = JSON.stringify(event);
  const header = Stripe.webhooks.generateTestHeaderString({
    payload,
    secret: deps.provider.webhookSecret,
    timestamp: now,
  });
  try {
    const res = await fetch(`${selfUrl}/api/payments/webhook`, {
      method: 'POST',
      // traceparent: the webhook's handling belongs to the trace of the Pay click that sent it.
      headers: injectTraceHeaders({
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': header,
        'user-agent': 'htm-local-payments/1.0',
        'x-request-id': randomBytes(8).toString('hex'),
      }),
      body: payload,
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) {
      deps.logger.warn(
        { status: res.status, type, sessionId: session.id },
        'local webhook delivery refused',
      );
      return false;
    }
    return true;
  } catch (err) {
    deps.logger.warn(
      { err: (err as Error).message, type, sessionId: session.id },
      'local webhook delivery failed',
    );
    return false;
  }
}
