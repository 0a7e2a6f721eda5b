import {
  createProxyMiddleware,
  debugProxyErrorsPlugin,
  proxyEventsPlugin,
  type Options,
  type Plugin,
} from 'http-proxy-middleware';
import { Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import { parse as parseUrl } from 'node:url';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { redactUrl } from '@htm/service-kit';
import type { ServiceName } from './route-table.js';
import type { UpstreamPool } from './upstreams.js';

/** Per-request proxy state: the replicas tried so far and the body kept for a retry. */
interface ProxiedRequest extends Request {
  upstreamTried?: Set<string>;
  upstreamTarget?: string;
  /** The last attempt went out on a kept-alive connection (which the replica may have closed meanwhile). */
  upstreamReused?: boolean;
  /** The whole request body, read before proxying (see bufferBody). */
  bufferedBody?: Buffer;
}

const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE']);

/**
 * Reads the request body into memory before proxying (JSON bodies, at most `limitBytes`): a slow
 * client then never holds one of the pooled connections to a service while it sends, and a request
 * refused by one replica can be sent again to another. Not for uploads, which keep streaming.
 */
export function bufferBody(limitBytes: number): import('express').RequestHandler {
  return (req, res, next) => {
    if (
      BODYLESS.has(req.method) &&
      !req.headers['content-length'] &&
      !req.headers['transfer-encoding']
    )
      return next();
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limitBytes && !done) {
        done = true;
        sendError(res, 413, 'Request body is too large.', 'too_large');
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      (req as ProxiedRequest).bufferedBody = Buffer.concat(chunks);
      next();
    });
    req.on('error', (err) => {
      if (!done) {
        done = true;
        next(err);
      }
    });
  };
}

function sendError(res: ServerResponse | Socket, status: number, detail: string, code: string) {
  if (!('setHeader' in res)) {
    res.destroy();
    return;
  }
  if (res.headersSent) {
    res.end();
    return;
  }
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify({ detail, code }));
}

/**
 * Sets what the service is told about the request on the request itself, before http-proxy copies
 * its headers: our correlation id and the client's address (never the client's own
 * X-Forwarded-*), and for a body read already, its exact length. Returns that body.
 */
function forwardHeaders(r: ProxiedRequest): Buffer | undefined {
  const h = r.headers;
  h['x-correlation-id'] = r.correlationId;
  h['x-forwarded-for'] = r.ip ?? r.socket.remoteAddress ?? '';
  h['x-forwarded-proto'] = r.protocol;
  h['x-forwarded-host'] = h.host ?? '';
  const body = r.bufferedBody;
  if (body) {
    delete h['transfer-encoding'];
    h['content-length'] = String(body.length);
  }
  return body;
}

/**
 * Keep-alive connections to each service (idle sockets follow the services' Keep-Alive timeout
 * hint), in two kinds:
 * - `pooled`: API calls, whose body the gateway holds already (bufferBody) and whose answer is a
 *   small JSON document, so a connection is busy only while the service works. At most 64 per
 *   service replica, all kept open: in a burst of 1,000 calls the rest wait their turn in the
 *   gateway (cheap) instead of opening hundreds of new connections to the service. Measured in
 *   the claim-storm bench (1,000 reads at once through a bare proxy): 64 sockets 1.4 s, 256 sockets
 *   2.7-3.1 s of wall time.
 * - `streaming`: uploads, downloads and exports, which a slow client may keep busy for minutes;
 *   no limit, so they never hold up API calls.
 */
export const UPSTREAM_AGENTS = {
  pooled: new Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64 }),
  streaming: new Agent({ keepAlive: true, maxFreeSockets: 16 }),
} as const;
export type UpstreamAgentKind = keyof typeof UPSTREAM_AGENTS;

/**
 * Streams the request to the owning service untouched (bodies are not parsed here), with the
 * correlation id and the client address set by us (never the client's own X-Forwarded-For).
 * A service that is down answers 503, one that hangs 504, within the timeout.
 *
 * With several replicas (`pool`), each request goes to the next ready one; a replica that refuses
 * the connection (stopped, restarting, crashed) never saw the request, so the request is sent to
 * the next replica when it can be sent again: no body, or a body kept by bufferBody.
 */
export function createServiceProxy(
  service: ServiceName,
  pool: UpstreamPool,
  timeoutMs: number,
  logger: Logger,
  agentKind: UpstreamAgentKind = 'pooled',
): RequestHandler {
  /** http-proxy's server inside http-proxy-middleware, with the middleware's plugins and our events on it. */
  let server: Parameters<Plugin<IncomingMessage, ServerResponse>>[0] | undefined;
  const options = {
    target: pool.urls[0],
    changeOrigin: false,
    xfwd: false,
    proxyTimeout: timeoutMs,
    // Without an agent http-proxy sends `Connection: close` upstream and copies the upstream's
    // `Connection: close` to the client: a new TCP connection on both hops for every request.
    agent: UPSTREAM_AGENTS[agentKind],
    // The default plugins minus the logger, which builds a URL for every answer only to hand it
    // to a logger that discards it; failures are logged by our error handler below.
    ejectPlugins: true,
    plugins: [
      debugProxyErrorsPlugin,
      proxyEventsPlugin,
      (proxyServer) => void (server = proxyServer),
    ] as Array<Plugin<IncomingMessage, ServerResponse>>,
    on: {
      // Only read here: the forwarded headers are set on the request before it is proxied
      // (forwardHeaders). http-proxy emits proxyReq when the upstream socket arrives, which under
      // load (connections queued in the agent) is after Node has already sent the headers of a
      // body-less request: a setHeader here then threw and took the gateway down.
      proxyReq: (proxyReq, req) => {
        (req as ProxiedRequest).upstreamReused = proxyReq.reusedSocket;
      },
      error: (err, req, res) => {
        const code = (err as NodeJS.ErrnoException).code;
        const r = req as ProxiedRequest;
        const bodyless =
          BODYLESS.has(r.method) && !r.headers['content-length'] && !r.headers['transfer-encoding'];
        // Refused: the replica never saw the request. Reset on a kept-alive connection before any
        // answer: the replica closed it as the request went out (it stopped or died); sent again
        // only when reading it twice is harmless (GET, HEAD, OPTIONS), or when the request carries an
        // Idempotency-Key and its body was read here (the service answers a repeat with the first answer).
        const refused = code === 'ECONNREFUSED';
        const onceOnly =
          r.bufferedBody !== undefined && typeof r.headers['idempotency-key'] === 'string';
        const staleSocket =
          code === 'ECONNRESET' &&
          r.upstreamReused === true &&
          ((bodyless && r.method !== 'DELETE') || onceOnly);
        if ((refused || staleSocket) && r.upstreamTarget && pool.size > 1) {
          if (refused) pool.markDown(r.upstreamTarget);
          const replayable = staleSocket || r.bufferedBody !== undefined || bodyless;
          if (replayable && 'setHeader' in res && !res.headersSent && pool.pick(r.upstreamTried)) {
            logger.info(
              {
                service,
                upstream: r.upstreamTarget,
                code,
                url: r.originalUrl,
                correlationId: r.correlationId,
              },
              'upstream connection refused or reset; trying another replica',
            );
            handler(r, res as unknown as Response, (e?: unknown) => {
              if (e)
                sendError(
                  res,
                  502,
                  `The ${service} service answered badly. Please try again.`,
                  'bad_gateway',
                );
            });
            return;
          }
        }
        const timedOut =
          code === 'ECONNRESET' ||
          code === 'ETIMEDOUT' ||
          /timeout|socket hang up/i.test(err.message);
        logger.warn(
          {
            service,
            err: err.message,
            code,
            url: redactUrl((req as Request).originalUrl),
            correlationId: (req as Request).correlationId,
          },
          'upstream failed',
        );
        if (code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENOTFOUND')
          sendError(
            res,
            503,
            `The ${service} service is unavailable. Please try again shortly.`,
            'service_unavailable',
          );
        else if (timedOut)
          sendError(
            res,
            504,
            `The ${service} service took too long to answer. Please try again.`,
            'upstream_timeout',
          );
        else
          sendError(
            res,
            502,
            `The ${service} service answered badly. Please try again.`,
            'bad_gateway',
          );
      },
    },
  } satisfies Options<IncomingMessage, ServerResponse>;
  createProxyMiddleware<IncomingMessage, ServerResponse>(options);
  if (!server) throw new Error('http-proxy-middleware did not hand its proxy server to the plugin');
  const proxyServer = server;
  // Each replica's options with its address parsed once (http-proxy parses a string target on every
  // request, as http-proxy-middleware hands it one), like http-proxy itself parses it (url.parse).
  const perTarget = new Map(
    pool.urls.map((url) => [
      url,
      {
        target: parseUrl(url),
        changeOrigin: options.changeOrigin,
        xfwd: options.xfwd,
        proxyTimeout: options.proxyTimeout,
        agent: options.agent,
      },
    ]),
  );
  const single = pool.size <= 1 ? perTarget.get(pool.urls[0])! : undefined;
  /**
   * The middleware's own request path, minus its per-request work the gateway does not use (an
   * async function, the options copied, the target parsed again): http-proxy's server called at once.
   * With several replicas, each request goes to the next ready one, never twice to the same.
   */
  const handler: RequestHandler = (req, res, next) => {
    let opts = single;
    if (!opts) {
      const r = req as ProxiedRequest;
      r.upstreamTried ??= new Set();
      const target = pool.pick(r.upstreamTried) ?? pool.urls[0];
      r.upstreamTried.add(target);
      r.upstreamTarget = target;
      opts = perTarget.get(target)!;
    }
    try {
      const body = forwardHeaders(req as ProxiedRequest);
      // A body read already (bufferBody) is streamed from memory; http-proxy pipes it instead of the request.
      proxyServer.web(req, res, body ? { ...opts, buffer: Readable.from([body]) } : opts);
    } catch (err) {
      next(err);
    }
  };
  return handler;
}
