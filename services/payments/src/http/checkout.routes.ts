import { Router } from 'express';
import { checkoutSessionIdSchema, createCheckoutSessionBodySchema } from '@htm/contracts';
import {
  AppError,
  callerOf,
  catalogueRoutes,
  parseOrThrow,
  requireServiceToken,
} from '@htm/service-kit';
import type { PaymentsDeps } from '../deps.js';
import { paymentsServiceKeys } from '../config.js';
import { createCheckout } from '../domain/create-checkout.js';
import { getCheckoutStatus } from '../domain/checkout-status.js';

export function checkoutRoutes(deps: PaymentsDeps): Router {
  const r = catalogueRoutes('payments');

  // jobs asks for a $1 checkout when a job is posted (service token, never proxied).
  r.post(
    '/internal/checkout-sessions',
    requireServiceToken(paymentsServiceKeys(deps.config), ['jobs']),
    async (req, res) => {
      const body = parseOrThrow(createCheckoutSessionBodySchema, req.body);
      res.json(await createCheckout(deps, body));
    },
  );

  r.get('/api/payments/checkout/status/{session_id}', deps.auth.authenticate, async (req, res) => {
    const caller = callerOf(req);
    const id = checkoutSessionIdSchema.safeParse(req.params.session_id);
    if (!id.success) throw AppError.notFound('No such checkout session.', 'session_not_found');
    res.json(await getCheckoutStatus(deps, caller, id.data));
  });

  return r.router;
}
