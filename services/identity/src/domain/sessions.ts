import { AppError } from '@htm/service-kit';
import type { IdentityDeps } from '../deps.js';
import {
  createRefreshFamily,
  findRefreshToken,
  insertRefreshToken,
  lockRefreshFamily,
  markRefreshTokenRotated,
  revokeRefreshFamilies,
  setFamilyUserAgent,
  spendSigninSession,
} from '../db/session.repository.js';
import { readUserForToken, type UserRow } from '../db/user.repository.js';
import { mintAccessToken } from '../providers/access-token.js';
import { hashSecret, hmac, randomSecret, safeEqual, xsrfTokenFor } from './tokens.js';
import { isAdminEmail } from './gmail-rule.js';
import { reconcileAdminRole } from './admin-role.js';
import { revokeAccessTokens } from './revoke-sessions.js';

/** What the HTTP layer turns into cookies and a JSON answer. */
export interface IssuedSession {
  accessToken: string;
  refreshToken: string;
  xsrfToken: string;
  familyExpiresAt: Date;
  user: UserRow;
}

/**
 * An access token for the user within sign-in session `sid` (the refresh-token family id), with
 * the claims of `user` as read at `claimsAt` (ms; before the locked read of the row). Only where
 * the session was just checked: the exchange, a refresh, and the role/profile routes.
 */
export function issueAccessToken(
  deps: IdentityDeps,
  user: UserRow,
  sid: string,
  claimsAt: number,
): Promise<string> {
  return mintAccessToken(deps.keys, user, {
    issuer: deps.config.JWT_ISSUER,
    audience: deps.config.JWT_AUDIENCE,
    ttlSeconds: deps.config.ACCESS_TOKEN_TTL_SECONDS,
    sid,
    claimsAt,
  });
}

/** The pre-auth nonce cookie of a sign-in session id: HMAC(AUTH_SECRET, id), set with the redirect. */
export function signinNonceFor(deps: Pick<IdentityDeps, 'config'>, sessionId: string): string {
  return hmac(deps.config.AUTH_SECRET, 'signin-nonce', sessionId);
}

const invalidSession = () =>
  AppError.unauthorized(
    'This sign-in link has expired or was already used. Please sign in again.',
    'invalid_session',
  );
const invalidRefresh = () =>
  AppError.unauthorized('Your session has ended. Please sign in again.', 'invalid_refresh_token');

/**
 * Trades the single-use session id from the sign-in redirect for an access token and a new
 * refresh-token family. The id works once, within its short lifetime.
 */
export async function exchangeSession(
  deps: IdentityDeps,
  sessionId: string,
  nonce: string | undefined,
  userAgent?: string,
): Promise<IssuedSession> {
  // Checked before the id is spent: a cross-site attempt with someone else's id changes nothing.
  if (!safeEqual(nonce, signinNonceFor(deps, sessionId))) {
    throw AppError.unauthorized(
      'This sign-in was started in another browser. Please sign in again.',
      'signin_not_bound',
    );
  }
  const refreshToken = randomSecret();
  const familyExpiresAt = new Date(
    Date.now() + deps.config.REFRESH_FAMILY_TTL_DAYS * 24 * 3600_000,
  );
  const claimsAt = Date.now();
  const out = await deps.events.inTransaction(async (tx) => {
    const userId = await spendSigninSession(tx, hashSecret(sessionId));
    if (!userId) return undefined;
    const user = await readUserForToken(tx, userId);
    if (!user) return undefined;
    const familyId = await createRefreshFamily(tx, user.id, familyExpiresAt, userAgent);
    await insertRefreshToken(tx, familyId, hashSecret(refreshToken));
    return { user, familyId };
  });
  if (!out) throw invalidSession();
  return {
    accessToken: await issueAccessToken(deps, out.user, out.familyId, claimsAt),
    refreshToken,
    xsrfToken: xsrfTokenFor(deps.config.AUTH_SECRET, out.familyId),
    familyExpiresAt,
    user: out.user,
  };
}

/**
 * Rotates a refresh token. The XSRF header must equal the XSRF cookie and the HMAC of the
 * token's family (checked before anything changes). A token used a second time revokes its
 * whole family. Families end 30 days after sign-in whatever happens.
 */
export async function rotateRefreshToken(
  deps: IdentityDeps,
  input: { refreshToken?: string; xsrfHeader?: string; xsrfCookie?: string; userAgent?: string },
): Promise<IssuedSession> {
  if (!input.refreshToken) throw AppError.unauthorized('Please sign in.', 'missing_refresh_token');
  const tokenHash = hashSecret(input.refreshToken);
  const found = await findRefreshToken(deps.db, tokenHash);
  if (!found) throw invalidRefresh();
  const expectedXsrf = xsrfTokenFor(deps.config.AUTH_SECRET, found.familyId);
  if (
    !safeEqual(input.xsrfHeader, input.xsrfCookie) ||
    !safeEqual(input.xsrfHeader, expectedXsrf)
  ) {
    throw AppError.unauthorized('Missing or wrong X-XSRF-TOKEN header.', 'xsrf_mismatch');
  }

  const next = randomSecret();
  // Before the user's row is read: a claims change announced after this moment is in the row.
  const claimsAt = Date.now();
  const result = await deps.events.inTransaction(async (tx) => {
    const family = await lockRefreshFamily(tx, found.familyId);
    if (!family || family.revokedAt || family.expiresAt.getTime() <= Date.now())
      return { kind: 'dead' as const };
    // Idle timeout: the newest token of a family is the last time the browser was seen.
    if (
      found.issuedAt.getTime() + deps.config.REFRESH_IDLE_TIMEOUT_DAYS * 24 * 3600_000 <=
      Date.now()
    ) {
      await revokeRefreshFamilies(tx, { familyId: family.id }, 'idle');
      return { kind: 'dead' as const };
    }
    if (!(await markRefreshTokenRotated(tx, tokenHash))) {
      // A rotated token came back: someone else holds a copy. End the whole sign-in.
      await revokeRefreshFamilies(tx, { familyId: family.id }, 'reuse');
      return { kind: 'reused' as const };
    }
    await insertRefreshToken(tx, family.id, hashSecret(next));
    await setFamilyUserAgent(tx, family.id, input.userAgent);
    const user = await readUserForToken(tx, family.userId);
    if (!user) return { kind: 'dead' as const };
    // The admin role follows ADMIN_EMAIL now, not the row as it was at sign-in.
    if ((user.type === 'admin') !== isAdminEmail(user.email, deps.config.ADMIN_EMAIL))
      return { kind: 'role_changed' as const, userId: user.id };
    return { kind: 'ok' as const, user, family };
  });
  if (result.kind === 'reused') {
    deps.logger.warn({ familyId: found.familyId }, 'refresh token reused: family revoked');
    await revokeAccessTokens(deps, found.familyId);
    throw AppError.unauthorized(
      'This session was used elsewhere and has been ended. Please sign in again.',
      'refresh_token_reused',
    );
  }
  if (result.kind === 'role_changed') {
    await reconcileAdminRole(deps);
    throw invalidRefresh();
  }
  if (result.kind === 'dead') throw invalidRefresh();
  return {
    accessToken: await issueAccessToken(deps, result.user, result.family.id, claimsAt),
    refreshToken: next,
    xsrfToken: expectedXsrf,
    familyExpiresAt: result.family.expiresAt,
    user: result.user,
  };
}

/** Ends the sign-in the refresh cookie belongs to, its access tokens included (no cookie: nothing to do). */
export async function revokeRefreshFamily(
  deps: IdentityDeps,
  refreshToken: string | undefined,
): Promise<void> {
  if (!refreshToken) return;
  const found = await findRefreshToken(deps.db, hashSecret(refreshToken));
  if (!found) return;
  await revokeRefreshFamilies(deps.db, { familyId: found.familyId }, 'logout');
  // Also when the family was revoked before: announcing it again is harmless.
  await revokeAccessTokens(deps, found.familyId);
}

/**
 * Logout: ends the sign-in of the refresh cookie and the one the bearer access token names (a
 * client holding only its access token, such as a script or a browser whose cookie is gone, ends
 * its own session too). The token must be genuine and unexpired; a revoked or stale one still
 * names its session. Nothing to end: nothing happens (logout always succeeds).
 */
export async function signOut(
  deps: IdentityDeps,
  input: { refreshToken?: string; accessToken?: string },
): Promise<void> {
  await revokeRefreshFamily(deps, input.refreshToken);
  if (!input.accessToken) return;
  const holder = await deps.auth.tokenHolder(input.accessToken).catch(() => undefined);
  if (!holder?.sid) return;
  await revokeRefreshFamilies(deps.db, { familyId: holder.sid, userId: holder.id }, 'logout');
  await revokeAccessTokens(deps, holder.sid);
}
