import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh opaque secret (256 bits, base64url). */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Secrets are stored only as SHA-256 hashes. */
export function hashSecret(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function hmac(secret: string, purpose: string, value: string): string {
  return createHmac('sha256', secret).update(`${purpose}:${value}`).digest('base64url');
}

export function safeEqual(a: string | undefined, b: string | undefined): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The XSRF token of a refresh family: HMAC(secret, family id). Signed double submit. */
export function xsrfTokenFor(secret: string, familyId: string): string {
  return hmac(secret, 'xsrf', familyId);
}
