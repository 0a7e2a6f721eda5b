import { Mutex } from 'async-mutex';
import type { BaseQueryFn } from '@reduxjs/toolkit/query';
import {
  API_BASE,
  REFRESH_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
  SECURE_XSRF_COOKIE,
  XSRF_COOKIE,
  XSRF_HEADER,
} from './config';
import { clearTokens, correlationId, getToken, readCookie, setToken } from './tokens';
import { track } from './telemetry';

export interface RequestArgs {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  params?: Record<string, string | number | boolean | undefined | null>;
  /** 'json' (default) parses JSON when the answer is JSON; 'blob' returns a Blob. */
  responseType?: 'json' | 'blob' | 'text';
  timeoutMs?: number;
  /**
   * Sent as `Idempotency-Key` (POSTs that create or pay): one key per user attempt, made where the
   * attempt starts (`newIdempotencyKey()` in the mutation's query), so the replay after a 401
   * refresh carries the same key and the server answers it with the first answer.
   */
  idempotencyKey?: string;
}

/** A fresh Idempotency-Key for one user attempt (one submit click). */
export function newIdempotencyKey(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function')
    return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
}

/** Errors in the shape RTK Query's fetchBaseQuery uses, so components can read `status` and `data`. */
export type ApiError =
  | { status: number; data: unknown }
  | { status: 'FETCH_ERROR' | 'TIMEOUT_ERROR' | 'PARSING_ERROR'; error: string; data?: unknown };

export type QueryResult<T = unknown> =
  { data: T; error?: undefined } | { error: ApiError; data?: undefined };

export const AUTH_EXPIRED_EVENT = 'auth-expired';
const REFRESH_PATH = '/auth/refresh';

export function buildUrl(url: string, params?: RequestArgs['params']): string {
  const base =
    url.startsWith('http') || url.startsWith(API_BASE + '/')
      ? url
      : `${API_BASE}${url.startsWith('/') ? '' : '/'}${url}`;
  if (!params) return base;
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  const s = qs.toString();
  return s ? `${base}${base.includes('?') ? '&' : '?'}${s}` : base;
}

/** The XSRF token to echo: the `__Secure-` cookie over https, the plain one over http. */
export function xsrfToken(cookies?: string): string | null {
  return readCookie(SECURE_XSRF_COOKIE, cookies) ?? readCookie(XSRF_COOKIE, cookies);
}

/** Headers every call carries: correlation id, XSRF echo, bearer token when stored. */
export function authHeaders(token: string | null = getToken()): Record<string, string> {
  const h: Record<string, string> = { 'X-Correlation-Id': correlationId() };
  const xsrf = xsrfToken();
  if (xsrf) h[XSRF_HEADER] = xsrf;
  if (token) h.Authorization = `Bearer ${token}`;
  return h;
}

/** One HTTP call, no retry. */
export async function rawRequest(
  args: RequestArgs,
  token: string | null = getToken(),
): Promise<QueryResult> {
  const headers = authHeaders(token);
  if (args.idempotencyKey) headers['Idempotency-Key'] = args.idempotencyKey;
  let body: BodyInit | undefined;
  if (args.body instanceof FormData) body = args.body;
  else if (args.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(args.body);
  }
  const controller = typeof AbortController !== 'undefined' ? new AbortController() : undefined;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller?.abort();
  }, args.timeoutMs ?? REQUEST_TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(buildUrl(args.url, args.params), {
      method: args.method ?? 'GET',
      headers,
      body,
      credentials: 'include',
      signal: controller?.signal,
    });
  } catch (e) {
    clearTimeout(timer);
    if (timedOut) return { error: { status: 'TIMEOUT_ERROR', error: 'Request timed out' } };
    return { error: { status: 'FETCH_ERROR', error: e instanceof Error ? e.message : String(e) } };
  }
  try {
    let data: unknown;
    if (args.responseType === 'blob' && res.ok) data = await res.blob();
    else {
      const text = await res.text();
      const ct = res.headers.get('content-type') ?? '';
      if (args.responseType === 'text' && res.ok) data = text;
      else if (text && (ct.includes('json') || /^[[{]/.test(text.trim()))) {
        try {
          data = JSON.parse(text);
        } catch {
          data = text;
        }
      } else data = text || null;
    }
    if (res.ok) return { data };
    return { error: { status: res.status, data } };
  } catch (e) {
    if (timedOut) return { error: { status: 'TIMEOUT_ERROR', error: 'Request timed out' } };
    return {
      error: { status: 'PARSING_ERROR', error: e instanceof Error ? e.message : String(e) },
    };
  } finally {
    clearTimeout(timer);
  }
}

const mutex = new Mutex();

function isRefreshCall(args: RequestArgs): boolean {
  return args.url.replace(API_BASE, '').startsWith(REFRESH_PATH);
}

/** The 401 code of an access token issued before the user's claims changed (approval, role). */
export const TOKEN_STALE = 'token_stale';

function errorCode(result: QueryResult): string | undefined {
  const data = result.error?.data;
  return data && typeof data === 'object'
    ? ((data as { code?: unknown }).code as string)
    : undefined;
}

/**
 * Tabs of one browser share the refresh cookie: a refresh in one while another's is in flight
 * would present a rotated token (reuse, which ends the sign-in). A Web Lock shared by the tabs
 * makes them take turns, each with the cookie the previous one left.
 */
function acrossTabs<T>(fn: () => Promise<T>): Promise<T> {
  const locks =
    typeof navigator !== 'undefined'
      ? (navigator as Navigator & { locks?: LockManager }).locks
      : undefined;
  return locks ? (locks.request('htm-refresh', fn) as Promise<T>) : fn();
}

/** Whether the last refresh failure was the server refusing the session (not a network or server fault). */
let lastRefreshRefused = false;

/**
 * POST /api/auth/refresh (5 s timeout). Returns the new token or null.
 * Must be called while holding the mutex.
 */
async function doRefresh(): Promise<string | null> {
  track('api_refresh_attempt');
  const res = await acrossTabs(() =>
    rawRequest({ url: REFRESH_PATH, method: 'POST', timeoutMs: REFRESH_TIMEOUT_MS }, null),
  );
  lastRefreshRefused =
    typeof res.error?.status === 'number' && res.error.status < 500 && res.error.status !== 429;
  const token =
    res.data && typeof res.data === 'object'
      ? (res.data as { access_token?: unknown }).access_token
      : undefined;
  if (typeof token === 'string' && token) {
    setToken(token);
    track('api_refresh_success');
    return token;
  }
  track('api_refresh_failure', { status: res.error ? String(res.error.status) : 'no_token' });
  return null;
}

function expireSession(hadToken: boolean): void {
  clearTokens();
  if (hadToken && typeof window !== 'undefined')
    window.dispatchEvent(new Event(AUTH_EXPIRED_EVENT));
}

/**
 * Called after a request that was sent with `sentToken` got 401. Refreshes at
 * most once for all requests failing together: a request that failed with a
 * token that has since been replaced just replays with the new one.
 * Returns the token to replay with, or null when the session is gone.
 * For `token_stale` (the account changed, the sign-in goes on) the session is
 * cleared only when the refresh itself is refused; a refresh lost to the
 * network leaves it for the next call.
 */
export async function recoverFrom401(
  sentToken: string | null,
  code?: string,
): Promise<string | null> {
  if (mutex.isLocked()) await mutex.waitForUnlock();
  const current = getToken();
  if (current && current !== sentToken) return current; // someone else already refreshed
  if (sentToken && !current) return null; // a refresh already failed and cleared the session
  const release = await mutex.acquire();
  try {
    const now = getToken();
    if (now && now !== sentToken) return now;
    if (sentToken && !now) return null;
    const fresh = await doRefresh();
    if (!fresh && (code !== TOKEN_STALE || lastRefreshRefused))
      expireSession(Boolean(sentToken ?? now));
    return fresh;
  } finally {
    release();
  }
}

/** A request with the 401 → single refresh → replay rule. Used by RTK Query and the uploaders. */
export async function requestWithReauth(args: RequestArgs): Promise<QueryResult> {
  if (mutex.isLocked()) await mutex.waitForUnlock();
  const sent = getToken();
  const result = await rawRequest(args, sent);
  if (!result.error || result.error.status !== 401 || isRefreshCall(args)) return result;
  const fresh = await recoverFrom401(sent, errorCode(result));
  if (!fresh) return result;
  return rawRequest(args, fresh);
}

/** Refresh at boot when a refresh cookie may exist but no access token is stored. */
export async function trySilentRefresh(): Promise<string | null> {
  if (getToken()) return getToken();
  if (!xsrfToken()) return null;
  const release = await mutex.acquire();
  try {
    return getToken() ?? (await doRefresh());
  } finally {
    release();
  }
}

export const baseQueryWithReauth: BaseQueryFn<RequestArgs | string, unknown, ApiError> = async (
  args,
) => {
  const a = typeof args === 'string' ? { url: args } : args;
  return requestWithReauth(a);
};
