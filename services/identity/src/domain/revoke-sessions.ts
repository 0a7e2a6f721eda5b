import { publishSessionRevocation } from '@htm/service-kit';
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
    await publishSessionRevocation(deps.redis, deps.config.REDIS_PREFIX, familyId, deps.config.ACCESS_TOKEN_TTL_SECONDS);
  } catch (err) {
    deps.logger.warn({ familyId, err: (err as Error).message }, 'could not publish the session revocation: its access tokens stay valid until they expire');
  }
}

/**
 * Ends every sign-in of a user (refresh families and their access tokens): after a change of
 * role or approval, tokens carrying the old claims must not live on.
 */
export async function revokeUserSessions(deps: IdentityDeps, userIds: string[], reason: string, db: Db | Tx = deps.db): Promise<void> {
  if (!userIds.length) return;
  const families = await revokeRefreshFamilies(db, { userIds }, reason);
  for (const id of families) await revokeAccessTokens(deps, id);
  if (families.length) deps.logger.info({ users: userIds.length, families: families.length, reason }, 'sessions revoked');
}

