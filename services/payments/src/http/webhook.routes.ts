import { Router } from 'express';
import { AppError, catalogueRoutes } from '@htm/service-kit';
import type { PaymentsDeps } from '../deps.js';
import { applyProviderEvent } from '../domain/apply-provider-event.js';
import type { ProviderEvent } from '../providers/provider.js';
import { verifyWebhook, WebhookSignatureError } from '../providers/stripe.provider.js';

/**
 * POST /api/payments/webhook: Stripe (or the local provider, signed the same way) tells us
 * about checkout sessions. The signature is checked on the raw bytes of the body.
 */
export function webhookRoutes(deps: PaymentsDeps): Router {
  const r = catalogueRoutes('payments');
  r.post('/api/payments/webhook', async (req, res) => {
    const signature = req.headers['stripe-signature'];
    if (typeof signature !== 'string' || !signature)
      throw AppError.invalid('Missing Stripe-Signature header.', undefined, 'invalid_signature');
    if (!req.rawBody)
      throw AppError.invalid(
        'The webhook body must be JSON (application/json).',
        undefined,
        'invalid_payload',
      );
    let event: ProviderEvent;
    try {
      event = verifyWebhook(req.rawBody, signature, deps.provider.webhookSecret);
    } catch (err) {
      if (!(err instanceof WebhookSignatureError))
        throw AppError.invalid('Not a provider event.', undefined, 'invalid_payload');
      deps.logger.warn({ err: err.message }, 'webhook signature refused');
      throw AppError.invalid(
        'Webhook signature verification failed.',
        undefined,
        'invalid_signature',
      );
    }
    const outcome = await applyProviderEvent(deps, event);
    res.json({ received: true, outcome });
  });
  return r.router;
}
