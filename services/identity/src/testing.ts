/**
 * Helpers for tests that need a signed-in user from a running identity service (identity's own
 * tests, the gateway's, end-to-end): `import { signIn, forgedTokens } from '@htm/identity/testing'`.
 * They use the development sign-in, so the service must run with DEV_SIGN_IN=true, no Google
 * credentials and NODE_ENV != production. The dev login's 302 sets the `signin_nonce` cookie
 * that the session exchange requires: keep it in the same CookieJar, like a browser does.
 */
import { SignJWT, generateKeyPair } from 'jose';
import type { IdentityService } from './main.js';

/** A tiny cookie jar (name -> value), like a browser for one site. */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  readonly raw = new Map<string, string>();

  take(res: Response): this {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = decodeURIComponent(pair.slice(i + 1).trim());
      const expired =
        attrs.some(
          (a) => /^\s*expires=/i.test(a) && new Date(a.split('=')[1]).getTime() < Date.now(),
        ) || attrs.some((a) => /^\s*max-age=0\b/i.test(a));
      if (expired || value === '') {
        this.cookies.delete(name);
        this.raw.delete(name);
      } else {
        this.cookies.set(name, value);
        this.raw.set(name, line);
      }
    }
    return this;
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
  }

  clone(): CookieJar {
    const j = new CookieJar();
    for (const [k, v] of this.cookies) j.cookies.set(k, v);
    for (const [k, v] of this.raw) j.raw.set(k, v);
    return j;
  }
}

export function devLogin(
  url: string,
  q: { email: string; name?: string; intent?: string },
  headers: Record<string, string> = {},
): Promise<Response> {
  const p = new URLSearchParams({
    email: q.email,
    ...(q.name ? { name: q.name } : {}),
    ...(q.intent ? { intent: q.intent } : {}),
  });
  return fetch(`${url}/api/auth/dev/login?${p}`, { redirect: 'manual', headers });
}

export function sessionIdOf(location: string | null): string {
  const m = /^\/#session_id=([A-Za-z0-9_-]+)$/.exec(location ?? '');
  if (!m) throw new Error(`not a session redirect: ${location}`);
  return m[1];
}

/**
 * POST /api/auth/session from a browser: `from` is that browser's cookie jar, or the sign-in
 * redirect it just followed (its `signin_nonce` cookie goes along). A fresh jar is another browser.
 */
export async function exchange(
  url: string,
  sessionId: string,
  from: CookieJar | Response = new CookieJar(),
): Promise<{ res: Response; body: Record<string, unknown>; jar: CookieJar }> {
  const jar = from instanceof CookieJar ? from : new CookieJar().take(from);
  const res = await fetch(`${url}/api/auth/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: jar.header() },
    body: JSON.stringify({ session_id: sessionId }),
  });
  jar.take(res);
  return { res, body: (await res.json()) as Record<string, unknown>, jar };
}

/** Dev sign-in then session exchange, in one cookie jar: a signed-in browser. */
export async function signIn(
  url: string,
  email: string,
  opts: { name?: string; intent?: string } = {},
): Promise<{ token: string; jar: CookieJar }> {
  const res = await devLogin(url, { email, name: opts.name ?? 'Test Person', intent: opts.intent });
  if (res.status !== 302) throw new Error(`dev login answered ${res.status}`);
  const {
    res: r2,
    body,
    jar,
  } = await exchange(url, sessionIdOf(res.headers.get('location')), new CookieJar().take(res));
  if (r2.status !== 200)
    throw new Error(`session exchange answered ${r2.status}: ${JSON.stringify(body)}`);
  return { token: body.access_token as string, jar };
}

/**
 * Tokens that must all be refused (401), built from a valid one: expired, tampered payload,
 * `alg: none`, wrong audience, wrong issuer, not an access token, and signed by a foreign key.
 * `svc` is an in-process identity service (its signing key makes the well-signed bad tokens).
 */
export async function forgedTokens(
  svc: IdentityService,
  validToken: string,
): Promise<
  Record<
    'expired' | 'tampered' | 'none' | 'wrongAud' | 'wrongIss' | 'notAccess' | 'foreign',
    string
  >
> {
  const [h, p, s] = validToken.split('.');
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
  const { kid, privateKey } = svc.ctx.keys.signingKey();
  const sign = (
    claims: Record<string, unknown>,
    key: Parameters<SignJWT['sign']>[0] = privateKey,
  ) => new SignJWT({ ...payload, ...claims }).setProtectedHeader({ alg: 'ES256', kid }).sign(key);
  const now = Math.floor(Date.now() / 1000);
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return {
    expired: await sign({ iat: now - 3600, exp: now - 60 }),
    tampered: [h, b64({ ...payload, type: 'admin' }), s].join('.'),
    none: [b64({ alg: 'none', typ: 'JWT' }), b64({ ...payload, type: 'admin' }), ''].join('.'),
    wrongAud: await sign({ aud: 'someone-else' }),
    wrongIss: await sign({ iss: 'evil' }),
    notAccess: await sign({ typ: 'refresh' }),
    foreign: await sign({}, (await generateKeyPair('ES256')).privateKey),
  };
}

/** The signed download link of a data export as if it had expired at `expiredAt` (tests of the 24 h limit). */
export async function exportLinkExpiredAt(
  svc: IdentityService,
  exportId: string,
  expiredAt: Date,
): Promise<string> {
  const { exportDownloadUrl } = await import('./domain/privacy.js');
  return exportDownloadUrl(svc.ctx, exportId, expiredAt);
}
