import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { createAuth } from '../src/index.js';
import { createTestIssuer, type TestIssuer } from '../src/testing.js';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await createTestIssuer();
});
afterAll(async () => {
  await issuer?.close();
});

/** The JWKS key getter, counting how often a signature had to be checked. */
function countingKeys(): { getKey: JWTVerifyGetKey; checks: () => number } {
  const remote = createRemoteJWKSet(new URL(issuer.jwksUrl));
  let n = 0;
  return {
    getKey: (header, token) => {
      n++;
      return remote(header, token);
    },
    checks: () => n,
  };
}

const issuerOf = () => ({ issuer: issuer.issuer, audience: issuer.audience });

describe('access-token verification cache', () => {
  it('checks a token signature once, then answers it from memory with the same caller', async () => {
    const keys = countingKeys();
    const auth = createAuth({
      getKey: keys.getKey,
      issuer: issuer.issuer,
      audience: issuer.audience,
    });
    const token = await issuer.mint({ type: 'tester', email: 'cache.me@gmail.com', country: 'CA' });
    const first = await auth.verify(token);
    first.name = 'changed by a handler';
    const second = await auth.verify(token);
    expect(keys.checks()).toBe(1);
    expect(second).toMatchObject({
      email: 'cache.me@gmail.com',
      type: 'tester',
      country: 'CA',
      approved: true,
      name: 'Test User',
    });
  });

  it('never remembers a token past its expiry, nor a token that failed', async () => {
    const keys = countingKeys();
    const auth = createAuth({
      getKey: keys.getKey,
      issuer: issuer.issuer,
      audience: issuer.audience,
    });
    const shortLived = await issuer.mint({
      type: 'poster',
      exp: Math.floor(Date.now() / 1000) + 2,
    });
    await expect(auth.verify(shortLived)).resolves.toMatchObject({ type: 'poster' });
    await new Promise((r) => setTimeout(r, 2200));
    await expect(auth.verify(shortLived)).rejects.toMatchObject({ code: 'ERR_JWT_EXPIRED' });

    const [h, p, s] = (await issuer.mint({ type: 'poster' })).split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), type: 'admin' })).toString('base64url')}.${s}`;
    const before = keys.checks();
    await expect(auth.verify(tampered)).rejects.toThrow();
    await expect(auth.verify(tampered)).rejects.toThrow();
    expect(keys.checks() - before).toBe(2);
  });

  it('lets go of a token when it expires, even if it is never presented again', async () => {
    const auth = createAuth({ getKey: countingKeys().getKey, ...issuerOf() });
    const now = Math.floor(Date.now() / 1000);
    await auth.verify(await issuer.mint({ type: 'poster', exp: now + 1 }));
    await auth.verify(await issuer.mint({ type: 'tester', exp: now + 600 }));
    expect(auth.rememberedTokens()).toBe(2);
    // Waits for the condition (the short one's expiry passes), not for a fixed time.
    for (const deadline = Date.now() + 4_000; auth.rememberedTokens() > 1;) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(auth.rememberedTokens()).toBe(1);
  });

  it('remembers a token that lives for months without a timer firing every millisecond', async () => {
    // A delay past setTimeout's 2^31-1 ms is cut to 1 ms by Node, and the cache's purge timer
    // would then fire and re-arm every millisecond for as long as the token is held.
    const delays: number[] = [];
    const realSetTimeout = globalThis.setTimeout;
    globalThis.setTimeout = ((fn: () => void, ms?: number) => {
      delays.push(ms ?? 0);
      return realSetTimeout(fn, ms);
    }) as typeof setTimeout;
    try {
      const auth = createAuth({ getKey: countingKeys().getKey, ...issuerOf() });
      await auth.verify(await issuer.mint({ type: 'poster', exp: '90d' }));
      expect(auth.rememberedTokens()).toBe(1);
    } finally {
      globalThis.setTimeout = realSetTimeout;
    }
    expect(delays.length).toBeGreaterThan(0);
    expect(Math.max(...delays)).toBeLessThanOrEqual(2 ** 31 - 1);
  });

  it('can be turned off', async () => {
    const keys = countingKeys();
    const auth = createAuth({
      getKey: keys.getKey,
      issuer: issuer.issuer,
      audience: issuer.audience,
      cacheSize: 0,
    });
    const token = await issuer.mint({ type: 'poster' });
    await auth.verify(token);
    await auth.verify(token);
    expect(keys.checks()).toBe(2);
  });
});
