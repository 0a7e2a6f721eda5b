import { z } from 'zod';
import {
  assertProductionSecrets,
  baseConfigSchema,
  eventBusConfigSchema,
  loadConfig,
  privacyKeyring,
} from '@htm/service-kit';

export const analyticsConfigSchema = baseConfigSchema
  .extend({
    PORT: z.coerce.number().int().min(0).default(8087),
  })
  .and(eventBusConfigSchema);
export type AnalyticsConfig = z.infer<typeof analyticsConfigSchema>;

export function loadAnalyticsConfig(
  env: Record<string, string | undefined> = process.env,
): AnalyticsConfig {
  const cfg = loadConfig('analytics', analyticsConfigSchema, env);
  privacyKeyring('analytics', cfg); // identity's /internal/privacy calls: its public key must be known
  assertProductionSecrets(cfg, 'analytics');
  return cfg;
}
