import { z } from 'zod';
import { baseConfigSchema, loadConfig, assertProductionSecrets } from '@htm/service-kit';
import { fileURLToPath } from 'node:url';

const defaultWebDist = fileURLToPath(new URL('../../../web/dist', import.meta.url));

export const gatewayConfigSchema = baseConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).default(8080),
  HOST: z.string().default('0.0.0.0'),
  JOBS_URL: z.string().url().default('http://127.0.0.1:8082'),
  PAYMENTS_URL: z.string().url().default('http://127.0.0.1:8083'),
  ADMIN_URL: z.string().url().default('http://127.0.0.1:8084'),
  /** Built web app served with SPA fallback. */
  WEB_DIST: z.string().default(defaultWebDist),
  /** Set when the web app is served from another origin: enables CORS for it. */
  WEB_ORIGIN: z.string().url().optional(),
  /** Prometheus metrics on a separate port (not reachable through the public one); 0 = any free port. */
  METRICS_PORT: z.coerce.number().int().min(0).default(9464),
  /** Metrics bind address: loopback by default; 0.0.0.0 in a cluster so Prometheus can scrape it. */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  UPLOAD_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  /** Per-IP limits per window (default one minute). */
  AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(120),
  FORM_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(20),
  /** Per-user (or per-IP when anonymous) cap on everything else. */
  API_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(1200),
  /** How often the gateway adds its API-limit counts to Redis (ms): the most a client can overshoot across replicas. */
  API_RATE_LIMIT_FLUSH_MS: z.coerce.number().int().min(10).max(5000).default(100),
  RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
  RATE_LIMIT_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
});
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  const cfg = loadConfig('gateway', gatewayConfigSchema, env);
  assertProductionSecrets({ ...cfg, DATABASE_URL: cfg.DATABASE_URL ?? 'not-needed://gateway' }, 'gateway');
  return cfg;
}
