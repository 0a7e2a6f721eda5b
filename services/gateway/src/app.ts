import type { Express, Request, RequestHandler, Response } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  AppError,
  createHttpApp,
  Metrics,
  series,
  stampRequest,
  type Auth,
} from '@htm/service-kit';
import type { GatewayConfig } from './config.js';
import {
  matchRoute,
  pathExists,
  ROUTES,
  type RouteRule,
  type ServiceName,
} from './http/route-table.js';
import { bufferBody, createServiceProxy } from './http/proxy.js';
import { parseUpstreamList, UpstreamPool } from './http/upstreams.js';
import { createRateLimiters } from './http/rate-limits.js';
import { corsForWebOrigin, originCheck, securityHeaders } from './http/security.js';
import { healthChecker, publicHealth, type HealthReport } from './http/health.js';
import { serveWebApp } from './http/static.js';
import { mountApiDocs } from './http/openapi.js';
import { mountLiveRoutes, openStreamsOutsideExpress } from './live/live.routes.js';
import type { LiveHub } from './live/live-hub.js';
import type { LiveTickets } from './live/live-tickets.js';

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  auth: Auth;
  redis: Redis;
  metrics?: Metrics;
  /** Replicas of each service and their readiness (main starts and stops their health checks). */
  upstreams?: Record<ServiceName, UpstreamPool>;
  /** The live channel (POST /api/live/ticket, GET /api/live); absent when switched off. */
  live?: { hub: LiveHub; tickets: LiveTickets };
  /** Extra routes mounted before the proxy (OpenAPI document, docs page). */
  extraRoutes?: (app: Express) => void;
  /** The services' health (shared with the metrics port's detailed /healthz); built from the config when absent. */
  health?: () => Promise<HealthReport>;
}

const JSON_LIMIT_BYTES = 1024 * 1024;

/** Longest address the gateway forwards (the services parse at most 16 KiB of request head). */
const MAX_URL_LENGTH = 8 * 1024;
/** Request line + headers the gateway forwards; the proxy adds about 300 bytes of its own. */
const MAX_FORWARDED_HEAD_BYTES = 14 * 1024;
const headBytes = (raw: string[]) => raw.reduce((n, h) => n + h.length + 2, 0);

const refuseLargeJson: RequestHandler = (req, _res, next) => {
  const len = Number(req.headers['content-length'] ?? 0);
  next(
    len > JSON_LIMIT_BYTES
      ? new AppError('too_large', 'Request body is too large.', { code: 'too_large' })
      : undefined,
  );
};

/** One pool of replicas per service, from the `*_URL` settings. */
export function createUpstreamPools(
  config: GatewayConfig,
  logger?: Logger,
): Record<ServiceName, UpstreamPool> {
  const pool = (s: ServiceName, v: string) =>
    new UpstreamPool(s, parseUpstreamList(v), {
      healthIntervalMs: config.UPSTREAM_HEALTH_INTERVAL_MS,
      logger,
    });
  return {
    identity: pool('identity', config.IDENTITY_URL),
    jobs: pool('jobs', config.JOBS_URL),
    payments: pool('payments', config.PAYMENTS_URL),
    admin: pool('admin', config.ADMIN_URL),
    notifications: pool('notifications', config.NOTIFICATIONS_URL),
    analytics: pool('analytics', config.ANALYTICS_URL),
    'site-check': pool('site-check', config.SITE_CHECK_URL),
  };
}

/** The gateway: verifies tokens, rate-limits, proxies /api to the owning service, serves the web app. */
export function createGatewayApp(deps: GatewayDeps): Express {
  const { config, logger, auth } = deps;
  const targets: Record<ServiceName, string[]> = {
    identity: parseUpstreamList(config.IDENTITY_URL),
    jobs: parseUpstreamList(config.JOBS_URL),
    payments: parseUpstreamList(config.PAYMENTS_URL),
    admin: parseUpstreamList(config.ADMIN_URL),
    notifications: parseUpstreamList(config.NOTIFICATIONS_URL),
    analytics: parseUpstreamList(config.ANALYTICS_URL),
    'site-check': parseUpstreamList(config.SITE_CHECK_URL),
  };
  const pools = deps.upstreams ?? createUpstreamPools(config, logger);
  const keepBody = bufferBody(JSON_LIMIT_BYTES);
  const proxies = Object.fromEntries(
    (Object.keys(targets) as ServiceName[]).map((s) => [
      s,
      {
        normal: createServiceProxy(s, pools[s], config.UPSTREAM_TIMEOUT_MS, logger, 'pooled'),
        download: createServiceProxy(s, pools[s], config.UPSTREAM_TIMEOUT_MS, logger, 'streaming'),
        upload: createServiceProxy(s, pools[s], config.UPLOAD_TIMEOUT_MS, logger, 'streaming'),
      },
    ]),
  ) as unknown as Record<ServiceName, Record<'normal' | 'download' | 'upload', RequestHandler>>;
  const limiters = config.RATE_LIMIT_ENABLED
    ? createRateLimiters(config, deps.redis, logger)
    : undefined;

  const refuseCrossSite = originCheck(config);
  /** What a call to `rule` goes through once its route is known, composed once per route. */
  const pipelineFor = (rule: RouteRule): RequestHandler => {
    const steps: RequestHandler[] = [refuseCrossSite];
    if (!rule.upload) steps.push(refuseLargeJson);
    if (rule.access === 'user') steps.push(auth.authenticate);
    else if (rule.access === 'optional') steps.push(auth.optional);
    if (limiters && rule.rate !== 'none') steps.push(limiters[rule.rate]);
    // The body is read before a pooled connection is taken (and can go to another replica).
    if (!rule.upload) steps.push(keepBody);
    steps.push(
      proxies[rule.service][rule.upload ? 'upload' : rule.download ? 'download' : 'normal'],
    );
    return series(...steps);
  };
  /** Metrics label of each route, in express's form like the services' own (`/api/jobs/:id`). */
  const metricsRoute = new Map(
    ROUTES.map((rule) => [rule, rule.path.replace(/\{(\w+)\}/g, ':$1')]),
  );
  const pipelines = new Map(ROUTES.map((rule) => [rule, pipelineFor(rule)]));

  /**
   * Every proxied call, as one express layer: size of the request head, route rule, then that
   * route's pipeline (cross-site check, body size, token, rate limit, the owning service). A
   * path with no rule goes on to the gateway's own /api routes (health, docs), then 404/405.
   */
  const api: RequestHandler = (req, res, next) => {
    // Mounted at the root rather than under '/api', so express leaves req.url whole for the upstream.
    // `/r/{token}` is the share link's report page, rendered by jobs (in the catalogue like /api).
    const sharePage = req.url.startsWith('/r/');
    if (!req.url.startsWith('/api/') && !sharePage) return next();
    // Shared reports: never indexed, and the token in their address never sent on as a referrer.
    if (sharePage || req.url.startsWith('/api/shared/')) {
      res.setHeader('X-Robots-Tag', 'noindex, nofollow');
      res.setHeader('Referrer-Policy', 'no-referrer');
    }
    // Services accept the same header size as the gateway; leave room for what the proxy adds.
    if (req.originalUrl.length > MAX_URL_LENGTH)
      return next(
        new AppError('uri_too_long', 'The address is too long.', { code: 'uri_too_long' }),
      );
    if (headBytes(req.rawHeaders) + req.originalUrl.length > MAX_FORWARDED_HEAD_BYTES) {
      return next(
        new AppError('headers_too_large', 'The request line or headers are too large.', {
          code: 'headers_too_large',
        }),
      );
    }
    const rule = matchRoute(req.method, req.originalUrl.split('?')[0]);
    if (!rule) return next();
    res.locals.route = metricsRoute.get(rule);
    pipelines.get(rule)!(req, res, next);
  };

  // Security headers (+ CORS for WEB_ORIGIN) on every answer, then every proxied call: run in the
  // same express layer as the correlation id and metrics (createHttpApp's `first`).
  const first = series(
    securityHeaders(config),
    ...(config.WEB_ORIGIN ? [corsForWebOrigin(config)] : []),
    api,
  );
  const metrics = deps.metrics ?? new Metrics('gateway');
  const app = createHttpApp(
    {
      service: 'gateway',
      logger,
      metrics,
      trustProxy: config.TRUST_PROXY,
      bodyParsing: false,
      exposeMetrics: false,
      correlationContext: false,
      traceEdge: true,
      first,
    },
    (app) => {
      if (deps.live) {
        const ticketGuards = [
          refuseCrossSite,
          auth.authenticate,
          ...(limiters ? [limiters.api] : []),
        ];
        mountLiveRoutes(app, { ...deps.live, ticketGuards });
      }
      app.get(
        '/api/healthz',
        publicHealth(deps.health ?? healthChecker(targets, config.HEALTH_CACHE_MS)),
      );
      mountApiDocs(app);
      deps.extraRoutes?.(app);
      app.use('/internal', (_req, _res, next) =>
        next(AppError.notFound('Not found.', 'route_not_found')),
      );
      app.use('/api', (req, res, next) => {
        const path = req.originalUrl.split('?')[0];
        if (req.method === 'OPTIONS') return res.status(204).end();
        if (pathExists(path))
          return next(
            new AppError('method_not_allowed', `${req.method} is not allowed on ${path}.`),
          );
        return next(AppError.notFound(`No route for ${req.method} ${path}.`, 'route_not_found'));
      });
      serveWebApp(app, config.WEB_DIST, config);
    },
  );
  if (deps.live) {
    // What createHttpApp's first layer and `first` do to every answer, for the streams opened
    // outside express (live.routes.ts says why).
    const headers = securityHeaders(config);
    const cors = config.WEB_ORIGIN ? corsForWebOrigin(config) : undefined;
    const ignore = () => undefined;
    openStreamsOutsideExpress(app, {
      ...deps.live,
      prepare: (req, res) => {
        const q = req as Request;
        const r = res as unknown as Response;
        r.locals = { route: '/api/live' };
        stampRequest(q, r, metrics);
        headers(q, r, ignore);
        // cors answers a GET synchronously (a fixed list of origins).
        cors?.(q, r, ignore);
      },
    });
  }
  return app;
}
