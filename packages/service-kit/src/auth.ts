import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { LRUCache } from 'lru-cache';
import type { NextFunction, Request, RequestHandler } from 'express';
import { ROLES_OF } from './catalogue.js';
import { AppError } from './errors.js';
import type { RevocationList } from './revoked-sessions.js';

export type UserType = 'poster' | 'tester' | 'admin';
export type Country = 'US' | 'PR' | 'CA';
export type Location = 'USA' | 'PR';

/** The signed-in user as the access token describes them. */
export interface Caller {
  id: string;
  email: string;
  name: string;
  type: UserType | null;
  approved: boolean;
  country: Country | null;
  location: Location | null;
  /** The sign-in session (refresh-token family) the token was issued for; absent in older tokens. */
  sid?: string;
  /** When the token's claims were read (ms since the epoch; `iat` for tokens without `claims_at`). */
  claimsAt?: number;
  /** When the token expires (ms since the epoch). */
  expiresAt?: number;
}

declare module 'express-serve-static-core' {
  interface Request {
    caller?: Caller;
  }
}

export const ACCESS_TOKEN_ALG = 'ES256';

/** The longest a verified token is remembered (identity's tokens live 15 minutes, 1 hour at most). */
const MAX_REMEMBER_MS = 24 * 3600_000;

export interface AuthOptions {
  /** Identity's JWKS URL (internal), or a key getter (tests). */
  jwksUrl?: string;
  getKey?: JWTVerifyGetKey;
  issuer: string;
  audience: string;
  /** Verified tokens remembered until they expire (0 turns the cache off). Default 10,000. */
  cacheSize?: number;
  /**
   * Revoked sign-in sessions: a token whose `sid` is listed is refused (401 `token_revoked`); a
   * token issued before its user's claims changed is refused as stale (401 `token_stale`).
   */
  revoked?: RevocationList;
}

export interface Auth {
  verify(token: string): Promise<Caller>;
  /**
   * The caller a genuine, unexpired access token names, even when its session is revoked or its
   * claims are stale (logout with only the bearer token ends the session it names). Never use
   * it to let a caller in.
   */
  tokenHolder(token: string): Promise<Caller>;
  /** 401 unless a valid bearer access token is present. */
  authenticate: RequestHandler;
  /** Sets req.caller when a valid token is present; never refuses. Invalid tokens give 401. */
  optional: RequestHandler;
  requireRole(...types: UserType[]): RequestHandler;
  /** How many verified tokens are remembered now (each until its expiry at the latest). */
  rememberedTokens(): number;
}

function claimsToCaller(p: Record<string, unknown>): Caller {
  return {
    id: String(p.sub),
    email: String(p.email ?? ''),
    name: String(p.name ?? ''),
    type: (p.type as UserType | null) ?? null,
    approved: p.approved === true,
    country: (p.country as Country | null) ?? null,
    location: (p.location as Location | null) ?? null,
    ...(typeof p.sid === 'string' ? { sid: p.sid } : {}),
    claimsAt: typeof p.claims_at === 'number' ? p.claims_at : Number(p.iat) * 1000,
    expiresAt: Number(p.exp) * 1000,
  };
}

/** Thrown by `verify` for a token of a revoked sign-in session. */
export class TokenRevokedError extends Error {
  readonly code = 'ERR_TOKEN_REVOKED';
  constructor() {
    super('access token of a revoked session');
  }
}

/** Thrown by `verify` for a token issued before its user's claims (role, approval...) changed. */
export class TokenStaleError extends Error {
  readonly code = 'ERR_TOKEN_STALE';
  constructor() {
    super('access token with claims older than the user');
  }
}

/** The 401 a stale token gets: the client refreshes (same session) and replays; the sign-in goes on. */
export const tokenStale = () =>
  AppError.unauthorized(
    'Your account changed since this token was issued. Refresh it and try again.',
    'token_stale',
  );
export const tokenRevoked = () =>
  AppError.unauthorized('Your session has ended. Please sign in again.', 'token_revoked');

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(header);
  return m?.[1];
}

/**
 * Verifies access tokens against identity's JWKS: algorithm pinned to ES256, exp, iss and
 * aud checked. The owning service still checks roles and ownership itself.
 */
export function createAuth(opts: AuthOptions): Auth {
  const getKey =
    opts.getKey ??
    createRemoteJWKSet(new URL(opts.jwksUrl ?? 'http://127.0.0.1:8081/internal/jwks'), {
      cooldownDuration: 30_000,
      cacheMaxAge: 10 * 60_000,
      timeoutDuration: 5000,
    });

  // A signature check costs more than the rest of a proxied request: a token that verified
  // once is remembered (by its exact text) until its own expiry, never longer. Failures are
  // not cached, so a bad token is checked (and refused) every time.
  const cacheSize = opts.cacheSize ?? 10_000;
  const verified =
    cacheSize > 0
      ? new LRUCache<string, { caller: Caller; expMs: number }>({
          max: cacheSize,
          // Each entry leaves when its token expires (set with the token's own ttl below), not
          // only when pushed out: a process keeps the last ~15 minutes' tokens, not 10,000.
          ttlAutopurge: true,
        })
      : undefined;

  const revoked = opts.revoked;
  const isRevoked = (caller: Caller) =>
    caller.sid !== undefined && revoked !== undefined && revoked.isRevoked(caller.sid);
  const isStale = (caller: Caller) =>
    revoked?.claimsChangedSince !== undefined &&
    revoked.claimsChangedSince(caller.id, caller.claimsAt ?? 0);
  /** Revoked, stale, or fine (undefined): one look at two in-memory maps. */
  const refusal = (caller: Caller) =>
    isRevoked(caller)
      ? new TokenRevokedError()
      : isStale(caller)
        ? new TokenStaleError()
        : undefined;

  /** A token verified before and not yet expired, without waiting (revoked or not). */
  function rememberedEntry(token: string): { caller: Caller; expMs: number } | undefined {
    const hit = verified?.get(token);
    return hit && hit.expMs > Date.now() ? hit : undefined;
  }

  /** The caller of a token verified before, not yet expired, not revoked and not stale, without waiting. */
  function remembered(token: string): Caller | undefined {
    const hit = rememberedEntry(token);
    return hit && !refusal(hit.caller) ? { ...hit.caller } : undefined;
  }

  async function verify(token: string): Promise<Caller> {
    const caller = await tokenHolder(token);
    const refused = refusal(caller);
    if (refused) throw refused;
    return caller;
  }

  async function tokenHolder(token: string): Promise<Caller> {
    const known = rememberedEntry(token);
    if (known) return { ...known.caller };
    const { payload } = await jwtVerify(token, getKey, {
      algorithms: [ACCESS_TOKEN_ALG],
      issuer: opts.issuer,
      audience: opts.audience,
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    if (payload.typ !== 'access') throw new Error('not an access token');
    const caller = claimsToCaller(payload);
    const expMs = payload.exp! * 1000;
    // Held a day at most: the purge timer's delay must stay within setTimeout's 24.8 days (a
    // longer one fires every millisecond), whatever expiry a token carries.
    const ttl = Math.min(Math.max(1, expMs - Date.now()), MAX_REMEMBER_MS);
    verified?.set(token, { caller, expMs }, { ttl });
    return { ...caller };
  }

  const fromHeader = async (header: string | undefined): Promise<Caller | undefined> => {
    if (!header) return undefined;
    const token = bearerToken(header);
    if (!token) throw AppError.unauthorized('Malformed authorization header.', 'invalid_token');
    try {
      return await verify(token);
    } catch (err) {
      if (err instanceof TokenRevokedError) throw tokenRevoked();
      if (err instanceof TokenStaleError) throw tokenStale();
      const expired = (err as { code?: string }).code === 'ERR_JWT_EXPIRED';
      throw AppError.unauthorized(
        expired ? 'Your session has expired. Please sign in again.' : 'Invalid access token.',
        expired ? 'token_expired' : 'invalid_token',
      );
    }
  };

  const authenticateSlowly = async (req: Request, next: NextFunction) => {
    try {
      const caller = await fromHeader(req.headers.authorization);
      if (!caller) return next(AppError.unauthorized('Please sign in.', 'unauthenticated'));
      req.caller = caller;
      next();
    } catch (err) {
      next(err);
    }
  };

  const authenticate: RequestHandler = (req, _res, next) => {
    // Most calls carry a token verified moments ago: those go on at once, without a promise.
    const token = bearerToken(req.headers.authorization);
    const known = token && remembered(token);
    if (!known) return void authenticateSlowly(req, next);
    req.caller = known;
    next();
  };

  const optional: RequestHandler = async (req, _res, next) => {
    try {
      req.caller = await fromHeader(req.headers.authorization);
      next();
    } catch (err) {
      next(err);
    }
  };

  // Marked with its roles: a catalogue mount checks they are the operation's (catalogue.ts).
  const requireRole = (...types: UserType[]): RequestHandler =>
    Object.assign(
      ((req, _res, next) => {
        const caller = req.caller;
        if (!caller) return next(AppError.unauthorized('Please sign in.', 'unauthenticated'));
        if (!caller.type || !types.includes(caller.type)) {
          return next(AppError.forbidden('Your account type cannot do this.', 'wrong_role'));
        }
        next();
      }) satisfies RequestHandler,
      { [ROLES_OF]: types },
    );

  const rememberedTokens = () => verified?.size ?? 0;
  return { verify, tokenHolder, authenticate, optional, requireRole, rememberedTokens };
}

/** The signed-in caller, or 401. For handlers behind `authenticate`. */
export function callerOf(req: { caller?: Caller }): Caller {
  if (!req.caller) throw AppError.unauthorized('Please sign in.', 'unauthenticated');
  return req.caller;
}
