/**
 * Live streams end with the access token behind their ticket (issue #27, item 9), and when the
 * user's claims change: the client then comes back with a fresh token and ticket. A gateway alone,
 * trusting a test issuer whose tokens live a few seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { startGateway, type RunningGateway } from '@htm/gateway';
import { createRedis, publishClaimsChange, type Redis } from '@htm/service-kit';
import {
  createTestIssuer,
  testRedisPrefix,
  TEST_REDIS_URL,
  waitFor,
  type TestIssuer,
} from '@htm/service-kit/testing';
import { openSse, type SseStream } from './support/sse.js';

let issuer: TestIssuer;
let gateway: RunningGateway;
let redis: Redis;
const prefix = testRedisPrefix('live-expiry');
const streams: SseStream[] = [];

beforeAll(async () => {
  issuer = await createTestIssuer();
  redis = createRedis(TEST_REDIS_URL);
  gateway = await startGateway(
    {
      LOG_LEVEL: 'silent',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      IDENTITY_URL: issuer.url,
      JOBS_URL: issuer.url,
      PAYMENTS_URL: issuer.url,
      ADMIN_URL: issuer.url,
      NOTIFICATIONS_URL: issuer.url,
      IDENTITY_JWKS_URL: issuer.jwksUrl,
      WEB_DIST: '/nonexistent',
    },
    { port: 0, host: '127.0.0.1', metricsPort: 0 },
  );
});
afterAll(async () => {
  for (const s of streams) s.close();
  await gateway?.stop();
  redis?.disconnect();
  await issuer?.close();
});

async function ticket(
  token: string,
): Promise<{ status: number; body: { ticket?: string; code?: string } }> {
  const r = await fetch(`${gateway.url}/api/live/ticket`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: r.status, body: (await r.json()) as { ticket?: string; code?: string } };
}

async function stream(token: string): Promise<SseStream> {
  const t = await ticket(token);
  expect(t.status).toBe(200);
  const s = await openSse(`${gateway.url}/api/live?ticket=${t.body.ticket!}`);
  expect(s.status).toBe(200);
  streams.push(s);
  return s;
}

const expOf = (token: string) =>
  (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { exp: number }).exp *
  1000;

describe('a live stream', () => {
  it("ends at its token's expiry with `token_expired`, not before", async () => {
    // The gateway's first request fetches the issuer's keys: done before the short token is made.
    expect((await ticket(await issuer.mint({ type: 'tester' }))).status).toBe(200);
    // Long enough for a busy machine to get its ticket (exp has second resolution: 4-5 s).
    const token = await issuer.mint({ type: 'tester', exp: '5s' });
    const s = await stream(token);
    await s.ended; // bounded by jest's timeout; the server ends it
    expect(s.messages.at(-1)?.event).toBe('token_expired');
    // The token's exp has second resolution: the stream ended at it, not earlier.
    expect(Date.now()).toBeGreaterThanOrEqual(expOf(token) - 5);
  });

  it("ends with `account_changed` when the user's claims change, and a new ticket needs a refreshed token (401 token_stale)", async () => {
    const id = randomUUID();
    const token = await issuer.mint({
      id,
      type: 'tester',
      approved: false,
      claimsAt: Date.now() - 1000,
    });
    const s = await stream(token);
    await publishClaimsChange(redis, prefix, id, Date.now(), 900);
    await s.ended;
    expect(s.messages.at(-1)?.event).toBe('account_changed');
    const again = await waitFor(async () => {
      const r = await ticket(token);
      return r.status === 401 ? r : undefined;
    }, 'the stale token to be refused');
    expect(again.body.code).toBe('token_stale');
    // A token with the current claims gets a stream again.
    const fresh = await issuer.mint({ id, type: 'tester', approved: true, claimsAt: Date.now() });
    expect((await stream(fresh)).status).toBe(200);
  });
});
