import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import {
  createAuth,
  createLogger,
  createRequestRedis,
  flushTracing,
  listen,
  Metrics,
  RevokedSessions,
  type RunningServer,
  runMain,
  startTracingFromEnv,
} from '@htm/service-kit';
import { loadGatewayConfig, type GatewayConfig } from './config.js';
import { createGatewayApp, createUpstreamPools } from './app.js';
import { parseUpstreamList } from './http/upstreams.js';
import { detailedHealth, healthChecker } from './http/health.js';
import { createEventBus } from '@htm/events';
import { LiveFeed } from './live/live-feed.js';
import { LiveHub } from './live/live-hub.js';
import { LiveTickets } from './live/live-tickets.js';

export interface RunningGateway {
  url: string;
  port: number;
  config: GatewayConfig;
  server: RunningServer;
  metricsUrl?: string;
  /** This replica's open live streams (absent with LIVE_ENABLED=false). */
  liveHub?: LiveHub;
  /** The express app (tests walk its routes). */
  app: Express;
  stop(): Promise<void>;
}

/** Starts the gateway (PORT 0 = any free port). Used by main, `npm start` and tests. */
export async function startGateway(
  env: Record<string, string | undefined> = process.env,
  opts: { port?: number; host?: string; metricsPort?: number } = {},
): Promise<RunningGateway> {
  const config = loadGatewayConfig(env);
  const logger = createLogger('gateway', config.LOG_LEVEL);
  // OpenTelemetry only when OTEL_EXPORTER_OTLP_ENDPOINT is set: off, the request path has no tracing code.
  await startTracingFromEnv('gateway');
  // Auto-pipelining: rate-limit increments issued in the same tick share one write to Redis.
  // Every command is bounded (200 ms): a hung Redis costs a request at most that, and the limiter passes it.
  const redis = createRequestRedis(config.REDIS_URL, { enableAutoPipelining: true });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis (gateway) error'));
  // Revoked sessions are kept in memory (fed by Redis pub/sub): no Redis round trip per request.
  const revokedSessions = new RevokedSessions({
    redisUrl: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
    logger,
  });
  await revokedSessions.start();
  const auth = createAuth({
    jwksUrl:
      config.IDENTITY_JWKS_URL ?? `${parseUpstreamList(config.IDENTITY_URL)[0]}/internal/jwks`,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    revoked: revokedSessions,
  });
  const metrics = new Metrics('gateway', { defaultMetrics: true });
  const upstreams = createUpstreamPools(config, logger);
  for (const pool of Object.values(upstreams)) pool.start();
  const health = healthChecker(
    {
      identity: parseUpstreamList(config.IDENTITY_URL),
      jobs: parseUpstreamList(config.JOBS_URL),
      payments: parseUpstreamList(config.PAYMENTS_URL),
      admin: parseUpstreamList(config.ADMIN_URL),
      notifications: parseUpstreamList(config.NOTIFICATIONS_URL),
      analytics: parseUpstreamList(config.ANALYTICS_URL),
      'site-check': parseUpstreamList(config.SITE_CHECK_URL),
    },
    config.HEALTH_CACHE_MS,
  );
  const live = config.LIVE_ENABLED
    ? await startLive(config, logger, redis, revokedSessions, metrics)
    : undefined;
  const app = createGatewayApp({ config, logger, auth, redis, metrics, upstreams, health, live });
  const server = await listen(app, opts.port ?? config.PORT, opts.host ?? config.HOST);
  const metricsApp = express();
  metricsApp.get('/metrics', metrics.handler());
  metricsApp.get('/healthz', detailedHealth(health));
  const metricsServer = await listen(
    metricsApp,
    opts.metricsPort ?? config.METRICS_PORT,
    config.METRICS_HOST,
  ).catch((err) => {
    logger.warn(
      { err: (err as Error).message },
      'metrics port unavailable; gateway metrics not exposed',
    );
    return undefined;
  });
  logger.info({ url: server.url, metrics: metricsServer?.url }, 'gateway listening');
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port,
    config,
    server,
    metricsUrl: metricsServer?.url,
    liveHub: live?.hub,
    app,
    async stop() {
      // Open streams first: the server only closes once its connections have ended.
      await live?.stop();
      await server.close();
      for (const pool of Object.values(upstreams)) pool.stop();
      await metricsServer?.close();
      redis.disconnect();
      revokedSessions.stop();
      await flushTracing();
    },
  };
}

/** How long a live ticket's Redis command may take (see startLive). */
const LIVE_TICKET_REDIS_TIMEOUT_MS = 2000;

/** The live channel of this replica: the shared feed (consumer group) and this replica's hub. */
async function startLive(
  config: GatewayConfig,
  logger: ReturnType<typeof createLogger>,
  redis: ReturnType<typeof createRequestRedis>,
  revoked: RevokedSessions,
  metrics: Metrics,
) {
  const bus = createEventBus(config, logger, { clientId: 'gateway' });
  const rejected = metrics.counter(
    'events_rejected_total',
    'Events refused before their handler ran, by reason (invalid, source_not_owner, wrong_stream)',
    ['reason'],
  );
  const feed = new LiveFeed({
    bus,
    redis,
    prefix: config.REDIS_PREFIX,
    historyMs: config.LIVE_HISTORY_MS,
    logger,
    onRejected: (reason) => rejected.labels({ reason }).inc(),
  });
  const hub = new LiveHub({
    redisUrl: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
    logger,
    revoked,
    pingMs: config.LIVE_PING_MS,
    maxPerUser: config.LIVE_MAX_STREAMS_PER_USER,
    maxTotal: config.LIVE_MAX_STREAMS,
    historyMs: config.LIVE_HISTORY_MS,
  });
  // Tickets on a connection of their own, bounded at 2 s rather than the request path's 200 ms:
  // when thousands of streams reconnect at once the event loop itself can lag past 200 ms, and a
  // bound that short turned answers already on their way into 503s (after GETDEL had used the
  // ticket up). Opening a stream is not the proxy path: a short wait there costs nobody else.
  const ticketRedis = createRequestRedis(config.REDIS_URL, {
    commandTimeout: LIVE_TICKET_REDIS_TIMEOUT_MS,
  });
  ticketRedis.on('error', (err) => logger.warn({ err: err.message }, 'redis (live tickets) error'));
  // Neither waits for Redis or Kafka: the gateway serves (and proxies) while they are away.
  hub.start();
  let stopped = false;
  const feedStarted = (async () => {
    for (let attempt = 0; !stopped; attempt++) {
      try {
        await feed.start();
        return;
      } catch (err) {
        if (stopped) return;
        logger.warn({ err: (err as Error).message }, 'live feed not started; retrying');
        await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** attempt, 10_000)).unref());
      }
    }
  })();
  const bounded = (p: Promise<unknown>) =>
    Promise.race([p.catch(() => undefined), new Promise((r) => setTimeout(r, 2000).unref())]);
  return {
    hub,
    tickets: new LiveTickets(ticketRedis, config.REDIS_PREFIX, revoked),
    async stop() {
      stopped = true;
      await hub.stop();
      ticketRedis.disconnect();
      await bounded(bus.close()); // also ends a feed still waiting to start
      await bounded(feedStarted);
      await bounded(feed.stop());
    },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runMain('gateway', () => startGateway());
}
