import { fileURLToPath } from 'node:url';
import express from 'express';
import { createAuth, createLogger, createRedis, listen, Metrics, RevokedSessions, type RunningServer, runMain } from '@htm/service-kit';
import { loadGatewayConfig, type GatewayConfig } from './config.js';
import { createGatewayApp } from './app.js';

export interface RunningGateway {
  url: string;
  port: number;
  config: GatewayConfig;
  server: RunningServer;
  metricsUrl?: string;
  stop(): Promise<void>;
}

/** Starts the gateway (PORT 0 = any free port). Used by main, `npm start` and tests. */
export async function startGateway(env: Record<string, string | undefined> = process.env, opts: { port?: number; host?: string; metricsPort?: number } = {}): Promise<RunningGateway> {
  const config = loadGatewayConfig(env);
  const logger = createLogger('gateway', config.LOG_LEVEL);
  // Auto-pipelining: rate-limit increments issued in the same tick share one write to Redis.
  const redis = createRedis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableAutoPipelining: true });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis (gateway) error'));
  // Revoked sessions are kept in memory (fed by Redis pub/sub): no Redis round trip per request.
  const revokedSessions = new RevokedSessions({ redisUrl: config.REDIS_URL, prefix: config.REDIS_PREFIX, logger });
  await revokedSessions.start();
  const auth = createAuth({
    jwksUrl: config.IDENTITY_JWKS_URL ?? `${config.IDENTITY_URL}/internal/jwks`,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    revoked: revokedSessions,
  });
  const metrics = new Metrics('gateway', { defaultMetrics: true });
  const app = createGatewayApp({ config, logger, auth, redis, metrics });
  const server = await listen(app, opts.port ?? config.PORT, opts.host ?? config.HOST);
  const metricsApp = express();
  metricsApp.get('/metrics', metrics.handler());
  const metricsServer = await listen(metricsApp, opts.metricsPort ?? config.METRICS_PORT, config.METRICS_HOST).catch((err) => {
    logger.warn({ err: (err as Error).message }, 'metrics port unavailable; gateway metrics not exposed');
    return undefined;
  });
  logger.info({ url: server.url, metrics: metricsServer?.url }, 'gateway listening');
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port,
    config,
    server,
    metricsUrl: metricsServer?.url,
    async stop() {
      await server.close();
      await metricsServer?.close();
      redis.disconnect();
      revokedSessions.stop();
    },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runMain('gateway', () => startGateway());
}
