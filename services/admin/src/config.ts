import { z } from 'zod';
import {
  baseConfigSchema,
  eventBusConfigSchema,
  loadConfig,
  assertProductionSecrets,
  ServiceKeyring,
  privacyKeyring,
} from '@htm/service-kit';

export const adminConfigSchema = baseConfigSchema
  .extend({
    PORT: z.coerce.number().int().min(0).default(8084),
    JOBS_URL: z.string().url().default('http://127.0.0.1:8082'),
  })
  .and(eventBusConfigSchema);
export type AdminConfig = z.infer<typeof adminConfigSchema>;

export function loadAdminConfig(
  env: Record<string, string | undefined> = process.env,
): AdminConfig {
  const cfg = loadConfig('admin', adminConfigSchema, env);
  assertProductionSecrets(cfg, 'admin');
  adminServiceKeys(cfg); // a missing or bad service-token key stops the service here
  privacyKeyring('admin', cfg); // identity's /internal/privacy calls: its public key must be known
  return cfg;
}

/** admin signs its one call to jobs (/internal/jobs/clear). */
export function adminServiceKeys(cfg: AdminConfig): ServiceKeyring {
  return ServiceKeyring.fromConfig('admin', cfg, { signs: true });
}
