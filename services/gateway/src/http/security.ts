import helmet from 'helmet';
import cors from 'cors';
import type { RequestHandler } from 'express';
import { AppError } from '@htm/service-kit';
import type { GatewayConfig } from '../config.js';

/**
 * Security headers: a strict CSP the built web app runs under (no inline script).
 * helmet's headers here depend only on the configuration (no nonces, no per-request
 * directives), so they are computed once by helmet itself and then set on every answer in
 * one step rather than by helmet's chain of a dozen middlewares per request.
 */
export function securityHeaders(cfg: GatewayConfig): RequestHandler {
  const set: Array<[string, string]> = [];
  const removed: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string) => void set.push([name, String(value)]),
    removeHeader: (name: string) => void removed.push(name),
  };
  let done = false;
  helmetFor(cfg)({ method: 'GET', headers: {} } as never, recorder as never, () => (done = true));
  if (!done) throw new Error('helmet did not finish synchronously');
  return (_req, res, next) => {
    for (const [name, value] of set) res.setHeader(name, value);
    for (const name of removed) res.removeHeader(name);
    next();
  };
}

/** helmet as configured for the gateway (exported for the test that compares the two). */
export function helmetFor(cfg: GatewayConfig) {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        styleSrcAttr: ["'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        mediaSrc: ["'self'", 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'", ...(cfg.WEB_ORIGIN ? [cfg.WEB_ORIGIN] : [])],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        ...(cfg.NODE_ENV === 'production' ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    strictTransportSecurity:
      cfg.NODE_ENV === 'production' ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    crossOriginEmbedderPolicy: false,
  });
}

/** tus 1.0 headers (recording uploads at /api/recordings) a browser on WEB_ORIGIN sends and must read. */
const TUS_REQUEST_HEADERS = [
  'Tus-Resumable',
  'Upload-Length',
  'Upload-Defer-Length',
  'Upload-Metadata',
  'Upload-Offset',
  'Upload-Concat',
  'X-HTTP-Method-Override',
];
const TUS_RESPONSE_HEADERS = [
  'Location',
  'Tus-Resumable',
  'Tus-Version',
  'Tus-Extension',
  'Tus-Max-Size',
  'Upload-Offset',
  'Upload-Length',
  'Upload-Defer-Length',
  'Upload-Expires',
  'Upload-Metadata',
];

/** CORS only for WEB_ORIGIN (with credentials), when the web app lives on another host. */
export function corsForWebOrigin(cfg: GatewayConfig): RequestHandler {
  if (!cfg.WEB_ORIGIN) return (_req, _res, next) => next();
  return cors({
    origin: [cfg.WEB_ORIGIN],
    credentials: true,
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'Idempotency-Key',
      'X-Correlation-Id',
      'X-XSRF-TOKEN',
      ...TUS_REQUEST_HEADERS,
      'Range',
    ],
    exposedHeaders: [
      'X-Correlation-Id',
      'Retry-After',
      ...TUS_RESPONSE_HEADERS,
      'Content-Range',
      'Accept-Ranges',
    ],
    maxAge: 600,
  });
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Cookie-authenticated state changes (session, refresh, logout, local checkout forms) and every
 * state change under /api/auth (cookie or not: a sign-in must not be started or finished from
 * another site) must come from our own origin or WEB_ORIGIN. Requests without an Origin header
 * (curl, server to server, the Stripe webhook) are not browser CSRF and pass, unless the browser
 * says the request is cross-site (Sec-Fetch-Site).
 */
export function originCheck(cfg: GatewayConfig): RequestHandler {
  return (req, _res, next) => {
    if (!UNSAFE.has(req.method)) return next();
    const auth = req.originalUrl.startsWith('/api/auth/');
    if (!auth && !req.headers.cookie) return next();
    const origin = req.headers.origin;
    if (
      auth &&
      req.headers['sec-fetch-site'] === 'cross-site' &&
      (!cfg.WEB_ORIGIN || origin !== cfg.WEB_ORIGIN)
    )
      return next(AppError.forbidden('Cross-site request refused.', 'bad_origin'));
    if (!origin || origin === 'null')
      return origin === 'null'
        ? next(AppError.forbidden('Cross-site request refused.', 'bad_origin'))
        : next();
    // X-Forwarded-Host only from a proxy the gateway trusts; else the Host the client sent.
    const host =
      (cfg.TRUST_PROXY !== false ? req.headers['x-forwarded-host'] : undefined) ?? req.headers.host;
    let ok = false;
    try {
      ok = new URL(origin).host === host || origin === cfg.WEB_ORIGIN;
    } catch {
      ok = false;
    }
    next(ok ? undefined : AppError.forbidden('Cross-site request refused.', 'bad_origin'));
  };
}
