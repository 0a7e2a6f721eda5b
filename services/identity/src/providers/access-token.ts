import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { ACCESS_TOKEN_ALG } from '@htm/service-kit';
import type { UserRow } from '../db/schema.js';
import type { KeyStore } from './signing-keys.js';

export interface AccessTokenOptions {
  issuer: string;
  audience: string;
  ttlSeconds: number;
  /** The sign-in session (refresh-token family) the token belongs to: logout revokes it. */
  sid?: string;
  /**
   * When the user's row was read for these claims (ms since the epoch), as claim `claims_at`: a
   * token whose claims are older than the user's last claims change is refused as stale.
   */
  claimsAt?: number;
}

/** The claims of docs/api-contracts.md "Access token", from the user's current row. */
export function accessClaims(
  user: Pick<UserRow, 'email' | 'name' | 'type' | 'approved' | 'country' | 'location'>,
) {
  return {
    typ: 'access' as const,
    email: user.email,
    name: user.name,
    type: user.type ?? null,
    approved: user.approved,
    country: user.country ?? null,
    location: user.location ?? null,
  };
}

/** Signs a 15-minute ES256 access token for the user with the current key (header carries `kid`). */
export async function mintAccessToken(
  keys: KeyStore,
  user: UserRow,
  opts: AccessTokenOptions,
): Promise<string> {
  const { kid, privateKey } = keys.signingKey();
  return new SignJWT({
    ...accessClaims(user),
    ...(opts.sid ? { sid: opts.sid } : {}),
    claims_at: opts.claimsAt ?? Date.now(),
  })
    .setProtectedHeader({ alg: ACCESS_TOKEN_ALG, kid, typ: 'JWT' })
    .setSubject(user.id)
    .setIssuer(opts.issuer)
    .setAudience(opts.audience)
    .setIssuedAt()
    .setJti(randomUUID())
    .setExpirationTime(`${opts.ttlSeconds}s`)
    .sign(privateKey);
}
