import { Router } from 'express';
import Stripe from 'stripe';
import { AppError } from '@htm/service-kit';
import type { PaymentsDeps } from '../deps.js';
import { applyProviderEvent } from '../domain/apply-provider-event.js';
import { toProviderEvent } from '../providers/stripe.provider.js';

/** Signatures older than this (seconds) are refused, as Stripe recommends. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * POST /api/payments/webhook: Stripe (or the local provider, signed the same way) tells us
 * about checkout sessions. The signature is checked on the raw bytes of the body.
 */
export function webhookRoutes(deps: PaymentsDeps): Router {
  const r = Router();
  r.post('/api/payments/webhook', async (req, res) => {
    const signature = req.headers['stripe-signature'];
    if (typeof signature !== 'string' || !signature) throw AppError.invalid('Missing Stripe-Signature header.', undefined, 'invalid_signature');
    if (!req.rawBody) throw AppError.invalid('The webhook body must be JSON (application/json).', undefined, 'invalid_payload');
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(req.rawBody, signature, deps.provider.webhookSecret, WEBHOOK_TOLERANCE_SECONDS);
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message }, 'webhook signature refused');
      throw AppError.invalid('Webhook signature verification failed.', undefined, 'invalid_signature');
    }
    if (typeof event?.id !== 'string' || typeof event.type !== 'string') throw AppError.invalid('Not a provider event.', undefined, 'invalid_payload');
    const outcome = await applyProviderEvent(deps, toProviderEvent(event));
    res.json({ received: true, outcome });
  });
  return r;
}
