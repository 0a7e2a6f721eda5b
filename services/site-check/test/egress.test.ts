import http from 'node:http';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadSiteCheckConfig } from '../src/config.js';
import {
  startEgressProxy,
  REFUSED_HEADER,
  type Connect,
  type Resolve,
} from '../src/providers/egress-proxy.js';
import { runSiteCheck, type RunnerOptions } from '../src/providers/site-runner.js';
import { summarize } from '../src/domain/summarize.js';
import { PIXEL_PNG, startFixtureSite, type FixtureSite } from './fixtures/sites.js';
import { startHarness, waitFor, type Harness } from './support.js';

/**
 * The egress rules attacked. A fake DNS gives the test's names their addresses; the connector
 * reaches only the fixture site (the made-up public address 93.184.215.14 is served by a server
 * on 127.0.0.1) and records every connection asked of it, so "nothing fetched" is checked twice:
 * no connection to a refused address was even attempted, and the canary server on 127.0.0.1
 * (what a refused request would have reached) got no request. No packet leaves this machine.
 */
const PUBLIC = '93.184.215.14';

let site: FixtureSite;
let canary: { port: number; hits: string[]; close(): Promise<void> };
const asked: Array<{ address: string; port: number }> = [];

const names: Record<string, string[]> = {
  'shop.test': [PUBLIC],
  'loopback.test': ['127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': [PUBLIC, '10.0.0.1'],
};
const resolve: Resolve = async (host) => {
  const a = names[host];
  if (!a) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return a;
};
const connect: Connect = (address, port) => {
  asked.push({ address, port });
  if (address === PUBLIC) return net.connect({ host: '127.0.0.1', port: site.port });
  // Anything else would be a leak: never connected, fails at once.
  const s = new net.Socket();
  process.nextTick(() => s.destroy(new Error(`test connector refuses ${address}:${port}`)));
  return s;
};

const runner = (over: Partial<RunnerOptions> = {}): RunnerOptions => ({
  chromePath: '/usr/bin/chromium',
  allowPrivate: false,
  pageTimeoutMs: 30_000,
  checkTimeoutMs: 60_000,
  memoryLimitMb: 1536,
  lighthouse: false,
  maxLinks: 5,
  userAgent: 'HumanTest-SiteCheck/1.0',
  resolve,
  connect,
  ...over,
});

const refusedAddresses = () =>
  asked.filter((a) => a.address !== PUBLIC).map((a) => `${a.address}:${a.port}`);

beforeAll(async () => {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'image/png' }).end(PIXEL_PNG);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  canary = {
    port: (server.address() as net.AddressInfo).port,
    hits,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  site = await startFixtureSite({
    '/redirect-to-metadata': (res) =>
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
    '/private-parts': (res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Parts</title><link rel="icon" href="data:,"></head>
<body><main><h1>Parts</h1>
<img src="/logo.png" alt="Logo">
<img src="http://loopback.test:${canary.port}/by-name.png" alt="By name">
<img src="http://10.0.0.5/private.png" alt="Private">
<img src="http://[::ffff:127.0.0.1]:${canary.port}/mapped.png" alt="Mapped">
<img src="https://metadata.test/tunnel.png" alt="Tunnel">
</main></body></html>`),
  });
});

afterAll(async () => {
  await site?.close();
  await canary?.close();
});

describe('the egress proxy on its own', () => {
  it('refuses a name resolving to loopback, a metadata tunnel and a mixed answer, and connects nowhere', async () => {
    const proxy = await startEgressProxy({ allowPrivate: false, resolve, connect });
    asked.length = 0;
    try {
      const viaProxy = (path: string) =>
        new Promise<http.IncomingMessage>((ok, fail) =>
          http.get({ host: '127.0.0.1', port: proxy.port, path }, ok).on('error', fail),
        );
      const byName = await viaProxy(`http://loopback.test:${canary.port}/x`);
      expect([byName.statusCode, byName.headers[REFUSED_HEADER]]).toEqual([403, 'loopback']);
      const mixed = await viaProxy('http://mixed.test/');
      expect([mixed.statusCode, mixed.headers[REFUSED_HEADER]]).toEqual([403, 'private']);
      const tunnel = await new Promise<number | undefined>((ok, fail) =>
        http
          .request({
            host: '127.0.0.1',
            port: proxy.port,
            method: 'CONNECT',
            path: 'metadata.test:443',
          })
          .on('connect', (res, socket) => {
            socket.destroy();
            ok(res.statusCode);
          })
          .on('error', fail)
          .end(),
      );
      expect(tunnel).toBe(403);
      const allowed = await viaProxy('http://shop.test/logo.png');
      expect(allowed.statusCode).toBe(200);
      allowed.resume();
      expect(proxy.refusals.map((r) => [r.host, r.address, r.reason])).toEqual([
        ['loopback.test', '127.0.0.1', 'loopback'],
        ['mixed.test', '10.0.0.1', 'private'],
        ['metadata.test', '169.254.169.254', 'metadata'],
      ]);
      expect(refusedAddresses()).toEqual([]);
      expect(canary.hits).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});

describe('a check attacked through its URL', () => {
  it.each([
    ['a private IP', 'http://10.0.0.5/', /10\.0\.0\.5 is a private network address/],
    [
      'a name that resolves to 127.0.0.1',
      () => `http://loopback.test:${canary.port}/`,
      /loopback\.test resolves to 127\.0\.0\.1, a loopback address/,
    ],
    [
      'an IPv4-mapped IPv6 loopback',
      () => `http://[::ffff:127.0.0.1]:${canary.port}/`,
      /^::ffff:7f00:1 is a loopback address/,
    ],
  ])('refuses %s before a browser starts', async (_what, url, detail) => {
    asked.length = 0;
    const r = await runSiteCheck(typeof url === 'function' ? url() : url, runner());
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.failure.reason).toBe('refused_address');
    expect(r.failure.detail).toMatch(detail);
    expect(asked).toEqual([]);
    expect(canary.hits).toEqual([]);
  });

  it('refuses a redirect to 169.254.169.254 (the browser follows it through the proxy)', async () => {
    asked.length = 0;
    const r = await runSiteCheck('http://shop.test/redirect-to-metadata', runner());
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.failure).toEqual({
      reason: 'refused_address',
      detail: '169.254.169.254 is the cloud metadata address',
    });
    expect(refusedAddresses()).toEqual([]);
    expect(site.hits).toContain('GET /redirect-to-metadata');
  }, 180_000); // Chromium beside other browser suites on a busy machine

  it('refuses every sub-resource on a private address, reports each, and checks the rest of the page', async () => {
    asked.length = 0;
    const before = site.hits.length;
    const r = await runSiteCheck('http://shop.test/private-parts', runner());
    expect(r).toMatchObject({ ok: true });
    if (!r.ok) return;
    expect(r.check.blocked.map((b) => b.url).sort()).toEqual(
      [
        `http://loopback.test:${canary.port}/by-name.png`,
        'http://10.0.0.5/private.png',
        `http://[::ffff:7f00:1]:${canary.port}/mapped.png`,
        'https://metadata.test/tunnel.png',
      ].sort(),
    );
    expect(r.check.blocked.find((b) => b.url.includes('metadata'))?.reason).toBe(
      'metadata.test resolves to 169.254.169.254, the cloud metadata address',
    );
    // Refused requests are the check's doing, not the site's failures.
    for (const s of r.check.sizes) {
      expect(s.failedRequests).toEqual([]);
      expect(s.brokenImages).toEqual([]);
    }
    expect(site.hits.slice(before).filter((h) => h === 'GET /logo.png').length).toBe(2);
    expect(refusedAddresses()).toEqual([]);
    expect(canary.hits).toEqual([]);
    const { summary } = summarize(r.check);
    expect(summary.findings.find((f) => f.key === 'privacy:blocked')?.text).toBe(
      "The page asks for 4 files from a private network address that visitors' browsers cannot reach (the check did not fetch them)",
    );
  }, 180_000);
});

describe('reported through the service', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(
      'site-check-egress',
      { SITE_CHECK_LIGHTHOUSE: 'false' },
      { resolve, connect },
    );
  });
  afterAll(async () => {
    await h?.close();
  });

  it('ends a job whose site redirects to the metadata address in SiteCheckFailed, and says so', async () => {
    const poster = { id: randomUUID(), type: 'poster' as const };
    const jobId = randomUUID();
    asked.length = 0;
    await h.payJobs('http://shop.test/redirect-to-metadata', poster.id, [jobId]);
    const failed = await waitFor(
      async () => (await h.published()).find((e) => e.type === 'SiteCheckFailed'),
      'SiteCheckFailed',
      60_000,
    );
    expect(failed.subject).toBe(jobId);
    expect(failed.data).toMatchObject({ jobId, reason: 'refused_address' });
    const owner = await h.read(jobId, poster);
    expect(owner.body.state).toBe('failed');
    expect(owner.body.failure).toEqual({
      reason: 'refused_address',
      text: 'The health check did not open the site: its address leads to a private network, which the check never visits.',
      detail: null,
    });
    const admin = await h.read(jobId, { id: randomUUID(), type: 'admin' });
    expect(admin.body.failure?.detail).toBe('169.254.169.254 is the cloud metadata address');
    expect(refusedAddresses()).toEqual([]);
    // Not retried: the one check stays failed.
    const rows = await h.sql<{ attempts: number; state: string }>(
      'SELECT attempts, state FROM site_check.checks',
    );
    expect(rows).toEqual([{ attempts: 1, state: 'failed' }]);
  }, 90_000);
});

describe('configuration', () => {
  it('refuses SITE_CHECK_ALLOW_PRIVATE in production', () => {
    expect(() =>
      loadSiteCheckConfig({
        NODE_ENV: 'production',
        SITE_CHECK_ALLOW_PRIVATE: 'true',
        DATABASE_URL: 'postgres://u:p@db/x',
      }),
    ).toThrow(/SITE_CHECK_ALLOW_PRIVATE: must not be true in production/);
    expect(loadSiteCheckConfig({}).SITE_CHECK_ALLOW_PRIVATE).toBe(false);
  });
});
