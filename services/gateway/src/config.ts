import { z } from 'zod';
import { baseConfigSchema, eventBusConfigSchema, loadConfig } from '@htm/service-kit';
import { fileURLToPath } from 'node:url';
import { parseUpstreamList } from './http/upstreams.js';

/** One upstream URL or several (a service's replicas), comma-separated. */
const upstreamList = (def: string) =>
  z
    .string()
    .default(def)
    .refine(
      (v) =>
        parseUpstreamList(v).length > 0 &&
        parseUpstreamList(v).every((u) => z.string().url().safeParse(u).success),
      {
        error: 'must be a URL or a comma-separated list of URLs',
      },
    );

const defaultWebDist = fileURLToPath(new URL('../../../web/dist', import.meta.url));

export const gatewayConfigSchema = baseConfigSchema
  .omit({
    SERVICE_TOKEN_SECRET: true,
    SERVICE_TOKEN_PREVIOUS_SECRET: true,
    SERVICE_TOKEN_PRIVATE_KEY: true,
    SERVICE_TOKEN_PUBLIC_KEYS: true,
  })
  .extend({
    PORT: z.coerce.number().int().min(0).default(8080),
    HOST: z.string().default('0.0.0.0'),
    /** Identity's base URL (JWKS at /internal/jwks; the gateway proxies to it). The gateway also takes its replicas comma-separated (then set IDENTITY_JWKS_URL to a stable address). */
    IDENTITY_URL: upstreamList('http://127.0.0.1:8081'),
    /**
     * Where each service answers (JOBS_URL, PAYMENTS_URL, ADMIN_URL): one URL, or for the gateway the
     * URLs of its replicas comma-separated; the gateway balances over those whose /readyz answers 200
     * (see UPSTREAM_HEALTH_INTERVAL_MS).
     */
    JOBS_URL: upstreamList('http://127.0.0.1:8082'),
    PAYMENTS_URL: upstreamList('http://127.0.0.1:8083'),
    ADMIN_URL: upstreamList('http://127.0.0.1:8084'),
    NOTIFICATIONS_URL: upstreamList('http://127.0.0.1:8086'),
    ANALYTICS_URL: upstreamList('http://127.0.0.1:8087'),
    SITE_CHECK_URL: upstreamList('http://127.0.0.1:8088'),
    /** How often the gateway asks each replica's /readyz when a service has several (ms). */
    UPSTREAM_HEALTH_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
    /** Built web app served with SPA fallback. */
    WEB_DIST: z.string().default(defaultWebDist),
    /**
     * Who runs the product, as the public pages' footer and the policy pages name it (e.g.
     * "Example Labs LLC"). Not set: no operator line is shown.
     */
    OPERATOR_NAME: z.string().trim().min(1).max(200).optional(),
    /** The operator's postal address for the policy pages (one line). Not set: not shown. */
    OPERATOR_ADDRESS: z.string().trim().min(1).max(300).optional(),
    /** The contact e-mail the footer, the policy pages and the developer form show. Not set: none is shown. */
    SUPPORT_EMAIL: z.string().trim().email().max(254).optional(),
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
    /** Per-user cap on routes that may call the payment provider (checkout status, payout account). */
    PROVIDER_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(120),
    /** Per-user (or per-IP when anonymous) cap on everything else. */
    API_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(1200),
    /** How often the gateway adds its API-limit counts to Redis (ms): the most a client can overshoot across replicas. */
    API_RATE_LIMIT_FLUSH_MS: z.coerce.number().int().min(10).max(5000).default(100),
    RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
    /**
     * Whether to believe X-Forwarded-For / -Proto / -Host (client address for rate limits): only
     * behind a known proxy. `false` (default: the gateway is the edge), `true` (one hop), a hop
     * count, or the proxies' addresses/subnets (`10.0.0.0/8, 192.168.1.5`).
     */
    TRUST_PROXY: z
      .string()
      .trim()
      .default('false')
      .transform((v): boolean | number | string =>
        v === 'false' || v === '0' || v === ''
          ? false
          : v === 'true'
            ? true
            : /^\d+$/.test(v)
              ? Number(v)
              : v,
      ),
    /** How long GET /api/healthz reuses one look at the services (ms): its fan-out is never per request. */
    HEALTH_CACHE_MS: z.coerce.number().int().min(0).default(2000),
    /** The live channel (Server-Sent Events at /api/live). */
    LIVE_ENABLED: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    /** Open live streams per user on one replica, and in total on one replica. */
    LIVE_MAX_STREAMS_PER_USER: z.coerce.number().int().positive().default(5),
    LIVE_MAX_STREAMS: z.coerce.number().int().positive().default(10_000),
    /** A `: ping` comment on every open stream this often (ms). */
    LIVE_PING_MS: z.coerce.number().int().min(100).max(25_000).default(20_000),
    /** How long live messages are kept for Last-Event-ID resume (ms; at least 5 minutes). */
    LIVE_HISTORY_MS: z.coerce.number().int().min(300_000).default(600_000),
    RATE_LIMIT_ENABLED: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
  })
  .and(eventBusConfigSchema);
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export function loadGatewayConfig(
  env: Record<string, string | undefined> = process.env,
): GatewayConfig {
  // The gateway holds no secret: it verifies access tokens with identity's public keys and
  // never calls an /internal route, so it needs no service token.
  return loadConfig('gateway', gatewayConfigSchema, env);
}
