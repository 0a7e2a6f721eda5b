import type { ServiceContext } from '@htm/events';
import type { Redis } from '@htm/service-kit';
import type { IdentityConfig } from './config.js';
import type { KeyStore } from './providers/signing-keys.js';
import type { PrivacyClient } from './clients/privacy.client.js';

/** Everything the identity routes and use cases need (built once in main.ts). */
export type IdentityDeps = ServiceContext<IdentityConfig> & {
  /** Access-token signing keys (also verify identity's own tokens). */
  keys: KeyStore;
  /** Rate-limit counters. */
  redis: Redis;
  /** The other services' /internal/privacy routes (export parts, deletion blockers, erasure answers). */
  privacy: PrivacyClient;
};
