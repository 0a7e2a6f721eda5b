import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { ZodError } from 'zod';
import type { Logger } from 'pino';
import { RATE_LIMITED_PAGE_CSP, rateLimitedPage } from './html.js';

export type ErrorKind =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'unprocessable'
  | 'too_large'
  | 'uri_too_long'
  | 'unsupported_type'
  | 'headers_too_large'
  | 'rate_limited'
  | 'bad_gateway'
  | 'unavailable'
  | 'insufficient_storage'
  | 'internal';

const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  unprocessable: 422,
  too_large: 413,
  uri_too_long: 414,
  unsupported_type: 415,
  headers_too_large: 431,
  rate_limited: 429,
  internal: 500,
  bad_gateway: 502,
  unavailable: 503,
  insufficient_storage: 507,
};

export type FieldErrors = Record<string, string[]>;

/** The one error type services throw; the error middleware maps `kind` to a status. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly kind: ErrorKind,
    readonly detail: string,
    readonly options: {
      code?: string;
      errors?: FieldErrors;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(detail);
    this.name = 'AppError';
    this.status = STATUS[kind];
  }
  get code(): string {
    return this.options.code ?? this.kind;
  }

  static invalid(detail: string, errors?: FieldErrors, code = 'validation_error') {
    return new AppError('invalid', detail, { code, errors });
  }
  static unauthorized(detail = 'Authentication required.', code = 'unauthorized') {
    return new AppError('unauthorized', detail, { code });
  }
  static forbidden(detail = 'You are not allowed to do this.', code = 'forbidden') {
    return new AppError('forbidden', detail, { code });
  }
  static notFound(detail = 'Not found.', code = 'not_found') {
    return new AppError('not_found', detail, { code });
  }
  static conflict(detail: string, code = 'conflict') {
    return new AppError('conflict', detail, { code });
  }
}

export interface ErrorBody {
  detail: string;
  code: string;
  errors?: FieldErrors;
}

/** Zod issues to `{field: [messages]}`; the first message becomes the detail sentence. */
export function zodToAppError(err: ZodError): AppError {
  const errors: FieldErrors = {};
  for (const issue of err.issues) {
    const key = issue.path.length ? issue.path.join('.') : '_';
    (errors[key] ??= []).push(issue.message);
  }
  const first = err.issues[0]?.message ?? 'Please check your inputs';
  return AppError.invalid(first, errors);
}

/** Parses with a zod schema or throws the documented 400. */
export function parseOrThrow<T>(
  schema: {
    safeParse(v: unknown): { success: true; data: T } | { success: false; error: ZodError };
  },
  value: unknown,
): T {
  const r = schema.safeParse(value);
  if (!r.success) throw zodToAppError(r.error);
  return r.data;
}

export function toErrorBody(err: AppError): ErrorBody {
  const body: ErrorBody = { detail: err.detail, code: err.code };
  if (err.options.errors) body.errors = err.options.errors;
  return body;
}

/** 22021 invalid byte sequence (NUL included), 22P05 untranslatable character. */
const NUL_OR_BAD_TEXT = new Set(['22021', '22P05']);
/** The SQLSTATE of a node-postgres or PGlite error, also when drizzle wraps it (cause). */
function pgCode(err: unknown): string | undefined {
  for (
    let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0;
    e && i < 3;
    e = e.cause as typeof e, i++
  ) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  }
  return undefined;
}

/** True when a decoded query value or a JSON body string holds a NUL character. */
export function holdsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 32 || value === null || typeof value !== 'object') return false;
  for (const v of Array.isArray(value) ? value : Object.values(value))
    if (holdsNul(v, depth + 1)) return true;
  for (const k of Array.isArray(value) ? [] : Object.keys(value))
    if (k.includes('\u0000')) return true;
  return false;
}

/** Refuses NUL characters in the query or a JSON body before they reach a handler (Postgres text cannot hold them). */
export const refuseNul: RequestHandler = (req, _res, next) => {
  if (holdsNul(req.query) || holdsNul(req.body))
    return next(
      AppError.invalid(
        'Text may not contain NUL or invalid characters.',
        undefined,
        'invalid_characters',
      ),
    );
  next();
};

/**
 * True when the browser navigates to this address (a link, a redirect, a form post) rather than
 * fetching it from script: `Sec-Fetch-Mode: navigate`, or, from clients without fetch metadata,
 * an Accept header that prefers HTML to JSON.
 */
export function isBrowserNavigation(req: Request): boolean {
  const mode = req.get('sec-fetch-mode');
  if (mode) return mode === 'navigate';
  return (
    req.accepts(['application/json', 'text/html']) === 'text/html' && !req.get('authorization')
  );
}

/** Where "Try again" goes: the same address for a GET, else the same-site page the form was on, else home. */
function retryHrefFor(req: Request): string {
  if (req.method === 'GET' || req.method === 'HEAD') return req.originalUrl;
  const referer = req.get('referer');
  if (referer) {
    try {
      const u = new URL(referer);
      if (u.host === req.get('host')) return u.pathname + u.search;
    } catch {
      /* not a URL */
    }
  }
  return '/';
}

/** The 429 page a browser shows for a refused navigation: wait, then try again (HTML, no script). */
export function sendRateLimitedPage(req: Request, res: Response, retryAfterSeconds: number): void {
  res.setHeader('Retry-After', String(retryAfterSeconds));
  res.setHeader('Content-Security-Policy', RATE_LIMITED_PAGE_CSP);
  res.setHeader('Cache-Control', 'no-store');
  res
    .status(429)
    .type('html')
    .send(rateLimitedPage(retryHrefFor(req), retryAfterSeconds));
}

/**
 * Maps anything thrown to the documented JSON error shape. Never leaks a stack trace. A 429 for a
 * browser navigation (sign-in, checkout pages) is the HTML page instead: raw JSON helps no one there.
 */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let appErr: AppError;
    if (err instanceof AppError) appErr = err;
    else if (err instanceof ZodError) appErr = zodToAppError(err);
    else if (err?.type === 'entity.parse.failed')
      appErr = AppError.invalid('Request body is not valid JSON.', undefined, 'invalid_json');
    else if (err?.type === 'entity.too.large')
      appErr = new AppError('too_large', 'Request body is too large.', { code: 'too_large' });
    else if (err?.type === 'encoding.unsupported' || err?.type === 'charset.unsupported')
      appErr = new AppError('unsupported_type', 'Unsupported request encoding.', {
        code: 'unsupported_encoding',
      });
    else if (NUL_OR_BAD_TEXT.has(pgCode(err) ?? ''))
      // Postgres text cannot hold NUL or bytes that are not UTF-8: the statement failed, nothing changed.
      appErr = AppError.invalid(
        'Text may not contain NUL or invalid characters.',
        undefined,
        'invalid_characters',
      );
    else if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500)
      appErr = new AppError(
        err.status === 413 ? 'too_large' : 'invalid',
        'The request could not be understood.',
        { code: 'bad_request' },
      );
    else
      appErr = new AppError('internal', 'Something went wrong on our side. Please try again.', {
        code: 'internal_error',
      });

    if (appErr.status >= 500)
      ((req as { log?: Logger }).log ?? logger).error(
        { err, correlationId: req.correlationId },
        'request failed',
      );
    if (res.headersSent) return;
    for (const [k, v] of Object.entries(appErr.options.headers ?? {})) res.setHeader(k, v);
    if (appErr.status === 429 && isBrowserNavigation(req))
      return sendRateLimitedPage(req, res, Number(res.getHeader('Retry-After')) || 60);
    res.status(appErr.status).json(toErrorBody(appErr));
  };
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(AppError.notFound(`No route for ${req.method} ${req.path}.`, 'route_not_found'));
};
