import { publishClaimsChange, publishSessionRevocation } from '@htm/service-kit';
import type { Db, Tx } from '@htm/service-kit/db';
import type { IdentityDeps } from '../deps.js';
import { revokeRefreshFamilies } from '../db/session.repository.js';

/**
 * Tells every service that the access tokens of a revoked family are refused from now on (for
 * one access-token lifetime, after which they have expired anyway). Redis down: the refresh
 * token is revoked all the same; the access tokens then live out their 15 minutes (logged).
 */
export async function revokeAccessTokens(deps: IdentityDeps, familyId: string): Promise<void> {
  try {
    await publishSessionRevocation(
      deps.redis,
      deps.config.REDIS_PREFIX,
      familyId,
      deps.config.ACCESS_TOKEN_TTL_SECONDS,
    );
  } catch (err) {
    deps.logger.warn(
      { familyId, err: (err as Error).message },
      'could not publish the session revocation: its access tokens stay valid until they expire',
    );
  }
}

/**
 * Ends every sign-in of a user (refresh families and their access tokens): for security events
 * only (the admin role moving to another account, "log out everywhere"). A change of approval
 * or role that is not one of those keeps the sign-ins: `announceClaimsChanged`.
 */
export async function revokeUserSessions(
  deps: IdentityDeps,
  userIds: string[],
  reason: string,
  db: Db | Tx = deps.db,
): Promise<void> {
  if (!userIds.length) return;
  const families = await revokeRefreshFamilies(db, { userIds }, reason);
  for (const id of families) await revokeAccessTokens(deps, id);
  if (families.length)
    deps.logger.info(
      { users: userIds.length, families: families.length, reason },
      'sessions revoked',
    );
}

/**
 * The claims of these users (role, approval, country...) changed: every access token issued
 * before now is refused as stale (401 `token_stale`) by the gateway and every service, and the
 * client's refresh, in the same sign-in, gets a token with the current claims. Call it once the
 * changed row is written (in or after its transaction: a token is minted from a row read with a
 * lock, so a refresh that starts after this moment waits for the change and reads it).
 * Redis down: the old tokens live out their 15 minutes (logged), as with a revocation.
 */
export async function announceClaimsChanged(deps: IdentityDeps, userIds: string[]): Promise<void> {
  const at = Date.now();
  for (const id of userIds) {
    try {
      await publishClaimsChange(
        deps.redis,
        deps.config.REDIS_PREFIX,
        id,
        at,
        deps.config.ACCESS_TOKEN_TTL_SECONDS,
      );
    } catch (err) {
      deps.logger.warn(
        { userId: id, err: (err as Error).message },
        'could not announce the claims change: older access tokens stay valid until they expire',
      );
    }
  }
  if (userIds.length)
    deps.logger.info({ users: userIds.length }, 'claims changed: older access tokens are stale');
}
