/**
 * Dockerfile, .dockerignore and docker-compose.yml, checked statically (no Docker engine here):
 * one non-root node:24-slim image per service with a /healthz HEALTHCHECK, every compose service
 * built from one of those targets, health-checked, on Kafka, started after its dependencies.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { collectKeys } from '../../scripts/env-example.js';
import { TARGETS } from '../../scripts/build-services.js';
import { dockerStages, readYamlDocs, ROOT, serviceTargets } from './helpers.js';

const SERVICES = [
  'gateway',
  'identity',
  'jobs',
  'jobs-worker',
  'payments',
  'admin',
  'notifications',
  'analytics',
  'site-check',
];
const { args, stages } = dockerStages();
const stage = (name: string) => stages.find((s) => s.name === name)!;

describe('Dockerfile', () => {
  it('builds one image target per service and the jobs worker, on node:24-slim', () => {
    expect(serviceTargets().sort()).toEqual([...SERVICES].sort());
    expect(args.NODE_IMAGE).toBe('node:24-slim');
    for (const s of stages.filter((x) => !x.from.match(/^(deps|build|runtime|runtime-chromium)$/)))
      expect(s.from).toBe('${NODE_IMAGE}');
  });

  it('every COPY --from names an earlier stage', () => {
    const names: string[] = [];
    for (const s of stages) {
      for (const l of s.lines) {
        const m = /^COPY\s+--from=(\S+)/.exec(l);
        if (m) expect(names).toContain(m[1]);
      }
      names.push(s.name);
    }
  });

  it.each(['runtime', 'runtime-chromium'])(
    '%s runs as a numeric non-root user with production settings',
    (name) => {
      const runtime = stage(name);
      const user = runtime.lines.find((l) => l.startsWith('USER '))!;
      expect(user).toMatch(/^USER\s+[1-9]\d*(:[1-9]\d*)?$/);
      expect(runtime.lines.join('\n')).toMatch(/NODE_ENV=production/);
      expect(runtime.lines.join('\n')).toMatch(/HOST=0\.0\.0\.0/);
      // No service stage switches back to root.
      for (const t of SERVICES)
        expect(stage(t).lines.filter((l) => l.startsWith('USER '))).toEqual([]);
    },
  );

  it.each(SERVICES)(
    '%s: copies its bundle, exposes its port, health-checks /healthz and starts node with OpenTelemetry loaded first',
    (t) => {
      const s = stage(t);
      const text = s.lines.join('\n');
      const bundle = t === 'jobs-worker' ? 'jobs' : t;
      expect(text).toContain(`COPY --from=build /src/dist/${bundle}/ /app/`);
      const port = /ENV PORT=(\d+)/.exec(text)?.[1];
      expect(text).toContain(`EXPOSE ${port}`);
      expect(text).toMatch(/HEALTHCHECK .*CMD \["node", "-e", ".*\/healthz/);
      expect(text).toMatch(
        t === 'jobs-worker'
          ? /CMD \["node", "--import", "\.\/otel-register\.js", "worker\.js"\]/
          : /CMD \["node", "--import", "\.\/otel-register\.js", "main\.js"\]/,
      );
    },
  );

  it('the gateway image carries the built web app', () => {
    const text = stage('gateway').lines.join('\n');
    expect(text).toContain('COPY --from=build /src/web/dist/ /app/web/');
    expect(text).toMatch(/WEB_DIST=\/app\/web/);
  });

  it('the build stage bundles every service that scripts/build-services.ts knows, and the web app', () => {
    const build = stage('build').lines.join('\n');
    expect(build).toContain('npm run build -w web');
    expect(build).toContain('npm run build:services');
    expect(TARGETS.map((t) => t.service).sort()).toEqual([
      'admin',
      'analytics',
      'gateway',
      'identity',
      'jobs',
      'notifications',
      'payments',
      'site-check',
    ]);
    expect(Object.keys(TARGETS.find((t) => t.service === 'jobs')!.entries).sort()).toEqual([
      'main',
      'worker',
    ]);
  });

  it('.dockerignore keeps dependencies, builds, secrets and git out of the context', () => {
    const lines = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    for (const p of ['**/node_modules', '**/dist', '.git', '.env', '**/.data'])
      expect(lines).toContain(p);
  });
});

/** The fields of a docker-compose service these tests read (as parsed, not validated). */
interface ComposeService {
  image: string;
  build: { target: string };
  command: string[];
  environment: Record<string, string | number | boolean>;
  healthcheck: { test: string[] };
  depends_on: Record<string, { condition: string }>;
}

describe('docker-compose.yml', () => {
  const [compose] = readYamlDocs(path.join(ROOT, 'docker-compose.yml')) as Array<{
    services: Record<string, ComposeService>;
  }>;
  const services = compose.services;

  it('has Postgres, Redis (AOF, noeviction) and Kafka in KRaft mode', () => {
    expect(services.postgres.image).toMatch(/^postgres:/);
    const redisCmd = services.redis.command.join(' ');
    expect(redisCmd).toContain('--appendonly yes');
    expect(redisCmd).toContain('--maxmemory-policy noeviction');
    expect(services.kafka.environment.KAFKA_PROCESS_ROLES).toBe('broker,controller');
    expect(services.kafka.environment.KAFKA_ZOOKEEPER_CONNECT).toBeUndefined();
    for (const infra of ['postgres', 'redis', 'kafka'])
      expect(services[infra].healthcheck.test).toBeDefined();
  });

  it.each(SERVICES)(
    '%s: built from its Dockerfile target, health-checked, on Kafka, after healthy dependencies',
    (name) => {
      const s = services[name];
      expect(s).toBeDefined();
      expect(s.build.target).toBe(name);
      expect(serviceTargets()).toContain(s.build.target);
      expect(s.image).toMatch(new RegExp(`^htm/${name}:`));
      const test = s.healthcheck.test.join(' ');
      expect(test).toMatch(new RegExp(`127\\.0\\.0\\.1:${s.environment.PORT}/(healthz|readyz)`));
      const env = s.environment;
      expect(env.EVENT_BUS).toBe('kafka');
      expect(env.KAFKA_BROKERS).toBe('kafka:9092');
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
      // Its own Redis user (deploy/redis/users.acl.template); the jobs worker is the jobs service.
      const user = name === 'jobs-worker' ? 'jobs' : name;
      expect(env.REDIS_URL).toBe(
        `redis://${user}:\${REDIS_PASSWORD_${user.toUpperCase().replace(/-/g, '_')}:-compose-only-redis-${user}-0123456789}@redis:6379`,
      );
      expect(env.HOST).toBe('0.0.0.0');
      expect(env).toMatchObject({
        IDENTITY_URL: 'http://identity:8081',
        JOBS_URL: 'http://jobs:8082',
        PAYMENTS_URL: 'http://payments:8083',
        ADMIN_URL: 'http://admin:8084',
      });
      const deps = s.depends_on as Record<string, { condition: string }>;
      expect(Object.keys(deps).length).toBeGreaterThan(0);
      for (const [dep, { condition }] of Object.entries(deps)) {
        expect(services[dep]).toBeDefined();
        expect(condition).toBe(
          dep === 'kafka-init' ? 'service_completed_successfully' : 'service_healthy',
        );
      }
      if (name === 'gateway')
        expect(Object.keys(deps)).toEqual(
          expect.arrayContaining([
            'identity',
            'jobs',
            'payments',
            'admin',
            'notifications',
            'analytics',
            'site-check',
          ]),
        );
      else
        expect(Object.keys(deps)).toEqual(expect.arrayContaining(['postgres', 'redis', 'kafka']));
    },
  );

  it('sets only settings the services know', async () => {
    const known = new Set((await collectKeys()).map((k) => k.key));
    known.add('JOBS_WITH_WORKER');
    for (const name of SERVICES) {
      for (const key of Object.keys(services[name].environment))
        expect({ service: name, key, known: known.has(key) }).toEqual({
          service: name,
          key,
          known: true,
        });
    }
  });

  it('runs the jobs API without the in-process worker when the worker container runs', () => {
    // services/jobs/src/main.ts starts the timer worker in-process unless JOBS_WITH_WORKER=false.
    expect(String(services.jobs.environment.JOBS_WITH_WORKER)).toBe('false');
    expect(services['jobs-worker'].environment.JOBS_WITH_WORKER).toBeUndefined();
  });
});
