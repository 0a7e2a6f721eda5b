import { AppError, type Caller } from '@htm/service-kit';
import type { SignInView } from '@htm/contracts';
import type { IdentityDeps } from '../deps.js';
import {
  findRefreshToken,
  listLiveFamilies,
  lockRefreshFamily,
  revokeRefreshFamilies,
} from '../db/session.repository.js';
import { describeDevice } from './device.js';
import { revokeAccessTokens } from './revoke-sessions.js';
import { hashSecret, safeEqual, xsrfTokenFor } from './tokens.js';

/**
 * "Sign-ins": the user's active sign-ins (one per browser that signed in and may still refresh),
 * each of which they may end; and "Log out everywhere". Ending a sign-in is a security event:
 * its refresh token dies and its access tokens are refused at once everywhere (token_revoked).
 */

const idleMs = (deps: IdentityDeps) => deps.config.REFRESH_IDLE_TIMEOUT_DAYS * 24 * 3600_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The caller's live sign-ins, most recently used first; the one of the asking token is `current`. */
export async function listSignIns(deps: IdentityDeps, caller: Caller): Promise<SignInView[]> {
  const rows = await listLiveFamilies(deps.db, caller.id, idleMs(deps));
  return rows.map((f) => ({
    id: f.id,
    device: describeDevice(f.userAgent),
    user_agent: f.userAgent,
    created_at: f.createdAt.toISOString(),
    last_used_at: f.lastUsedAt.toISOString(),
    expires_at: f.expiresAt.toISOString(),
    current: f.id === caller.sid,
  }));
}

/**
 * Ends one of the caller's own sign-ins. Anyone else's (or an unknown or ended one) is 404
 * `session_not_found`, the same answer, so ids of other people's sign-ins cannot be probed.
 * Answers whether it was the caller's current sign-in (then the browser's cookies go too).
 */
export async function endSignIn(
  deps: IdentityDeps,
  caller: Caller,
  id: string,
): Promise<{ current: boolean }> {
  const notFound = () => AppError.notFound('No such sign-in of yours.', 'session_not_found');
  if (!UUID.test(id)) throw notFound();
  const ended = await revokeRefreshFamilies(
    deps.db,
    { familyId: id, userId: caller.id },
    'signed_out_remotely',
  );
  if (!ended.length) throw notFound();
  await revokeAccessTokens(deps, id);
  deps.logger.info({ userId: caller.id, familyId: id }, 'sign-in ended by its user');
  return { current: id === caller.sid };
}

/**
 * "Log out everywhere", asked by the browser with its refresh cookie and the XSRF header (as a
 * refresh is): every sign-in of that user ends, this one included. Answers how many ended.
 */
export async function endEverySignIn(
  deps: IdentityDeps,
  input: { refreshToken?: string; xsrfHeader?: string; xsrfCookie?: string },
): Promise<number> {
  if (!input.refreshToken) throw AppError.unauthorized('Please sign in.', 'missing_refresh_token');
  const found = await findRefreshToken(deps.db, hashSecret(input.refreshToken));
  const ended = () =>
    AppError.unauthorized('Your session has ended. Please sign in again.', 'invalid_refresh_token');
  if (!found) throw ended();
  if (
    !safeEqual(input.xsrfHeader, input.xsrfCookie) ||
    !safeEqual(input.xsrfHeader, xsrfTokenFor(deps.config.AUTH_SECRET, found.familyId))
  ) {
    throw AppError.unauthorized('Missing or wrong X-XSRF-TOKEN header.', 'xsrf_mismatch');
  }
  const families = await deps.events.inTransaction(async (tx) => {
    const family = await lockRefreshFamily(tx, found.familyId);
    if (!family || family.revokedAt || family.expiresAt.getTime() <= Date.now()) return undefined;
    return revokeRefreshFamilies(tx, { userIds: [family.userId] }, 'logout_all');
  });
  if (!families) throw ended();
  for (const id of families) await revokeAccessTokens(deps, id);
  deps.logger.info(
    { familyId: found.familyId, families: families.length },
    'logged out everywhere',
  );
  return families.length;
}
