import { get as httpGet } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  CookieJar,
  devLogin,
  sessionIdOf,
  startTestIdentity,
  waitFor,
  type TestIdentity,
} from './helpers.js';

let t: TestIdentity;

/** A request as a browser navigation sends it (Node's fetch would overwrite Sec-Fetch-Mode with `cors`). */
function navigateTo(
  url: string,
  headers: Record<string, string>,
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    }).on('error', reject);
  });
}

beforeAll(async () => {
  t = await startTestIdentity('ratelimit', {
    AUTH_RATE_LIMIT_PER_MINUTE: '3',
    AUTH_RATE_LIMIT_WINDOW_MS: '1500',
    TRUST_PROXY: 'true',
  });
});
afterAll(async () => {
  await t?.stop();
  await t?.db.drop();
});

describe('sign-in rate limits (per client IP, in Redis)', () => {
  it('answers 429 in the JSON error shape with Retry-After, per IP and per group, then recovers', async () => {
    const ip = { 'x-forwarded-for': '203.0.113.7' };
    const sessions: Array<{ id: string; jar: CookieJar }> = [];
    for (let i = 0; i < 3; i++) {
      const ok = await devLogin(t.url, { email: `rl${i}@gmail.com` }, ip);
      expect(ok.status).toBe(302);
      sessions.push({ id: sessionIdOf(ok.headers.get('location')), jar: new CookieJar().take(ok) });
    }
    const limited = await devLogin(t.url, { email: 'rl3@gmail.com' }, ip);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await limited.json()).toEqual({ detail: expect.any(String), code: 'rate_limited' });
    // The Google route and the callback share the sign-in counter.
    expect((await fetch(`${t.url}/api/auth/google`, { headers: ip })).status).toBe(429);
    // A browser navigating there sees a page that says to wait, with a link to try again.
    const page = await navigateTo(`${t.url}/api/auth/google?intent=poster`, {
      ...ip,
      'sec-fetch-mode': 'navigate',
      accept: 'text/html',
    });
    expect(page.status).toBe(429);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(Number(page.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const html = page.text;
    expect(html).toContain('Please wait');
    expect(html).toContain('href="/api/auth/google?intent=poster"');
    expect(html).not.toContain('rate_limited');

    // Another client IP is not affected, nor is the session exchange of the same IP.
    expect(
      (
        await devLogin(
          t.url,
          { email: 'other-ip@gmail.com' },
          { 'x-forwarded-for': '198.51.100.9' },
        )
      ).status,
    ).toBe(302);
    const ex = await fetch(`${t.url}/api/auth/session`, {
      method: 'POST',
      headers: { ...ip, 'content-type': 'application/json', cookie: sessions[0].jar.header() },
      body: JSON.stringify({ session_id: sessions[0].id }),
    });
    expect(ex.status).toBe(200);

    const keys = await t.svc.ctx.redis.keys(`${t.env.REDIS_PREFIX}ratelimit:identity:*`);
    expect(keys.length).toBeGreaterThan(0);

    await waitFor(
      async () => (await devLogin(t.url, { email: 'rl4@gmail.com' }, ip)).status === 302,
      'the window to pass',
      10_000,
    );
  });

  it('limits the session exchange and refresh too', async () => {
    const ip = { 'x-forwarded-for': '192.0.2.44' };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await call(t.url, '/api/auth/refresh', { method: 'POST', headers: ip })).status,
      );
    expect(statuses).toEqual([401, 401, 401, 429]);
    const ex: number[] = [];
    for (let i = 0; i < 4; i++)
      ex.push(
        (
          await call(t.url, '/api/auth/session', {
            method: 'POST',
            headers: ip,
            body: { session_id: 'nope' },
          })
        ).status,
      );
    expect(ex).toEqual([401, 401, 401, 429]);
  });
});
