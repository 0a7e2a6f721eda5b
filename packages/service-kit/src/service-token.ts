import { SignJWT, jwtVerify } from 'jose';
import type { RequestHandler } from 'express';
import { AppError } from './errors.js';

const AUDIENCE = 'htm-internal';
const ALG = 'HS256';

function key(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

/** A short-lived token one service presents to another's /internal/* routes. */
export async function mintServiceToken(secret: string, from: string, ttlSeconds = 60): Promise<string> {
  return new SignJWT({ svc: from })
    .setProtectedHeader({ alg: ALG })
    .setSubject(from)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(key(secret));
}

/**
 * Guards /internal/* routes: only the named services, with a valid service token. `secret` may
 * list the previous secret too, so SERVICE_TOKEN_SECRET can be rotated without a window of 401s
 * (callers always sign with the first).
 */
export function requireServiceToken(secret: string | readonly string[], allowed: string[]): RequestHandler {
  const secrets = (typeof secret === 'string' ? [secret] : secret).filter(Boolean);
  return async (req, _res, next) => {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!token) return next(AppError.unauthorized('Service token required.', 'service_token_required'));
    for (const s of secrets) {
      try {
        const { payload } = await jwtVerify(token, key(s), { audience: AUDIENCE, algorithms: [ALG] });
        if (!allowed.includes(String(payload.sub))) return next(AppError.forbidden('This service may not call this route.'));
        (req as { callerService?: string }).callerService = String(payload.sub);
        return next();
      } catch {
        /* try the next secret */
      }
    }
    next(AppError.unauthorized('Invalid service token.', 'invalid_service_token'));
  };
}
