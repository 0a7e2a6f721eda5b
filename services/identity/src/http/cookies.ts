import type { CookieOptions, Request, Response } from 'express';
import type { IdentityConfig } from '../config.js';
import type { IssuedSession } from '../domain/sessions.js';

/** Cookie names over plain http (development); over https they carry the `__Secure-` prefix. */
export const REFRESH_COOKIE = 'refresh_token';
export const XSRF_COOKIE = 'XSRF-TOKEN';
/** The prefix browsers accept only on a Secure cookie set over https (no http page or subdomain can plant one). */
export const SECURE_PREFIX = '__Secure-';
export const XSRF_HEADER = 'x-xsrf-token';
export const OAUTH_STATE_COOKIE = 'oauth_state';
/** Pre-auth nonce: binds the single-use session_id to the browser the sign-in redirect went to. */
export const SIGNIN_NONCE_COOKIE = 'signin_nonce';
export const REFRESH_COOKIE_PATH = '/api/auth';

/** Served over https: in production, or whenever PUBLIC_URL is an https address. */
export function servedOverHttps(cfg: IdentityConfig): boolean {
  return cfg.NODE_ENV === 'production' || cfg.PUBLIC_URL.startsWith('https:');
}

function base(cfg: IdentityConfig): CookieOptions {
  return { secure: servedOverHttps(cfg), sameSite: 'lax' };
}

/**
 * The names of the refresh and XSRF cookies: `__Secure-refresh_token` and `__Secure-XSRF-TOKEN`
 * over https, `refresh_token` and `XSRF-TOKEN` over http. The header stays `X-XSRF-TOKEN`.
 */
export function sessionCookieNames(cfg: IdentityConfig): { refresh: string; xsrf: string } {
  const prefix = servedOverHttps(cfg) ? SECURE_PREFIX : '';
  return { refresh: prefix + REFRESH_COOKIE, xsrf: prefix + XSRF_COOKIE };
}

/**
 * The refresh or XSRF cookie of a request, by the name this deployment uses (over https only the
 * prefixed one counts: an unprefixed cookie could have been planted by an http page).
 */
export function sessionCookie(
  req: Request,
  cfg: IdentityConfig,
  which: 'refresh' | 'xsrf',
): string | undefined {
  const v = (req.cookies as Record<string, unknown> | undefined)?.[sessionCookieNames(cfg)[which]];
  return typeof v === 'string' ? v : undefined;
}

/** Refresh token (httpOnly, only sent to /api/auth) and the readable XSRF token bound to its family. */
export function setSessionCookies(res: Response, cfg: IdentityConfig, s: IssuedSession): void {
  const maxAge = Math.max(0, s.familyExpiresAt.getTime() - Date.now());
  const names = sessionCookieNames(cfg);
  res.cookie(names.refresh, s.refreshToken, {
    ...base(cfg),
    httpOnly: true,
    path: REFRESH_COOKIE_PATH,
    maxAge,
  });
  res.cookie(names.xsrf, s.xsrfToken, { ...base(cfg), httpOnly: false, path: '/', maxAge });
}

export function clearSessionCookies(res: Response, cfg: IdentityConfig): void {
  const names = sessionCookieNames(cfg);
  res.clearCookie(names.refresh, { ...base(cfg), httpOnly: true, path: REFRESH_COOKIE_PATH });
  res.clearCookie(names.xsrf, { ...base(cfg), httpOnly: false, path: '/' });
}

export function stateCookieOptions(cfg: IdentityConfig): CookieOptions {
  return { ...base(cfg), httpOnly: true, path: '/api/auth/google', maxAge: 10 * 60_000 };
}

/** The sign-in nonce lives as long as the session_id it binds, and only travels to /api/auth. */
export function setSigninNonceCookie(res: Response, cfg: IdentityConfig, nonce: string): void {
  res.cookie(SIGNIN_NONCE_COOKIE, nonce, {
    ...base(cfg),
    httpOnly: true,
    path: REFRESH_COOKIE_PATH,
    maxAge: cfg.SIGNIN_SESSION_TTL_SECONDS * 1000,
  });
}

export function clearSigninNonceCookie(res: Response, cfg: IdentityConfig): void {
  res.clearCookie(SIGNIN_NONCE_COOKIE, { ...base(cfg), httpOnly: true, path: REFRESH_COOKIE_PATH });
}
