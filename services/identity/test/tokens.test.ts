import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SignJWT, decodeProtectedHeader, exportJWK } from 'jose';
import { createAuth } from '@htm/service-kit';
import { createTestIssuer } from '@htm/service-kit/testing';
import {
  call,
  CookieJar,
  forgedTokens,
  signIn,
  startTestIdentity,
  type TestIdentity,
} from './helpers.js';

let t: TestIdentity;

beforeAll(async () => {
  t = await startTestIdentity('tokens');
});
afterAll(async () => {
  await t?.stop();
  await t?.db.drop();
});

/** xsrf: the header to send (default: the XSRF-TOKEN cookie, as the web app does); null sends none. */
function refresh(jar: CookieJar, xsrf: string | null | undefined = jar.get('XSRF-TOKEN')) {
  return call(t.url, '/api/auth/refresh', {
    method: 'POST',
    jar,
    headers: xsrf == null ? {} : { 'x-xsrf-token': xsrf },
  });
}

describe('refresh tokens', () => {
  it('rotates on every refresh; replaying a rotated token revokes the whole family', async () => {
    const { jar } = await signIn(t.url, 'rotate@gmail.com');
    const oldJar = jar.clone();
    const first = await refresh(jar);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body)).toEqual(['access_token']);
    expect(jar.get('refresh_token')).toBeDefined();
    expect(jar.get('refresh_token')).not.toBe(oldJar.get('refresh_token'));
    expect((await call(t.url, '/api/me', { token: first.body.access_token })).status).toBe(200);

    const replay = await refresh(oldJar);
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ code: 'refresh_token_reused', detail: expect.any(String) });

    const afterTheft = await refresh(jar);
    expect(afterTheft.status).toBe(401);
  });

  it('stores refresh tokens only as hashes', async () => {
    const { jar } = await signIn(t.url, 'hashes@gmail.com');
    const rows = await t.svc.ctx.dbHandle.query(
      'SELECT 1 FROM identity.refresh_tokens WHERE token_hash = $1',
      [jar.get('refresh_token')],
    );
    expect(rows).toHaveLength(0);
  });

  it('refuses a refresh without the X-XSRF-TOKEN header, with a wrong one, or with one from another sign-in, and changes nothing', async () => {
    const { jar } = await signIn(t.url, 'xsrf@gmail.com');
    const other = await signIn(t.url, 'xsrf-other@gmail.com');
    const none = await refresh(jar, null);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ code: 'xsrf_mismatch' });
    const wrong = await refresh(jar, 'nope');
    expect(wrong.status).toBe(401);
    // A cookie + header pair that match each other but belong to another family: still refused.
    const forged = jar.clone();
    forged.cookies.set('XSRF-TOKEN', other.jar.get('XSRF-TOKEN')!);
    expect((await refresh(forged, other.jar.get('XSRF-TOKEN'))).status).toBe(401);
    // Header right but cookie missing: refused (the header must equal the cookie).
    const noCookie = jar.clone();
    noCookie.cookies.delete('XSRF-TOKEN');
    expect((await refresh(noCookie, jar.get('XSRF-TOKEN'))).status).toBe(401);
    // None of that rotated or revoked anything.
    expect((await refresh(jar)).status).toBe(200);
  });

  it('answers 401 without a refresh cookie', async () => {
    const r = await call(t.url, '/api/auth/refresh', { method: 'POST' });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ code: 'missing_refresh_token' });
  });

  it('logout revokes the family and clears both cookies', async () => {
    const { jar } = await signIn(t.url, 'logout@gmail.com');
    const kept = jar.clone();
    const out = await call(t.url, '/api/auth/logout', { method: 'POST', jar });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ success: true });
    expect(jar.get('refresh_token')).toBeUndefined();
    expect(jar.get('XSRF-TOKEN')).toBeUndefined();
    expect((await refresh(kept)).status).toBe(401);
  });

  it('ends a family at its absolute lifetime', async () => {
    const { jar } = await signIn(t.url, 'old-family@gmail.com');
    await t.svc.ctx.dbHandle.query(
      `UPDATE identity.refresh_families SET expires_at = now() - interval '1 second'
       WHERE user_id = (SELECT id FROM identity.users WHERE email = 'old-family@gmail.com')`,
    );
    expect((await refresh(jar)).status).toBe(401);
  });
});

describe('access tokens', () => {
  it('carries the documented claims with a kid, ES256, 15 minutes', async () => {
    const { token } = await signIn(t.url, 'claims@gmail.com', { name: 'Claims Person' });
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: 'ES256', kid: expect.any(String) });
    const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(payload).toMatchObject({
      typ: 'access',
      sub: expect.any(String),
      email: 'claims@gmail.com',
      name: 'Claims Person',
      type: null,
      approved: false,
      country: null,
      location: null,
      iss: 'htm-identity',
      aud: 'htm-api',
    });
    expect(payload.exp - payload.iat).toBe(900);
  });

  it('gives 401 at /api/me for expired, tampered, alg:none, wrong-audience and foreign-key tokens', async () => {
    const { token } = await signIn(t.url, 'attacker@gmail.com');
    const { expired, tampered, none, wrongAud, wrongIss, notAccess, foreign } = await forgedTokens(
      t.svc,
      token,
    );
    const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    const { kid, privateKey } = t.svc.ctx.keys.signingKey();
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT({ ...payload, ...claims })
        .setProtectedHeader({ alg: 'ES256', kid })
        .sign(privateKey);

    const control = await call(t.url, '/api/me', { token: await sign({}) });
    expect(control.status).toBe(200);
    for (const [name, bad] of Object.entries({
      expired,
      tampered,
      none,
      wrongAud,
      wrongIss,
      notAccess,
      foreign,
    })) {
      const r = await call(t.url, '/api/me', { token: bad });
      expect([name, r.status]).toEqual([name, 401]);
      expect(r.body).toMatchObject({
        detail: expect.any(String),
        code: name === 'expired' ? 'token_expired' : 'invalid_token',
      });
    }
    expect((await call(t.url, '/api/me')).status).toBe(401);
  });

  it('can be verified by another service through the JWKS URL alone', async () => {
    const { token } = await signIn(t.url, 'jwks-user@gmail.com', { name: 'Jwks User' });
    const jwks = await call(t.url, '/internal/jwks');
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys[0]).toMatchObject({
      kty: 'EC',
      crv: 'P-256',
      alg: 'ES256',
      use: 'sig',
      kid: expect.any(String),
    });
    expect(jwks.body.keys[0].d).toBeUndefined();

    const auth = createAuth({
      jwksUrl: `${t.url}/internal/jwks`,
      issuer: 'htm-identity',
      audience: 'htm-api',
    });
    await expect(auth.verify(token)).resolves.toMatchObject({
      email: 'jwks-user@gmail.com',
      name: 'Jwks User',
      type: null,
      approved: false,
    });

    const impostor = await createTestIssuer();
    try {
      await expect(auth.verify(await impostor.mint({ type: 'admin' }))).rejects.toThrow();
    } finally {
      await impostor.close();
    }
  });

  it('keeps sessions across a restart (the generated key is persisted) and publishes the old key after a rotation', async () => {
    const { token, jar } = await signIn(t.url, 'restart@gmail.com');
    const kidBefore = decodeProtectedHeader(token).kid;
    await t.stop();
    t = await startTestIdentity('tokens', {}, t.db);
    expect((await call(t.url, '/api/me', { token })).status).toBe(200);
    expect((await refresh(jar)).status).toBe(200);

    const newKid = await t.svc.ctx.keys.rotate();
    expect(newKid).not.toBe(kidBefore);
    const jwks = await call(t.url, '/internal/jwks');
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid).sort()).toEqual(
      [kidBefore, newKid].sort(),
    );
    expect((await call(t.url, '/api/me', { token })).status).toBe(200);
    const fresh = await refresh(jar);
    expect(decodeProtectedHeader(fresh.body.access_token).kid).toBe(newKid);
  });

  it('signs with JWT_PRIVATE_KEY when set (PEM), still publishing the generated keys it replaced', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const before = (await call(t.url, '/internal/jwks')).body.keys.map(
      (k: { kid: string }) => k.kid,
    );
    const withEnvKey = await startTestIdentity(
      'tokens_env',
      { JWT_PRIVATE_KEY: pem.replace(/\n/g, '\\n') },
      t.db,
    );
    try {
      const { token } = await signIn(withEnvKey.url, 'envkey@gmail.com');
      const kid = decodeProtectedHeader(token).kid;
      const kids = (await call(withEnvKey.url, '/internal/jwks')).body.keys.map(
        (k: { kid: string }) => k.kid,
      );
      expect(kids).toEqual(expect.arrayContaining([kid, ...before]));
      const pub = await exportJWK(createPublicKey(privateKey));
      expect(kids).toContain(kid);
      expect(pub.kty).toBe('EC');
      expect((await call(withEnvKey.url, '/api/me', { token })).status).toBe(200);

      // Rotating an env key: the new instance lists the old public key, so old tokens stay valid.
      await withEnvKey.stop();
      const next = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
      const rotated = await startTestIdentity(
        'tokens_env2',
        {
          JWT_PRIVATE_KEY: JSON.stringify(next.export({ format: 'jwk' })),
          JWT_PREVIOUS_PUBLIC_KEYS: JSON.stringify({ keys: [{ ...pub, kid }] }),
        },
        t.db,
      );
      try {
        expect((await call(rotated.url, '/api/me', { token })).status).toBe(200);
        const fresh = await signIn(rotated.url, 'envkey2@gmail.com');
        expect(decodeProtectedHeader(fresh.token).kid).not.toBe(kid);
        // Without the old key listed, tokens it signed are refused.
        const withoutOld = await startTestIdentity(
          'tokens_env3',
          { JWT_PRIVATE_KEY: JSON.stringify(next.export({ format: 'jwk' })) },
          t.db,
        );
        try {
          expect((await call(withoutOld.url, '/api/me', { token })).status).toBe(401);
        } finally {
          await withoutOld.stop();
        }
      } finally {
        await rotated.stop();
      }
    } finally {
      await withEnvKey.stop();
    }
  });
});
