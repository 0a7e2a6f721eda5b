import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, get as httpGet, type Server } from 'node:http';
import {
  createTestIssuer,
  testRedisPrefix,
  TEST_REDIS_URL,
  waitFor,
  type TestIssuer,
} from '@htm/service-kit/testing';
import { listen, routesOf } from '@htm/service-kit';
import { LIVE_OPERATIONS } from '@htm/contracts/live';
import { startGateway, type RunningGateway } from '../src/main.js';

/** A stand-in upstream that records what reached it. */
async function recordingUpstream(name: string) {
  const seen: Array<{
    method: string;
    url: string;
    headers: Record<string, unknown>;
    body: string;
  }> = [];
  const app = express();
  app.use(express.text({ type: '*/*' }));
  app.all('/{*splat}', (req, res) => {
    seen.push({
      method: req.method,
      url: req.originalUrl,
      headers: req.headers,
      body: typeof req.body === 'string' ? req.body : '',
    });
    if (req.path === '/readyz') return res.json({ status: 'ok' });
    res.json({ from: name });
  });
  const server = await listen(app, 0);
  return { server, seen };
}

let issuer: TestIssuer;
let gw: RunningGateway;
let identity: Awaited<ReturnType<typeof recordingUpstream>>;
let jobs: Awaited<ReturnType<typeof recordingUpstream>>;
let payments: Awaited<ReturnType<typeof recordingUpstream>>;
let hanging: Server;
let hangingUrl: string;
let webDist: string;
const deadUrl = 'http://127.0.0.1:1'; // nothing listens there

beforeAll(async () => {
  issuer = await createTestIssuer();
  identity = await recordingUpstream('identity');
  jobs = await recordingUpstream('jobs');
  payments = await recordingUpstream('payments');
  hanging = createServer(() => undefined); // accepts, never answers
  await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
  hangingUrl = `http://127.0.0.1:${(hanging.address() as { port: number }).port}`;
  webDist = mkdtempSync(path.join(tmpdir(), 'webdist-'));
  writeFileSync(
    path.join(webDist, 'index.html'),
    '<!doctype html><title>app</title><div id="root"></div>',
  );
  writeFileSync(
    path.join(webDist, 'landing.html'),
    '<!doctype html><title>app</title><div id="root"><h1>Landing</h1></div>',
  );
  writeFileSync(path.join(webDist, 'big.js'), `console.log(${JSON.stringify('x'.repeat(5000))});`);
  gw = await startGateway(
    {
      LOG_LEVEL: 'silent',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: testRedisPrefix('gw'),
      IDENTITY_URL: identity.server.url,
      JOBS_URL: jobs.server.url,
      PAYMENTS_URL: payments.server.url,
      ADMIN_URL: deadUrl,
      IDENTITY_JWKS_URL: issuer.jwksUrl,
      WEB_DIST: webDist,
      OPERATOR_NAME: 'Example Labs LLC',
      SUPPORT_EMAIL: 'help@example-labs.example',
      UPSTREAM_TIMEOUT_MS: '800',
      AUTH_RATE_LIMIT_PER_MINUTE: '5',
      RATE_LIMIT_WINDOW_MS: '1500',
    },
    { port: 0, host: '127.0.0.1', metricsPort: 0 },
  );
});
afterAll(async () => {
  await gw?.stop();
  for (const u of [identity, jobs, payments]) await u?.server.close();
  hanging?.close();
  hanging?.closeAllConnections();
  await issuer?.close();
});

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

const api = (p: string, init: RequestInit = {}) =>
  fetch(`${gw.url}${p}`, { redirect: 'manual', ...init });

describe('shared reports', () => {
  it("sends /r/{token} to jobs signed out, noindex, without a referrer, under the app's CSP", async () => {
    const before = jobs.seen.length;
    for (const p of [
      '/r/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG',
      '/api/shared/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG',
    ]) {
      const res = await api(p);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ from: 'jobs' });
      expect(res.headers.get('x-robots-tag')).toBe('noindex, nofollow');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    }
    expect(jobs.seen.slice(before).map((s) => s.url)).toEqual([
      '/r/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG',
      '/api/shared/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG',
    ]);
    // Other pages of the web app keep the app's own referrer policy.
    expect((await api('/dashboard')).headers.get('referrer-policy')).toBe(
      'strict-origin-when-cross-origin',
    );
  });
});

describe('gateway routing and token checks', () => {
  it('refuses protected routes without a token, before they reach the service', async () => {
    const before = jobs.seen.length;
    const res = await api('/api/tester/available-jobs');
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'unauthenticated' });
    expect(jobs.seen.length).toBe(before);
  });
  it('answers unknown /api paths with a JSON 404 and never proxies /internal', async () => {
    const unknown = await api('/api/nothing-here');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'route_not_found' });
    const internal = await api('/internal/jwks');
    expect(internal.status).toBe(404);
    expect(identity.seen.some((s) => s.url.startsWith('/internal'))).toBe(false);
  });
  it('proxies public auth routes with the correlation id and the client address it saw', async () => {
    const res = await api('/api/auth/refresh', {
      method: 'POST',
      headers: { 'x-correlation-id': 'corr-gw-1', 'x-forwarded-for': '6.6.6.6' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ from: 'identity' });
    const got = identity.seen.at(-1)!;
    expect(got.url).toBe('/api/auth/refresh');
    expect(got.headers['x-correlation-id']).toBe('corr-gw-1');
    expect(got.headers['x-forwarded-for']).not.toContain('6.6.6.6');
  });
  it('answers 503 in the error shape when a service is down', async () => {
    const res = await api('/api/feedback', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      detail: 'The admin service is unavailable. Please try again shortly.',
      code: 'service_unavailable',
    });
  });
  it('answers 504 within the timeout when a service hangs', async () => {
    const g2 = await startGateway(
      {
        LOG_LEVEL: 'silent',
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: testRedisPrefix('gw2'),
        ADMIN_URL: hangingUrl,
        IDENTITY_URL: identity.server.url,
        UPSTREAM_TIMEOUT_MS: '500',
        WEB_DIST: webDist,
      },
      { port: 0, host: '127.0.0.1', metricsPort: 0 },
    );
    try {
      const res = await fetch(`${g2.url}/api/leads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
        signal: AbortSignal.timeout(5000),
      });
      expect(res.status).toBe(504);
      expect(await res.json()).toMatchObject({ code: 'upstream_timeout' });
    } finally {
      await g2.stop();
    }
  });
  it('refuses a JSON body over 1 MB with 413', async () => {
    const res = await api('/api/auth/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ x: 'a'.repeat(1_100_000) }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 'too_large' });
  });
  it('answers oversized addresses and headers in the JSON error shape, without forwarding them', async () => {
    const before = identity.seen.length;
    const longUrl = await api(`/api/auth/session?x=${'a'.repeat(9000)}`);
    expect(longUrl.status).toBe(414);
    expect(await longUrl.json()).toMatchObject({ code: 'uri_too_long' });
    // Fits the gateway's parser, but with what the proxy adds it could overflow the service's.
    const bigHeaders = await api('/api/auth/session', {
      method: 'POST',
      headers: { 'x-padding': 'p'.repeat(15_000) },
    });
    expect(bigHeaders.status).toBe(431);
    expect(await bigHeaders.json()).toMatchObject({ code: 'headers_too_large' });
    // Past what Node parses at all: answered by the server's client-error handler, still JSON.
    const overflow = await api('/api/auth/session', {
      headers: { 'x-padding': 'p'.repeat(20_000) },
    });
    expect(overflow.status).toBe(431);
    expect(overflow.headers.get('content-type')).toMatch(/application\/json/);
    expect(await overflow.json()).toEqual({
      detail: 'The request line or headers are too large.',
      code: 'headers_too_large',
    });
    expect(identity.seen.length).toBe(before);
  });
  it('refuses cookie-carrying writes from another origin', async () => {
    const res = await api('/api/auth/logout', {
      method: 'POST',
      headers: { cookie: 'refresh_token=x', origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'bad_origin' });
  });
});

describe('gateway access-token checks', () => {
  const unsigned = (claims: Record<string, unknown>) =>
    `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;

  it('passes a valid token through to the owning service', async () => {
    const token = await issuer.mint({ type: 'tester' });
    const res = await api('/api/tester/available-jobs', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ from: 'jobs' });
    expect(jobs.seen.at(-1)!.headers.authorization).toBe(`Bearer ${token}`);
  });
  it.each([
    [
      'expired',
      async () => issuer.mint({ exp: Math.floor(Date.now() / 1000) - 60 }),
      'token_expired',
    ],
    ['wrong audience', async () => issuer.mint({ aud: 'someone-else' }), 'invalid_token'],
    ['wrong issuer', async () => issuer.mint({ iss: 'evil' }), 'invalid_token'],
    [
      'tampered',
      async () => {
        const [h, p, s] = (await issuer.mint({ type: 'poster' })).split('.');
        const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
        return [
          h,
          Buffer.from(JSON.stringify({ ...claims, type: 'admin' })).toString('base64url'),
          s,
        ].join('.');
      },
      'invalid_token',
    ],
    [
      'alg none',
      async () =>
        unsigned({
          sub: 'x',
          typ: 'access',
          type: 'admin',
          iss: 'htm-identity',
          aud: 'htm-api',
          exp: 9999999999,
          iat: 1,
        }),
      'invalid_token',
    ],
  ])('refuses a %s token with 401 before the service sees it', async (_name, make, code) => {
    const before = payments.seen.length;
    const res = await api('/api/admin/financial-overview', {
      headers: { authorization: `Bearer ${await make()}` },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code });
    expect(payments.seen.length).toBe(before);
  });
});

describe('gateway security headers, rate limits and the web app', () => {
  it('sends a strict Content-Security-Policy and serves the SPA for client routes', async () => {
    const res = await api('/dashboard/anything');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<div id="root">');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
  it('serves the prerendered landing page at / only, never for client routes', async () => {
    const home = await api('/');
    expect(home.status).toBe(200);
    expect(home.headers.get('cache-control')).toBe('no-cache');
    expect(await home.text()).toContain('<div id="root"><h1>Landing</h1></div>');
    expect(await (await api('/?ref=ad')).text()).toContain('<h1>Landing</h1>');
    // The operator and contact from the config (OPERATOR_NAME, SUPPORT_EMAIL), for the footer.
    const info =
      '<meta name="htm:operator" content="Example Labs LLC"><meta name="htm:support-email" content="help@example-labs.example">';
    for (const p of ['/login', '/dashboard/jobs', '/payment/success']) {
      expect(await (await api(p)).text()).toBe(
        `<!doctype html>${info}<title>app</title><div id="root"></div>`,
      );
    }
    expect(await (await api('/')).text()).toContain(info);
  });
  it('answers 429 with Retry-After past the sign-in limit, then recovers', async () => {
    // The limit is 5 per window per IP across sign-in, session and refresh. A gateway of its own
    // with a 6 s window: the checks below must fall in one window even on a busy machine (with the
    // file's 1.5 s window, eight slow requests spanned two windows and seven passed).
    const g = await startGateway(
      {
        LOG_LEVEL: 'silent',
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: testRedisPrefix('gw-auth'),
        IDENTITY_URL: identity.server.url,
        JOBS_URL: jobs.server.url,
        IDENTITY_JWKS_URL: issuer.jwksUrl,
        WEB_DIST: webDist,
        AUTH_RATE_LIMIT_PER_MINUTE: '5',
        RATE_LIMIT_WINDOW_MS: '6000',
      },
      { port: 0, host: '127.0.0.1', metricsPort: 0 },
    );
    try {
      const signIn = () =>
        fetch(`${g.url}/api/auth/dev/login?email=a@gmail.com`, { redirect: 'manual' });
      // Until refused; the server's RateLimit header says how many of its window were left.
      let limited: Response | undefined;
      const remaining: number[] = [];
      for (let i = 0; i < 20 && !limited; i++) {
        const res = await signIn();
        if (res.status === 429) limited = res;
        else
          remaining.push(Number(/remaining=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1]));
      }
      if (!limited) throw new Error(`never limited (remaining: ${remaining.join(', ')})`);
      // The five requests of the refused one's window passed, counting down; the sixth is refused.
      expect(remaining.slice(-5)).toEqual([4, 3, 2, 1, 0]);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBeTruthy();
      expect(await limited.json()).toMatchObject({ code: 'rate_limited' });
      // A browser that navigated there (not a fetch) gets a page saying to wait, with a retry link.
      const navigate = {
        'sec-fetch-mode': 'navigate',
        'sec-fetch-dest': 'document',
        accept: 'text/html,application/xhtml+xml,*/*;q=0.8',
      };
      const page = await navigateTo(
        `${g.url}/api/auth/dev/login?email=a@gmail.com&intent=tester`,
        navigate,
      );
      expect(page.status).toBe(429);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['retry-after']).toBeTruthy();
      expect(page.headers['content-security-policy']).toMatch(/default-src 'none'/);
      const html = page.text;
      expect(html).toContain('Please wait a moment');
      expect(html).toContain(
        '<a class="btn" href="/api/auth/dev/login?email=a@gmail.com&amp;intent=tester">Try again</a>',
      );
      // Old browsers without fetch metadata: an Accept that prefers HTML is a navigation too; an API call with a token never is.
      expect(
        (await navigateTo(`${g.url}/api/auth/dev/login?email=a@gmail.com`, { accept: 'text/html' }))
          .headers['content-type'],
      ).toMatch(/^text\/html/);
      expect(
        (
          await navigateTo(`${g.url}/api/auth/dev/login?email=a@gmail.com`, {
            accept: 'text/html',
            authorization: 'Bearer x',
          })
        ).headers['content-type'],
      ).toMatch(/json/);
      expect(
        (await navigateTo(`${g.url}/api/auth/dev/login?email=a@gmail.com`, { accept: '*/*' }))
          .headers['content-type'],
      ).toMatch(/json/);
      // Recovers when the window ends.
      await waitFor(
        async () => (await signIn()).status !== 429,
        'sign-in allowed again after the window',
        15_000,
      );
    } finally {
      await g.stop();
    }
  });
  it('answers 429 past the per-user API limit, counting each user on their own', async () => {
    const g = await startGateway(
      {
        LOG_LEVEL: 'silent',
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: testRedisPrefix('gw-api'),
        IDENTITY_URL: identity.server.url,
        JOBS_URL: jobs.server.url,
        IDENTITY_JWKS_URL: issuer.jwksUrl,
        WEB_DIST: webDist,
        API_RATE_LIMIT_PER_MINUTE: '3',
      },
      { port: 0, host: '127.0.0.1', metricsPort: 0 },
    );
    try {
      const [alice, bob] = [
        await issuer.mint({ type: 'tester' }),
        await issuer.mint({ type: 'tester' }),
      ];
      const get = (token: string) =>
        fetch(`${g.url}/api/tester/available-jobs`, {
          headers: { authorization: `Bearer ${token}` },
        });
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await get(alice)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const refused = await get(alice);
      expect(refused.headers.get('retry-after')).toBeTruthy();
      expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
      expect((await get(bob)).status).toBe(200);
    } finally {
      await g.stop();
    }
  });
  it('compresses the web app for clients that accept gzip', async () => {
    const { request } = await import('node:http');
    const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const r = request(`${gw.url}/big.js`, { headers: { 'accept-encoding': 'gzip' } }, resolve);
      r.on('error', reject);
      r.end();
    });
    res.resume();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
  });
  it('keeps metrics off the public port and serves them on the metrics port', async () => {
    expect((await api('/metrics')).headers.get('content-type')).toContain('text/html');
    const m = await (await fetch(`${gw.metricsUrl}/metrics`)).text();
    expect(m).toMatch(/http_requests_total\{[^}]*service="gateway"/);
  });
  it('counts each proxied call under the route it matched, not as unmatched', async () => {
    const token = await issuer.mint({ type: 'tester' });
    const count = async (route: string, status: string) => {
      const text = await (await fetch(`${gw.metricsUrl}/metrics`)).text();
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('http_requests_total{') &&
            l.includes(`route="${route}"`) &&
            l.includes(`status="${status}"`) &&
            l.includes('method="GET"'),
        );
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = await count('/api/jobs/:id/submission', '200');
    const unmatchedBefore = await count('unmatched', '200');
    for (const id of ['a1', 'b2'])
      expect(
        (await api(`/api/jobs/${id}/submission`, { headers: { authorization: `Bearer ${token}` } }))
          .status,
      ).toBe(200);
    expect(await count('/api/jobs/:id/submission', '200')).toBe(before + 2);
    expect(await count('unmatched', '200')).toBe(unmatchedBefore);
    expect((await api('/api/tester/available-jobs')).status).toBe(401);
    expect(await count('/api/tester/available-jobs', '401')).toBeGreaterThanOrEqual(1);
  });
  it('lets requests through while Redis is down at start, and limits again once it is back', async () => {
    const { spawn } = await import('node:child_process');
    const { freePort } = await import('@htm/service-kit');
    const port = await freePort();
    const g = await startGateway(
      {
        LOG_LEVEL: 'silent',
        REDIS_URL: `redis://127.0.0.1:${port}`,
        REDIS_PREFIX: testRedisPrefix('gw4'),
        IDENTITY_URL: identity.server.url,
        IDENTITY_JWKS_URL: issuer.jwksUrl,
        WEB_DIST: webDist,
        AUTH_RATE_LIMIT_PER_MINUTE: '3',
      },
      { port: 0, host: '127.0.0.1', metricsPort: 0 },
    );
    let redis: ReturnType<typeof spawn> | undefined;
    try {
      // No Redis yet: requests are answered (not held for Redis) and not limited.
      for (let i = 0; i < 5; i++)
        expect((await fetch(`${g.url}/api/auth/refresh`, { method: 'POST' })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1500)); // the limiter's script load has failed by now
      redis = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      const { waitFor } = await import('@htm/service-kit/testing');
      // Once Redis answers, the fourth sign-in request in the window is refused.
      const limited = await waitFor(
        async () => {
          for (let i = 0; i < 5; i++)
            if ((await fetch(`${g.url}/api/auth/refresh`, { method: 'POST' })).status === 429)
              return true;
          await new Promise((r) => setTimeout(r, 200));
          return false;
        },
        'the limiter to work again',
        15_000,
      );
      expect(limited).toBe(true);
    } finally {
      await g.stop();
      redis?.kill('SIGKILL');
    }
  });
  it('answers /api/healthz with the status only, looks at the services at most once per interval, and keeps details on the metrics port', async () => {
    const readyzCalls = () => identity.seen.filter((s) => s.url === '/readyz').length;
    const before = readyzCalls();
    const answers = await Promise.all(Array.from({ length: 20 }, () => api('/api/healthz')));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(503)); // admin is down in this setup
    // No hosts, errors or per-service checks for the public.
    for (const r of answers) expect(await r.json()).toEqual({ status: 'degraded' });
    expect(readyzCalls() - before).toBeLessThanOrEqual(1);

    const details = await fetch(`${gw.metricsUrl}/healthz`);
    expect(details.status).toBe(503);
    const body = (await details.json()) as {
      services: Record<string, { status: string; error?: string }>;
    };
    expect(body.services.identity.status).toBe('ok');
    expect(body.services.admin).toMatchObject({ status: 'unavailable', error: expect.any(String) });
  });
});

describe('cross-origin web app and production headers', () => {
  it('allows CORS with credentials for WEB_ORIGIN only, and sends HSTS in production', async () => {
    const g = await startGateway(
      {
        LOG_LEVEL: 'silent',
        NODE_ENV: 'production',
        SERVICE_TOKEN_SECRET: 'a-production-secret-that-is-long-enough-1234',
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: testRedisPrefix('gw3'),
        IDENTITY_URL: identity.server.url,
        IDENTITY_JWKS_URL: issuer.jwksUrl,
        WEB_ORIGIN: 'https://app.example',
        WEB_DIST: webDist,
      },
      { port: 0, host: '127.0.0.1', metricsPort: 0 },
    );
    try {
      const pre = await fetch(`${g.url}/api/auth/refresh`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'x-xsrf-token',
        },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
      const evil = await fetch(`${g.url}/api/auth/refresh`, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      expect(evil.headers.get('access-control-allow-origin')).toBeNull();
      // The web origin may post with cookies; others may not.
      const fromApp = await fetch(`${g.url}/api/auth/logout`, {
        method: 'POST',
        headers: { origin: 'https://app.example', cookie: 'refresh_token=x' },
      });
      expect(fromApp.status).not.toBe(403);
      const page = await fetch(`${g.url}/`);
      expect(page.headers.get('strict-transport-security')).toMatch(/max-age=31536000/);
      expect(page.headers.get('content-security-policy')).toContain(
        "connect-src 'self' https://app.example",
      );
    } finally {
      await g.stop();
    }
  });
  it('sends no HSTS outside production', async () => {
    expect((await api('/')).headers.get('strict-transport-security')).toBeNull();
  });
});

describe('API reference', () => {
  it('serves an OpenAPI 3.1 document covering every route of the ownership table', async () => {
    const res = await api('/api/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    for (const p of [
      '/api/jobs',
      '/api/jobs/{id}/claim',
      '/api/tester/my-earnings',
      '/api/admin/clear-jobs',
      '/api/auth/refresh',
      '/api/waitlist',
    ])
      expect(Object.keys(doc.paths)).toContain(p);
    const post = doc.paths['/api/jobs'].post as {
      requestBody: { content: Record<string, { schema: { required: string[] } }> };
    };
    expect(post.requestBody.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['title', 'url', 'what_to_test']),
    );
  });
  it('serves the API reference (Redoc) with its one asset from this server', async () => {
    const page = await api('/api/docs');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/api/docs/assets/redoc.standalone.js');
    expect(html).not.toMatch(/<script>[^<]/); // no inline script
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect((await api('/api/docs/assets/redoc.standalone.js')).status).toBe(200);
    expect(await (await api('/api/docs/init.js')).text()).toContain(
      "Redoc.init('/api/openapi.json'",
    );
    // Nothing else of the package: other bundles, source maps, its package.json.
    for (const other of [
      'redoc.lib.js',
      'redoc.standalone.js.map',
      'package.json',
      'swagger-ui-bundle.js',
    ]) {
      expect([other, (await api(`/api/docs/assets/${other}`)).status]).toEqual([other, 404]);
    }
  });
  it("has express routes only for its own operations (the live channel, the API reference, health): every other /api path is the catalogue's, proxied", () => {
    const own = routesOf(gw.app).map((r) => `${r.method} ${r.path}`);
    const live = LIVE_OPERATIONS.map((op) => `${op.method} ${op.path}`);
    // The live paths answer every other method 405 (app.all): their routes, not others.
    const livePaths = new Set<string>(LIVE_OPERATIONS.map((op) => op.path));
    expect(
      own.filter((r) => r.includes(' /api/') && !livePaths.has(r.slice(r.indexOf(' ') + 1))).sort(),
    ).toEqual(
      [
        'get /api/docs',
        'get /api/docs/assets/redoc.standalone.js',
        'get /api/docs/init.js',
        'get /api/healthz',
        'get /api/openapi.json',
      ].sort(),
    );
    expect(own).toEqual(expect.arrayContaining(live));
  });
  it('answers 405 for a known path with the wrong method', async () => {
    const res = await api('/api/me', { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ code: 'method_not_allowed' });
  });
});
