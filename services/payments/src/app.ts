import type { Express } from 'express';
import type { PaymentsDeps } from './deps.js';
import { checkoutRoutes } from './http/checkout.routes.js';
import { webhookRoutes } from './http/webhook.routes.js';
import { localCheckoutRoutes } from './http/local-checkout.routes.js';
import { earningsRoutes } from './http/earnings.routes.js';
import { payoutRoutes } from './http/payouts.routes.js';
import { assertRoutesCatalogued, privacyKeyring, privacyRoutes } from '@htm/service-kit';
import { paymentsPrivacyAnswers } from './domain/privacy.js';

export type { PaymentsDeps };

/** The payments service's routes (health, errors and 404 come from createHttp). */
export function mountPayments(app: Express, deps: PaymentsDeps): void {
  app.use(webhookRoutes(deps));
  app.use(checkoutRoutes(deps));
  app.use(localCheckoutRoutes(deps));
  app.use(earningsRoutes(deps));
  app.use(payoutRoutes(deps));
  app.use(privacyRoutes(privacyKeyring('payments', deps.config), paymentsPrivacyAnswers(deps)));
  // A route without its catalogue entry, or an operation of this service without its route, stops the start.
  assertRoutesCatalogued(app, 'payments');
}
