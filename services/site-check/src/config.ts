import { z } from 'zod';
import {
  assertProductionSecrets,
  baseConfigSchema,
  ConfigError,
  envBool,
  eventBusConfigSchema,
  loadConfig,
} from '@htm/service-kit';

const ms = (def: number) => z.coerce.number().int().min(1).default(def);

export const siteCheckConfigSchema = baseConfigSchema
  .extend({
    PORT: z.coerce.number().int().min(0).default(8088),
    /** Debian's Chromium; without it the service runs but every check ends `unavailable`. */
    SITE_CHECK_CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
    /** Checks one replica runs at once (each is one browser). */
    SITE_CHECK_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(1),
    /** Each page load (and each Lighthouse run) at one size, in ms: then the check ends timed_out. */
    SITE_CHECK_PAGE_TIMEOUT_MS: ms(60_000),
    /** The whole check (two sizes, links, two Lighthouse runs), in ms: the browser is killed past it. */
    SITE_CHECK_TIMEOUT_MS: ms(240_000),
    /** Memory of all the browser's processes of one check (MB): above it the check ends too_large. */
    SITE_CHECK_MEMORY_LIMIT_MB: z.coerce.number().int().min(128).default(1536),
    /** Lighthouse's lab performance at each size (off: the rest of the check only). */
    SITE_CHECK_LIGHTHOUSE: envBool.default(true),
    /** Same-origin links checked per page (HEAD, then GET). */
    SITE_CHECK_MAX_LINKS: z.coerce.number().int().min(0).max(200).default(25),
    /** How often a worker looks for pending checks (ms). */
    SITE_CHECK_POLL_MS: ms(1000),
    /** Tests only, refused in production: the check may reach loopback and private addresses. */
    SITE_CHECK_ALLOW_PRIVATE: envBool.default(false),
  })
  .and(eventBusConfigSchema);
export type SiteCheckConfig = z.infer<typeof siteCheckConfigSchema>;

export function loadSiteCheckConfig(
  env: Record<string, string | undefined> = process.env,
): SiteCheckConfig {
  const cfg = loadConfig('site-check', siteCheckConfigSchema, env);
  assertProductionSecrets(cfg, 'site-check');
  if (cfg.NODE_ENV === 'production' && cfg.SITE_CHECK_ALLOW_PRIVATE)
    throw new ConfigError('site-check', [
      'SITE_CHECK_ALLOW_PRIVATE: must not be true in production (the check could reach internal addresses)',
    ]);
  return cfg;
}
