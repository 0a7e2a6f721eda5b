/**
 * The production bundles (scripts/build-services.ts, what the images run): each service builds,
 * starts with `node main.js` against a real Postgres and Redis, applies its migrations from the
 * folder copied next to the bundle, and answers /healthz; the jobs worker bundle starts the worker
 * without also starting the jobs API it imports.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import {
  createTestDatabase,
  testRedisPrefix,
  TEST_REDIS_URL,
  waitFor,
  type TestDatabase,
} from '@htm/service-kit/testing';
import { buildService, TARGETS } from '../../scripts/build-services.js';
import { ROOT } from './helpers.js';

// Inside the repository so the bundles' npm imports resolve from its node_modules, as they
// resolve from dist/<service>/node_modules in an image.
const OUT = path.join(ROOT, 'test-results', `bundles-${process.pid}`);
let db: TestDatabase;
const prefix = testRedisPrefix('bundles');
const children = new Set<ChildProcess>();

interface Started {
  child: ChildProcess;
  lines: string[];
  url?: string;
}

/** Starts a bundle and resolves once a log line matches `ready` (or rejects when it exits first). */
function start(
  file: string,
  env: Record<string, string>,
  ready: RegExp,
  nodeArgs: string[] = [],
): Promise<Started> {
  const child = spawn(process.execPath, [...nodeArgs, file], {
    cwd: path.dirname(file),
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`${path.relative(ROOT, file)} not ready in 45 s:\n${lines.join('\n')}`)),
      45_000,
    );
    const onLine = (line: string) => {
      lines.push(line);
      if (ready.test(line)) {
        clearTimeout(timer);
        let url: string | undefined;
        try {
          url = (JSON.parse(line) as { url?: string }).url;
        } catch {
          /* not JSON */
        }
        resolve({ child, lines, url });
      }
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', onLine);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(
        new Error(
          `${path.relative(ROOT, file)} exited with ${code} before it was ready:\n${lines.join('\n')}`,
        ),
      );
    });
  });
}

async function stop(s: Started): Promise<number | null> {
  if (s.child.exitCode !== null) return s.child.exitCode;
  const exited = new Promise<number | null>((r) => s.child.once('exit', (code) => r(code)));
  s.child.kill('SIGTERM');
  const code = await exited;
  children.delete(s.child);
  return code;
}

beforeAll(async () => {
  db = await createTestDatabase('bundles');
  for (const t of TARGETS) await buildService(t, { outRoot: OUT, log: () => undefined });
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await db?.drop();
  const redis = new (await import('ioredis')).Redis(TEST_REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  rmSync(OUT, { recursive: true, force: true });
});

const env = () => ({
  DATABASE_URL: db.url,
  REDIS_URL: TEST_REDIS_URL,
  REDIS_PREFIX: prefix,
  HOST: '127.0.0.1',
  PORT: '0',
  WORKER_PORT: '0',
  METRICS_PORT: '0',
  LOG_LEVEL: 'info',
  JOBS_WITH_WORKER: 'false',
});

describe('service bundles', () => {
  it.each(TARGETS.map((t) => [t.service]))(
    '%s: bundle, package.json of its npm dependencies and migrations are in place',
    (service) => {
      const dir = path.join(OUT, service);
      expect(existsSync(path.join(dir, 'main.js'))).toBe(true);
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        type: string;
        dependencies: Record<string, string>;
      };
      expect(pkg.type).toBe('module');
      // Pinned versions of what the bundle imports; dev-only and embedded-only packages stay out.
      for (const [name, version] of Object.entries(pkg.dependencies))
        expect({ name, version }).toEqual({
          name,
          version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        });
      for (const devOnly of [
        '@electric-sql/pglite',
        'testcontainers',
        'jest',
        'typescript',
        'tsx',
        'esbuild',
      ])
        expect(pkg.dependencies[devOnly]).toBeUndefined();
      const migrations = path.join(ROOT, 'services', service, 'src', 'db', 'migrations');
      if (existsSync(migrations))
        expect(existsSync(path.join(dir, 'db', 'migrations', 'meta', '_journal.json'))).toBe(true);
    },
  );

  it.each(TARGETS.map((t) => [t.service]))(
    '%s: `node main.js` starts, migrates and answers /healthz',
    async (service) => {
      const s = await start(path.join(OUT, service, 'main.js'), env(), /listening/);
      try {
        expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        const health = await fetch(`${s.url}/healthz`);
        expect(health.status).toBe(200);
        if (existsSync(path.join(ROOT, 'services', service, 'src', 'db', 'migrations'))) {
          const c = new pg.Client({ connectionString: db.url });
          await c.connect();
          try {
            // The service's schema (and its migrations table) is its name in snake case (site_check).
            const r = await c.query(
              `SELECT count(*)::int AS n FROM drizzle."${service.replace(/-/g, '_')}_migrations"`,
            );
            expect(r.rows[0].n).toBeGreaterThan(0);
          } finally {
            await c.end();
          }
          expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
        }
      } finally {
        expect(await stop(s)).toBe(0);
      }
    },
  );

  it('with an OTLP endpoint set, `node --import ./otel-register.js main.js` (as the images run) traces a request down to its SQL and Redis commands', async () => {
    // A stand-in OTLP/HTTP collector: the exporter posts JSON (ExportTraceServiceRequest).
    interface OtlpSpan {
      traceId: string;
      spanId: string;
      parentSpanId?: string;
      name: string;
      kind: number;
      scope: string;
      service?: string;
    }
    const spans: OtlpSpan[] = [];
    type Export = {
      resourceSpans: Array<{
        resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
        scopeSpans: Array<{ scope: { name: string }; spans: Array<Omit<OtlpSpan, 'scope'>> }>;
      }>;
    };
    const collector = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        for (const rs of (JSON.parse(body) as Export).resourceSpans) {
          const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value
            .stringValue;
          for (const ss of rs.scopeSpans)
            for (const sp of ss.spans) spans.push({ ...sp, scope: ss.scope.name, service });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const dir = path.join(OUT, 'identity');
    const s = await start(
      path.join(dir, 'main.js'),
      {
        ...env(),
        DEV_SIGN_IN: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      /listening/,
      ['--import', './otel-register.js'],
    );
    try {
      const signIn = await fetch(
        `${s.url}/api/auth/dev/login?email=otel.bundle@gmail.com&name=Otel&intent=poster`,
        { redirect: 'manual' },
      );
      expect(signIn.status).toBe(302);
      // The request's span (tracing.ts), and under it in the same trace: SQL (pg) and Redis (the
      // sign-in rate limit) commands from the SDK's instrumentations, named after the service.
      const server = await waitFor(
        () =>
          spans.find(
            (x) => x.scope === 'htm.identity' && x.name.startsWith('GET /api/auth/dev/login'),
          ),
        'the sign-in request span',
      );
      expect(server.service).toBe('identity');
      const inTrace = () => spans.filter((x) => x.traceId === server.traceId);
      await waitFor(
        () =>
          inTrace().some(
            (x) => x.scope === '@opentelemetry/instrumentation-pg' && x.name.startsWith('pg.query'),
          ) && inTrace().some((x) => x.scope === '@opentelemetry/instrumentation-ioredis'),
        'SQL and Redis spans in the sign-in trace',
      );
      const ids = new Set(inTrace().map((x) => x.spanId));
      for (const x of inTrace().filter((y) => y.spanId !== server.spanId))
        expect(ids.has(x.parentSpanId ?? '')).toBe(true);
    } finally {
      expect(await stop(s)).toBe(0);
      collector.close();
    }
  });

  it('the jobs worker bundle starts the timer worker and not the jobs API it imports', async () => {
    const s = await start(path.join(OUT, 'jobs', 'worker.js'), env(), /timer worker started/);
    try {
      expect(s.lines.filter((l) => /service listening/.test(l))).toEqual([]);
    } finally {
      expect(await stop(s)).toBe(0);
    }
  });
});
