import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { CORRELATION_HEADER, runWithCorrelation, sanitizeCorrelationId } from './context.js';
import { errorMiddleware, notFoundHandler, refuseNul } from './errors.js';
import { createLogger } from './logger.js';
import { Metrics } from './metrics.js';
import { traceRequests, tracingEnabled } from './tracing.js';

export type ReadinessCheck = () => Promise<unknown>;

export interface HttpAppOptions {
  service: string;
  logger: Logger;
  /** Named checks for /readyz; each resolves when its dependency answers. */
  readiness?: Record<string, ReadinessCheck>;
  metrics?: Metrics;
  jsonLimit?: string;
  /** express's `trust proxy`: true (one hop), a hop count, or addresses/subnets of known proxies. */
  trustProxy?: boolean | number | string;
  /** Log each request (off in benchmarks). */
  requestLogging?: boolean;
  /** Serve /metrics on this app (off for the public gateway, which has its own metrics port). */
  exposeMetrics?: boolean;
  /** Parse JSON/urlencoded bodies (the gateway streams bodies through untouched). */
  bodyParsing?: boolean;
  /**
   * Run each request inside an AsyncLocalStorage context carrying its correlation id, so every
   * log line and outgoing call made for it carries the id (default). The gateway turns it off:
   * it calls no service on a request's behalf except through the proxy, which forwards the id
   * from the request, and its request log lines name the id themselves; Node 20's
   * AsyncLocalStorage adds a hook to every promise, a cost the gateway pays on every request.
   */
  correlationContext?: boolean;
  /**
   * Runs on every request right after the correlation id and metrics, before /healthz and the
   * routes of `mount` (the gateway's security headers and proxied calls). In the same express
   * layer as the correlation id when no tracing or request logging has to come in between: each
   * express 5 layer costs several µs per request.
   */
  first?: RequestHandler;
  /**
   * The public edge (the gateway): with tracing on, every request starts a new trace and a
   * caller's `traceparent` is kept only as a span link (see traceRequests).
   */
  traceEdge?: boolean;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** The exact bytes of a JSON body (for webhook signatures). */
    rawBody?: Buffer;
    correlationId: string;
  }
}

/**
 * Set when the process received SIGTERM: every /readyz of the process answers 503 from then on,
 * so load balancers (the gateway, Kubernetes) stop sending new requests while the server still
 * serves, for SHUTDOWN_DRAIN_MS, before it stops listening (see runMain).
 */
let draining = false;
export function startDraining(): void {
  draining = true;
}
export function isDraining(): boolean {
  return draining;
}

/**
 * A request address as it may be logged: the path, and the query's parameter names with their
 * values replaced (`?sig=`, OAuth `code`/`state`, e-mails of the dev sign-in never reach logs).
 */
export function redactUrl(url: string | undefined): string {
  if (!url) return '';
  const q = url.indexOf('?');
  if (q < 0) return url;
  const names = url
    .slice(q + 1)
    .split('&')
    .filter(Boolean)
    .map((pair) => `${pair.split('=')[0].slice(0, 40)}=[redacted]`);
  return `${url.slice(0, q)}?${names.join('&')}`;
}

/**
 * What every request gets before anything else: its correlation id (the caller's if it is a sane
 * one, else a new one; echoed in X-Correlation-Id), `Connection: close` while the process drains
 * (callers then open new connections, to the replicas still ready) and its metrics. createHttpApp's
 * first layer, and the gateway's live streams, which open before express (live.routes.ts).
 */
export function stampRequest(req: Request, res: Response, metrics: Metrics): string {
  const id = sanitizeCorrelationId(req.headers[CORRELATION_HEADER]);
  req.correlationId = id;
  req.headers[CORRELATION_HEADER] = id;
  res.setHeader('X-Correlation-Id', id);
  if (draining) res.setHeader('Connection', 'close');
  metrics.track(req, res);
  return id;
}

/**
 * The express app every service starts from: correlation id, structured request logs,
 * metrics, JSON bodies (1 MB), /healthz, /readyz, then `mount(app)`, then JSON 404 and the
 * one error middleware. No listen(): tests and `npm start` share this wiring.
 */
export function createHttpApp(opts: HttpAppOptions, mount: (app: Express) => void): Express {
  const app = express();
  app.disable('x-powered-by');
  // API answers are small and uncached: hashing every body for a weak ETag is wasted work.
  app.set('etag', false);
  app.set('trust proxy', opts.trustProxy === true ? 1 : (opts.trustProxy ?? false));
  app.set('query parser', 'simple');

  const metrics = opts.metrics ?? new Metrics(opts.service);
  const context = opts.correlationContext !== false;
  // One layer for what every request needs first (each express layer costs a few µs per request).
  const tracing = tracingEnabled();
  const requestLogging = opts.requestLogging !== false && opts.logger.level !== 'silent';
  // Folded into the first layer only when nothing else must run between the two.
  const folded = opts.first && !context && !tracing && !requestLogging ? opts.first : undefined;
  app.use((req, res, next) => {
    const id = stampRequest(req, res, metrics);
    if (context) runWithCorrelation(id, next);
    else if (folded) callHandler(folded, req, res, next);
    else next();
  });
  // Only when tracing is on (decided at start): off, requests pay nothing for it.
  if (tracing) app.use(traceRequests(opts.service, { edge: opts.traceEdge }));
  if (requestLogging) {
    app.use(
      pinoHttp({
        logger: opts.logger,
        genReqId: (req) => (req as Request).correlationId,
        customLogLevel: (_req, res, err) =>
          err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'info' : 'debug',
        autoLogging: {
          ignore: (req) =>
            req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics',
        },
        serializers: {
          req: (req) => ({ method: req.method, url: redactUrl(req.url) }),
          res: (res) => ({ statusCode: res.statusCode }),
        },
      }),
    );
  }

  if (opts.first && !folded) app.use(opts.first);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', service: opts.service });
  });
  app.get('/readyz', async (_req, res) => {
    if (draining) {
      res.status(503).json({ status: 'draining', service: opts.service, checks: {} });
      return;
    }
    const checks: Record<string, string> = {};
    let ok = true;
    await Promise.all(
      Object.entries(opts.readiness ?? {}).map(async ([name, check]) => {
        try {
          await withTimeout(check(), 2000);
          checks[name] = 'ok';
        } catch (err) {
          ok = false;
          checks[name] = err instanceof Error ? err.message.slice(0, 200) : 'failed';
        }
      }),
    );
    res
      .status(ok ? 200 : 503)
      .json({ status: ok ? 'ok' : 'unavailable', service: opts.service, checks });
  });
  if (opts.exposeMetrics !== false) app.get('/metrics', metrics.handler());

  if (opts.bodyParsing !== false) {
    const parseBody = series(
      express.json({
        limit: opts.jsonLimit ?? '1mb',
        verify: (req, _res, buf) => {
          (req as Request).rawBody = buf;
        },
      }),
      express.urlencoded({ extended: false, limit: '100kb' }),
      refuseNul,
    );
    // No route reads a GET or HEAD body: those skip the parsers (their query strings are still checked).
    app.use((req, res, next) =>
      req.method === 'GET' || req.method === 'HEAD'
        ? refuseNul(req, res, next)
        : parseBody(req, res, next),
    );
  }

  mount(app);

  app.use(notFoundHandler);
  app.use(errorMiddleware(opts.logger));
  return app;
}

/** Calls one middleware as express would: a throw or a rejected promise goes to `next`. */
function callHandler(
  h: RequestHandler,
  req: Request,
  res: import('express').Response,
  next: import('express').NextFunction,
): void {
  try {
    const ret: unknown = h(req, res, next);
    if (ret instanceof Promise) ret.catch((e: unknown) => next(e ?? new Error('Rejected promise')));
  } catch (e) {
    next(e);
  }
}

/** Middlewares run one after another as one express layer (an error skips the rest). */
export function series(...handlers: RequestHandler[]): RequestHandler {
  if (handlers.length === 1) return handlers[0];
  return (req, res, next) => {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null) return next(err);
      const h = handlers[i++];
      if (!h) return next();
      callHandler(h, req, res, step);
    };
    step();
  };
}

export function withTimeout<T>(p: Promise<T>, ms: number, what = 'timed out'): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(what)), ms);
    }),
  ]);
}

/**
 * A free TCP port on loopback (for starting several servers whose URLs must be known up front).
 * Chosen below the kernel's ephemeral range (32768-60999 on Linux): a port from that range can be
 * taken by any outgoing connection between this probe and the real listen (seen as EADDRINUSE in CI
 * while another suite made thousands of requests). Random picks in 20000-32767 collide only with
 * other picks, and each is bound once here to be sure it is free now.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_768);
    if (await canBind(port)) return port;
  }
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createNetServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

/** A request line or headers HTTP cannot parse: answered in the JSON error shape, not Node's bare text. */
function clientErrorBody(code: string | undefined): {
  status: number;
  reason: string;
  body: { detail: string; code: string };
} {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      reason: 'Request Header Fields Too Large',
      body: { detail: 'The request line or headers are too large.', code: 'headers_too_large' },
    };
  }
  return {
    status: 400,
    reason: 'Bad Request',
    body: { detail: 'The request could not be understood.', code: 'bad_request' },
  };
}

export function answerClientError(
  err: Error & { code?: string },
  socket: import('node:stream').Duplex,
): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, reason, body } = clientErrorBody(err.code);
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
  );
}

/**
 * How many connections may wait to be accepted. Node's default (511) is below a burst of testers
 * claiming at once: past it the kernel drops SYNs and each dropped client waits out TCP's 1 s,
 * then 3 s retransmission (the claim storm's 1,000 connections saw p50 3.5 s, p99 5 s). The
 * kernel caps it at net.core.somaxconn.
 */
export const LISTEN_BACKLOG = 4096;

/** Listens on host:port (0 = any free port) and resolves once it accepts connections. */
export async function listen(app: Express, port = 0, host = '127.0.0.1'): Promise<RunningServer> {
  const server = createServer(app);
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    server,
    port: actual,
    url: `http://${host}:${actual}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 5000).unref();
      }),
  };
}

/**
 * Graceful shutdown on SIGTERM/SIGINT: runs the steps in order (stop HTTP, close workers and
 * consumers, flush the outbox relay, close connections), each bounded in time.
 */
export function onShutdown(
  logger: Logger,
  steps: Array<[string, () => Promise<unknown>]>,
): () => Promise<void> {
  let running: Promise<void> | undefined;
  const run = () =>
    (running ??= (async () => {
      for (const [name, step] of steps) {
        try {
          await withTimeout(step(), 10_000, `${name} did not finish in 10 s`);
          logger.info({ step: name }, 'shutdown step done');
        } catch (err) {
          logger.error({ err, step: name }, 'shutdown step failed');
        }
      }
    })());
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      logger.info({ signal: sig }, 'shutting down');
      void run().then(() => process.exit(0));
    });
  }
  return run;
}

/** SHUTDOWN_DRAIN_MS: how long a stopping process keeps serving with readiness down (default 0). */
export function shutdownDrainMs(env: Record<string, string | undefined>): number {
  const v = Number(env.SHUTDOWN_DRAIN_MS ?? 0);
  if (!Number.isInteger(v) || v < 0 || v > 9000)
    throw new Error('SHUTDOWN_DRAIN_MS: must be a whole number of milliseconds from 0 to 9000');
  return v;
}

/**
 * A process entry point: installs graceful shutdown before starting, so a signal that arrives
 * during start-up is handled too, then starts; a failed start logs one fatal line and exits 1.
 */
export async function runMain(
  name: string,
  start: () => Promise<{ stop(): Promise<void> }>,
): Promise<void> {
  const logger = createLogger(name);
  const running: { service?: { stop(): Promise<void> } } = {};
  const drainMs = shutdownDrainMs(process.env);
  onShutdown(logger, [
    // Readiness drops first; requests keep being served until the balancers have noticed.
    [
      'drain',
      async () => {
        startDraining();
        if (drainMs > 0 && running.service) await new Promise((r) => setTimeout(r, drainMs));
      },
    ],
    [name, async () => running.service?.stop()],
  ]);
  try {
    running.service = await start();
  } catch (err) {
    logger.fatal({ err }, `${name} failed to start`);
    process.exit(1);
  }
}
