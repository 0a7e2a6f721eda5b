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
    for (const l of chunk.toString().split('\n').filter(Boolean))
      lines.push(JSON.parse(l) as Record<string, unknown>);
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
    const auth = createAuth({
      jwksUrl: issuer.jwksUrl,
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
    });
    server = await listen(createGatewayApp({ config, logger, auth, redis }));
    const res = await fetch(`${server.url}/api/auth/refresh`, {
      method: 'POST',
      headers: { 'x-correlation-id': 'corr-log-7' },
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('x-correlation-id')).toBe('corr-log-7');
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'upstream failed',
        service: 'identity',
        correlationId: 'corr-log-7',
        code: 'ECONNREFUSED',
      }),
    );
  });
  it('never write query strings: signed file links, OAuth codes and e-mails stay out of the logs', async () => {
    if (!server) throw new Error('the first test starts the gateway');
    const secrets = ['SIGSECRET123', 'OAUTHCODE456', 'victim.person'];
    await fetch(
      `${server.url}/api/files/0b6b5c1e-1111-4222-8333-444455556666?sig=SIGSECRET123&exp=99`,
    );
    await fetch(`${server.url}/api/auth/google/callback?code=OAUTHCODE456&state=s`, {
      redirect: 'manual',
    });
    await fetch(`${server.url}/api/auth/dev/login?email=victim.person@gmail.com&intent=poster`, {
      redirect: 'manual',
    });
    const text = JSON.stringify(lines);
    for (const secret of secrets) expect(text).not.toContain(secret);
    const urls = lines
      .map((l) => (l.req as { url?: string } | undefined)?.url ?? (l.url as string | undefined))
      .filter(Boolean);
    expect(urls).toContain(
      '/api/files/0b6b5c1e-1111-4222-8333-444455556666?sig=[redacted]&exp=[redacted]',
    );
    expect(urls).toContain('/api/auth/dev/login?email=[redacted]&intent=[redacted]');
  });
});
