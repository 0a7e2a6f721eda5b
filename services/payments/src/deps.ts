import type { ServiceContext } from '@htm/events';
import type { PaymentsConfig } from './config.js';
import type { ProviderLookupCache } from './domain/provider-cache.js';
import type { PaymentProvider } from './providers/provider.js';

/** Everything the payments routes and use cases need (built once in main.ts). */
export interface PaymentsDeps extends ServiceContext<PaymentsConfig> {
  provider: PaymentProvider;
  /** Provider look-ups reused for a few seconds (Stripe only; provider-cache.ts). */
  lookups: ProviderLookupCache;
}
