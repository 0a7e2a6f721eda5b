import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin, type RequestHandler as ProxyHandler } from 'http-proxy-middleware';
import { Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Request } from 'express';
import type { Logger } from 'pino';
import type { ServiceName } from './route-table.js';

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

/** Keep-alive connections to the services (idle sockets follow the services' Keep-Alive timeout hint). */
const upstreamAgent = new Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 });

/**
 * Streams the request to the owning service untouched (bodies are not parsed here), with the
 * correlation id and the client address set by us (never the client's own X-Forwarded-For).
 * A service that is down answers 503, one that hangs 504, within the timeout.
 */
export function createServiceProxy(service: ServiceName, target: string, timeoutMs: number, logger: Logger): ProxyHandler {
  return createProxyMiddleware<IncomingMessage, ServerResponse>({
    target,
    changeOrigin: false,
    xfwd: false,
    proxyTimeout: timeoutMs,
    // Without an agent http-proxy sends `Connection: close` upstream and copies the upstream's
    // `Connection: close` to the client: a new TCP connection on both hops for every request.
    agent: upstreamAgent,
    // The default plugins minus the logger, which builds a URL for every answer only to hand it
    // to a logger that discards it; failures are logged by our error handler below.
    ejectPlugins: true,
    plugins: [debugProxyErrorsPlugin, proxyEventsPlugin],
    on: {
      proxyReq: (proxyReq, req) => {
        const r = req as Request;
        proxyReq.setHeader('x-correlation-id', r.correlationId);
        proxyReq.setHeader('x-forwarded-for', r.ip ?? r.socket.remoteAddress ?? '');
        proxyReq.setHeader('x-forwarded-proto', r.protocol);
        proxyReq.setHeader('x-forwarded-host', r.headers.host ?? '');
      },
      error: (err, req, res) => {
        const code = (err as NodeJS.ErrnoException).code;
        const timedOut = code === 'ECONNRESET' || code === 'ETIMEDOUT' || /timeout|socket hang up/i.test(err.message);
        logger.warn({ service, err: err.message, code, url: (req as Request).originalUrl, correlationId: (req as Request).correlationId }, 'upstream failed');
        if (code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENOTFOUND')
          sendError(res, 503, `The ${service} service is unavailable. Please try again shortly.`, 'service_unavailable');
        else if (timedOut) sendError(res, 504, `The ${service} service took too long to answer. Please try again.`, 'upstream_timeout');
        else sendError(res, 502, `The ${service} service answered badly. Please try again.`, 'bad_gateway');
      },
    },
  });
}
