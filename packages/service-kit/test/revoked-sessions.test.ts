import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Request, Response } from 'express';
import { pino } from 'pino';
import {
  AppError,
  createAuth,
  createRedis,
  publishSessionRevocation,
  RevokedSessions,
  type Auth,
  type Redis,
} from '../src/index.js';
import {
  createTestIssuer,
  testRedisPrefix,
  TEST_REDIS_URL,
  waitFor,
  type TestIssuer,
} from '../src/testing.js';

const logger = pino({ level: 'silent' });
let issuer: TestIssuer;
let redis: Redis;
const prefix = testRedisPrefix('revoked-sessions');
const started: RevokedSessions[] = [];

async function startRevokedSessions(redisUrl = TEST_REDIS_URL): Promise<RevokedSessions> {
  const r = new RevokedSessions({ redisUrl, prefix, logger, startTimeoutMs: 2000 });
  started.push(r);
  await r.start();
  return r;
}

beforeAll(async () => {
  issuer = await createTestIssuer();
  redis = createRedis(TEST_REDIS_URL);
});
afterAll(async () => {
  for (const r of started) r.stop();
  redis?.disconnect();
  await issuer?.close();
});

/** Runs `authenticate` as express would; resolves with what it passed to next(). */
function authenticate(auth: Auth, token: string): Promise<unknown> {
  return new Promise((resolve) => {
    const req = { headers: { authorization: `Bearer ${token}` } } as unknown as Request;
    auth.authenticate(req, {} as Response, (err?: unknown) => resolve(err ?? req.caller));
  });
}

describe('access tokens of revoked sign-in sessions', () => {
  it('are refused on the first and on the remembered path moments after identity publishes the revocation', async () => {
    const revoked = await startRevokedSessions();
    const auth = createAuth({
      jwksUrl: issuer.jwksUrl,
      issuer: issuer.issuer,
      audience: issuer.audience,
      revoked,
    });
    const sid = randomUUID();
    const otherSid = randomUUID();
    const cached = await issuer.mint({ type: 'poster', sid });
    const unseen = await issuer.mint({ type: 'poster', sid });
    const otherSession = await issuer.mint({ type: 'poster', sid: otherSid });
    const noSid = await issuer.mint({ type: 'tester' });
    await expect(auth.verify(cached)).resolves.toMatchObject({ sid, type: 'poster' });
    await expect(authenticate(auth, cached)).resolves.toMatchObject({ sid });

    await publishSessionRevocation(redis, prefix, sid, 900);
    await waitFor(() => revoked.isRevoked(sid), 'the revocation to arrive', 2000);

    await expect(auth.verify(cached)).rejects.toThrow('revoked');
    await expect(auth.verify(unseen)).rejects.toThrow('revoked');
    for (const token of [cached, unseen]) {
      const err = await authenticate(auth, token);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ status: 401, code: 'token_revoked' });
    }
    await expect(authenticate(auth, otherSession)).resolves.toMatchObject({ sid: otherSid });
    await expect(authenticate(auth, noSid)).resolves.toMatchObject({ type: 'tester' });
    expect(((await authenticate(auth, noSid)) as { sid?: string }).sid).toBeUndefined();
  });

  it('are refused by a process started after the revocation (loaded from Redis at start)', async () => {
    const sid = randomUUID();
    await publishSessionRevocation(redis, prefix, sid, 900);
    const revoked = await startRevokedSessions();
    expect(revoked.isRevoked(sid)).toBe(true);
    const auth = createAuth({
      jwksUrl: issuer.jwksUrl,
      issuer: issuer.issuer,
      audience: issuer.audience,
      revoked,
    });
    await expect(authenticate(auth, await issuer.mint({ sid }))).resolves.toMatchObject({
      code: 'token_revoked',
    });
  });

  it('are accepted again once an access token of that session would have expired anyway', async () => {
    const sid = randomUUID();
    const revoked = await startRevokedSessions();
    await publishSessionRevocation(redis, prefix, sid, 1);
    await waitFor(() => revoked.isRevoked(sid), 'the revocation to arrive', 2000);
    await new Promise((r) => setTimeout(r, 1100));
    expect(revoked.isRevoked(sid)).toBe(false);
    expect(await redis.zscore(`${prefix}auth:revoked-sessions`, sid)).not.toBeNull();
    await publishSessionRevocation(redis, prefix, randomUUID(), 900);
    expect(await redis.zscore(`${prefix}auth:revoked-sessions`, sid)).toBeNull();
  });

  it('keeps serving when Redis cannot be reached', async () => {
    const revoked = await startRevokedSessions('redis://127.0.0.1:1');
    const auth = createAuth({
      jwksUrl: issuer.jwksUrl,
      issuer: issuer.issuer,
      audience: issuer.audience,
      revoked,
    });
    await expect(
      authenticate(auth, await issuer.mint({ type: 'poster', sid: randomUUID() })),
    ).resolves.toMatchObject({ type: 'poster' });
  });
});
