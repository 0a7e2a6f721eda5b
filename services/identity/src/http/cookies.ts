import type { CookieOptions, Response } from 'express';
import type { IdentityConfig } from '../config.js';
import type { IssuedSession } from '../domain/sessions.js';

export const REFRESH_COOKIE = 'refresh_token';
export const XSRF_COOKIE = 'XSRF-TOKEN';
export const XSRF_HEADER = 'x-xsrf-token';
export const OAUTH_STATE_COOKIE = 'oauth_state';
/** Pre-auth nonce: binds the single-use session_id to the browser the sign-in redirect went to. */
export const SIGNIN_NONCE_COOKIE = 'signin_nonce';
export const REFRESH_COOKIE_PATH = '/api/auth';

function base(cfg: IdentityConfig): CookieOptions {
  return { secure: cfg.NODE_ENV === 'production', sameSite: 'lax' };
}

/** Refresh token (httpOnly, only sent to /api/auth) and the readable XSRF token bound to its family. */
export function setSessionCookies(res: Response, cfg: IdentityConfig, s: IssuedSession): void {
  const maxAge = Math.max(0, s.familyExpiresAt.getTime() - Date.now());
  res.cookie(REFRESH_COOKIE, s.refreshToken, { ...base(cfg), httpOnly: true, path: REFRESH_COOKIE_PATH, maxAge });
  res.cookie(XSRF_COOKIE, s.xsrfToken, { ...base(cfg), httpOnly: false, path: '/', maxAge });
}

export function clearSessionCookies(res: Response, cfg: IdentityConfig): void {
  res.clearCookie(REFRESH_COOKIE, { ...base(cfg), httpOnly: true, path: REFRESH_COOKIE_PATH });
  res.clearCookie(XSRF_COOKIE, { ...base(cfg), httpOnly: false, path: '/' });
}

export function stateCookieOptions(cfg: IdentityConfig): CookieOptions {
  return { ...base(cfg), httpOnly: true, path: '/api/auth/google', maxAge: 10 * 60_000 };
}

/** The sign-in nonce lives as long as the session_id it binds, and only travels to /api/auth. */
export function setSigninNonceCookie(res: Response, cfg: IdentityConfig, nonce: string): void {
  res.cookie(SIGNIN_NONCE_COOKIE, nonce, { ...base(cfg), httpOnly: true, path: REFRESH_COOKIE_PATH, maxAge: cfg.SIGNIN_SESSION_TTL_SECONDS * 1000 });
}

export function clearSigninNonceCookie(res: Response, cfg: IdentityConfig): void {
  res.clearCookie(SIGNIN_NONCE_COOKIE, { ...base(cfg), httpOnly: true, path: REFRESH_COOKIE_PATH });
}
