import type { Db } from '@htm/service-kit';
import type { PaymentsConfig } from '../config.js';
import { LocalProvider } from './local.provider.js';
import type { PaymentProvider } from './provider.js';
import { StripeProvider } from './stripe.provider.js';

export function createProvider(cfg: PaymentsConfig, db: Db): PaymentProvider {
  return cfg.PAYMENTS_PROVIDER === 'stripe'
    ? new StripeProvider(cfg)
    : new LocalProvider(db, cfg.LOCAL_WEBHOOK_SECRET);
}
