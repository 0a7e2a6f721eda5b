/** A service with several replicas (comma-separated JOBS_URL): balancing, draining, refused connections. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import {
  createTestIssuer,
  testRedisPrefix,
  TEST_REDIS_URL,
  type TestIssuer,
} from '@htm/service-kit/testing';
import { listen, type RunningServer } from '@htm/service-kit';
import { startGateway, type RunningGateway } from '../src/main.js';

interface Replica {
  server: RunningServer;
  seen: Array<{ method: string; body: string }>;
  ready: boolean;
}

async function replica(): Promise<Replica> {
  const r = { seen: [], ready: true } as unknown as Replica;
  const app = express();
  app.use(express.text({ type: '*/*' }));
  app.get('/readyz', (_req, res) => {
    res.status(r.ready ? 200 : 503).json({ status: r.ready ? 'ok' : 'draining' });
  });
  app.all('/{*splat}', (req, res) => {
    r.seen.push({ method: req.method, body: typeof req.body === 'string' ? req.body : '' });
    res.json({ ok: true });
  });
  r.server = await listen(app, 0);
  return r;
}

let issuer: TestIssuer;
let gw: RunningGateway;
let a: Replica;
let b: Replica;
let token: string;
const dead = 'http://127.0.0.1:1'; // a stopped replica: refuses every connection

beforeAll(async () => {
  issuer = await createTestIssuer();
  [a, b] = await Promise.all([replica(), replica()]);
  gw = await startGateway(
    {
      LOG_LEVEL: 'silent',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: testRedisPrefix('gw-replicas'),
      IDENTITY_URL: dead,
      IDENTITY_JWKS_URL: issuer.jwksUrl,
      JOBS_URL: `${dead},${a.server.url},${b.server.url}`,
      UPSTREAM_HEALTH_INTERVAL_MS: '50',
      WEB_DIST: '/nonexistent',
    },
    { port: 0, host: '127.0.0.1', metricsPort: 0 },
  );
  token = await issuer.mint({ type: 'poster' });
});
afterAll(async () => {
  await gw?.stop();
  for (const r of [a, b]) await r?.server.close();
  await issuer?.close();
});

const post = (body: string) =>
  fetch(`${gw.url}/api/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a service with several replicas', () => {
  it('spreads requests over the ready replicas and sends a request a stopped replica refused to another one, body intact', async () => {
    // No health check has run yet: every replica, the stopped one included, is tried in turn.
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => post(JSON.stringify({ title: `job ${i}` }))),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(a.seen.length).toBeGreaterThan(0);
    expect(b.seen.length).toBeGreaterThan(0);
    expect(a.seen.length + b.seen.length).toBe(12);
    const bodies = [...a.seen, ...b.seen].map((s) => s.body).sort();
    expect(bodies).toEqual(
      Array.from({ length: 12 }, (_, i) => JSON.stringify({ title: `job ${i}` })).sort(),
    );
  });

  it('stops sending to a draining replica (readiness 503) and takes it back once ready', async () => {
    a.ready = false;
    await sleep(300);
    a.seen.length = 0;
    b.seen.length = 0;
    for (let i = 0; i < 6; i++)
      expect(
        (await fetch(`${gw.url}/api/jobs`, { headers: { authorization: `Bearer ${token}` } }))
          .status,
      ).toBe(200);
    expect(a.seen).toEqual([]);
    expect(b.seen).toHaveLength(6);

    a.ready = true;
    await sleep(300);
    for (let i = 0; i < 6; i++)
      await fetch(`${gw.url}/api/jobs`, { headers: { authorization: `Bearer ${token}` } });
    expect(a.seen.length).toBeGreaterThan(0);
  });

  it('lists each replica in the detailed health (metrics port) and counts the ready ones; /api/healthz says only the status', async () => {
    const pub = await fetch(`${gw.url}/api/healthz`);
    expect(await pub.json()).toEqual({ status: 'degraded' }); // identity is down in this test
    const r = await fetch(`${gw.metricsUrl}/healthz`);
    const body = (await r.json()) as {
      services: {
        jobs: {
          status: string;
          ready_replicas: number;
          replicas: Record<string, { status: string }>;
        };
      };
    };
    expect(body.services.jobs).toMatchObject({ status: 'ok', ready_replicas: 2 });
    expect(body.services.jobs.replicas[dead].status).toBe('unavailable');
  });
});
