import { afterAll, describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createAuth, createRedis, listen, type RunningServer } from '@htm/service-kit';
import { createTestIssuer, TEST_REDIS_URL, testRedisPrefix } from '@htm/service-kit/testing';
import { createGatewayApp } from '../src/app.js';
import { loadGatewayConfig } from '../src/config.js';

const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
    done();
  },
});
const redis = createRedis(TEST_REDIS_URL);
let server: RunningServer | undefined;
let closeIssuer: (() => Promise<void>) | undefined;
afterAll(async () => {
  await server?.close();
  await closeIssuer?.();
  redis.disconnect();
});

describe('gateway log lines', () => {
  it('name the correlation id of the request that failed upstream', async () => {
    const issuer = await createTestIssuer();
    closeIssuer = () => issuer.close();
    const config = loadGatewayConfig({
      REDIS_PREFIX: testRedisPrefix('gwlog'),
      IDENTITY_URL: 'http://127.0.0.1:1',
      JOBS_URL: 'http://127.0.0.1:1',
      PAYMENTS_URL: 'http://127.0.0.1:1',
      ADMIN_URL: 'http://127.0.0.1:1',
      WEB_DIST: '/nonexistent',
    });
    const logger = pino({ level: 'info' }, sink);
    const auth = createAuth({ jwksUrl: issuer.jwksUrl, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE });
    server = await listen(createGatewayApp({ config, logger, auth, redis }));
    const res = await fetch(`${server.url}/api/auth/refresh`, { method: 'POST', headers: { 'x-correlation-id': 'corr-log-7' } });
    expect(res.status).toBe(503);
    expect(res.headers.get('x-correlation-id')).toBe('corr-log-7');
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'upstream failed', service: 'identity', correlationId: 'corr-log-7', code: 'ECONNREFUSED' }));
  });
});
