/**
 * The marketplace as a cluster on one machine: every service replica and every jobs worker in its
 * own OS process, started from the production bundles (scripts/build-services.ts, what the images
 * run), against real PostgreSQL (DATABASE_URL, one schema per service) and Redis. The gateway gets
 * the list of each service's replicas (comma-separated *_URL) and balances over the ready ones;
 * calls between services go through one ServiceAddress per service (what a Kubernetes Service
 * does), and so does the public address: one front over every gateway replica, which sends each
 * new connection to a gateway whose /readyz answers (a load balancer's job in production). Used by `npm run start:cluster` (scripts/start-cluster.ts) and test/cluster.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from '@htm/service-kit';
import { buildService, TARGETS } from '../build-services.js';
import { ServiceAddress } from './service-address.js';
import { createBusUsers, type BusUsers } from './redis-users.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Process kinds; `worker` is the jobs timer worker (dist/jobs/worker.js). */
export const ROLES = [
  'identity',
  'payments',
  'jobs',
  'admin',
  'notifications',
  'analytics',
  'site-check',
  'worker',
  'gateway',
] as const;
export type Role = (typeof ROLES)[number];
export type ServiceRole = Exclude<Role, 'worker' | 'gateway'>;
const SERVICES: ServiceRole[] = [
  'identity',
  'payments',
  'jobs',
  'admin',
  'notifications',
  'analytics',
  'site-check',
];

/** Two of everything but site-check (one browser a replica): a restart or crash of one replica leaves another answering (docs/operations.md). */
export const DEFAULT_REPLICAS: Record<Role, number> = {
  gateway: 2,
  identity: 2,
  jobs: 2,
  payments: 2,
  admin: 2,
  notifications: 2,
  analytics: 2,
  // One browser per check: one replica runs SITE_CHECK_CONCURRENCY checks (in Kubernetes, KEDA adds more).
  'site-check': 1,
  worker: 2,
};

export interface ClusterOptions {
  replicas?: Partial<Record<Role, number>>;
  /** Environment of every process (DATABASE_URL and REDIS_URL required; EVENT_BUS, KAFKA_BROKERS, REDIS_PREFIX, timers...). */
  env: Record<string, string | undefined>;
  /** Where the bundles are (default dist/); built there first unless build is false. */
  bundleDir?: string;
  /**
   * Roles started from other bundles (never built here), e.g. the previous release's dist/ for a
   * mixed-version run (scripts/mixed-versions.ts): `{ payments: '/tmp/prev/dist' }`.
   */
  roleBundleDirs?: Partial<Record<Role, string>>;
  build?: boolean;
  /**
   * The public port: a front (a ServiceAddress, as a load balancer) spreading connections over
   * every gateway replica whose /readyz answers; the gateways themselves take free ports. Default: a free port.
   */
  gatewayPort?: number;
  /** One log file per process: <logDir>/<role>-<n>.log. */
  logDir: string;
  /** How long a replica keeps serving with readiness down after SIGTERM (SHUTDOWN_DRAIN_MS). */
  drainMs?: number;
  /** How often the gateway and the service addresses ask each replica's /readyz. */
  healthIntervalMs?: number;
  /** How long a replica may take to answer /readyz 200 after its start (default 90 s; a shared machine needs more). */
  readyTimeoutMs?: number;
  /**
   * Each service connects to Redis as its own ACL user (scripts/redis-acl.ts), created for the run
   * with the REDIS_URL connection and removed at stop (default true; with EVENT_BUS=redis). If that
   * connection may not create users, the cluster says so and runs with REDIS_URL as given.
   */
  redisUsers?: boolean;
  say?: (line: string) => void;
}

/** One OS process of the cluster; keeps its port across restarts, so the gateway's list stays valid. */
export class Replica {
  child?: ChildProcess;
  private exited?: Promise<number | null>;

  constructor(
    readonly role: Role,
    readonly index: number,
    readonly port: number,
    private readonly file: string,
    private readonly env: Record<string, string>,
    readonly logFile: string,
    private readonly readyTimeoutMs = 90_000,
  ) {}

  get name(): string {
    return `${this.role}-${this.index + 1}`;
  }
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the process and resolves once its /readyz answers 200 (rejects if it exits first or after readyTimeoutMs, 90 s). */
  async start(): Promise<void> {
    if (this.running) return;
    // Straight into the log file: a busy parent never slows a child's (synchronous) log writes.
    const log = openSync(this.logFile, 'a');
    // As the images run it: OpenTelemetry first (a no-op without an OTLP endpoint in the env).
    const otel = path.join(path.dirname(this.file), 'otel-register.js');
    const args = existsSync(otel) ? ['--import', pathToFileURL(otel).href, this.file] : [this.file];
    const child = spawn(process.execPath, args, {
      cwd: path.dirname(this.file),
      env: this.env,
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    this.child = child;
    this.exited = new Promise((r) => child.once('exit', (code) => r(code)));
    const deadline = Date.now() + this.readyTimeoutMs;
    for (;;) {
      if (!this.running)
        throw new Error(`${this.name} exited before it was ready (see ${this.logFile})`);
      try {
        const r = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(1000) });
        if (r.status === 200) return;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline)
        throw new Error(
          `${this.name} not ready in ${this.readyTimeoutMs / 1000} s (see ${this.logFile})`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Sends SIGTERM (graceful: readiness drops, in-flight requests finish, consumers hand over) and waits for the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (!this.child || !this.exited) return null;
    if (this.running) this.child.kill(signal);
    return this.exited;
  }

  /** kill -9: no shutdown at all, as a crashed machine. */
  async kill(): Promise<void> {
    await this.stop('SIGKILL');
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }
}

export interface Cluster {
  /** The public address: the front over every ready gateway replica. */
  url: string;
  /** The first gateway's metrics port: /metrics and the detailed /healthz (every replica's readiness). */
  metricsUrl: string;
  replicas: Record<Role, Replica[]>;
  /** Stable internal address of each service (a ServiceAddress). */
  addresses: Record<ServiceRole, string>;
  /** The per-service Redis users of this run (undefined when they could not be created). */
  redisUsers?: BusUsers;
  bundleDir: string;
  stop(): Promise<void>;
}

function entryFile(bundleDir: string, role: Role): string {
  return role === 'worker'
    ? path.join(bundleDir, 'jobs', 'worker.js')
    : path.join(bundleDir, role, 'main.js');
}

/** Builds the bundles (unless told not to), then starts every replica; services first, then workers and the gateway. */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const say = opts.say ?? (() => undefined);
  const counts: Record<Role, number> = { ...DEFAULT_REPLICAS, ...opts.replicas };
  for (const role of ROLES) {
    if (!Number.isInteger(counts[role]) || counts[role] < 0 || counts[role] > 10)
      throw new Error(`${role}: replicas must be a whole number from 0 to 10`);
  }
  for (const role of ['gateway', ...SERVICES] as Role[])
    if (counts[role] < 1) throw new Error(`${role}: at least one replica is needed`);
  if (!opts.env.DATABASE_URL)
    throw new Error(
      'DATABASE_URL must be set: the cluster runs on a real PostgreSQL server (one schema per service)',
    );
  if (opts.env.EVENT_BUS === 'kafka' && !opts.env.KAFKA_BROKERS)
    throw new Error('KAFKA_BROKERS must be set when EVENT_BUS=kafka');

  const bundleDir = opts.bundleDir ?? path.join(ROOT, 'dist');
  if (opts.build !== false) {
    say(`building the service bundles into ${path.relative(ROOT, bundleDir) || '.'}`);
    for (const t of TARGETS) await buildService(t, { outRoot: bundleDir, log: () => undefined });
  }
  const dirOf = (role: Role) => opts.roleBundleDirs?.[role] ?? bundleDir;
  for (const role of ROLES) {
    if (!existsSync(entryFile(dirOf(role), role)))
      throw new Error(`${entryFile(dirOf(role), role)} is missing: run npm run build:services`);
  }
  mkdirSync(opts.logDir, { recursive: true });

  const ports: Record<Role, number[]> = Object.fromEntries(
    await Promise.all(
      ROLES.map(async (r) => [
        r,
        await Promise.all(Array.from({ length: counts[r] }, () => freePort())),
      ]),
    ),
  ) as Record<Role, number[]>;
  const healthMs = opts.healthIntervalMs ?? 250;
  // The public address: a front over the gateways (new connections only to a ready gateway).
  const front = new ServiceAddress(
    'gateway',
    ports.gateway.map((port) => ({ host: '127.0.0.1', port })),
    healthMs,
  );
  await front.listen(opts.gatewayPort ?? 0);
  const addresses = Object.fromEntries(
    SERVICES.map((s) => [
      s,
      new ServiceAddress(
        s,
        ports[s].map((port) => ({ host: '127.0.0.1', port })),
        healthMs,
      ),
    ]),
  ) as Record<ServiceRole, ServiceAddress>;
  for (const a of Object.values(addresses)) await a.listen();
  const urlOf = Object.fromEntries(SERVICES.map((s) => [s, addresses[s].url])) as Record<
    ServiceRole,
    string
  >;
  const listOf = (s: ServiceRole) => ports[s].map((p) => `http://127.0.0.1:${p}`).join(',');

  const clean = (e: Record<string, string | undefined>) =>
    Object.fromEntries(
      Object.entries(e).filter((kv): kv is [string, string] => kv[1] !== undefined),
    );
  const base = clean({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'development',
    PAYMENTS_PROVIDER: 'local',
    ADMIN_EMAIL: opts.env.NODE_ENV === 'production' ? undefined : 'admin@gmail.com',
    TRUST_PROXY: 'true',
    // No Google here: the development sign-in, switched on as npm start does (never in production).
    DEV_SIGN_IN: opts.env.NODE_ENV === 'production' ? undefined : 'true',
    DATA_DIR: path.join(opts.logDir, '..', 'data'),
    ...opts.env,
    HOST: '127.0.0.1',
    JOBS_WITH_WORKER: 'false',
    IDENTITY_URL: urlOf.identity,
    IDENTITY_JWKS_URL: `${urlOf.identity}/internal/jwks`,
    JOBS_URL: urlOf.jobs,
    PAYMENTS_URL: urlOf.payments,
    ADMIN_URL: urlOf.admin,
    NOTIFICATIONS_URL: urlOf.notifications,
    ANALYTICS_URL: urlOf.analytics,
    SITE_CHECK_URL: urlOf['site-check'],
    // The local provider's signed webhooks reach whichever payments replica is up.
    PAYMENTS_SELF_URL: urlOf.payments,
    SHUTDOWN_DRAIN_MS: String(opts.drainMs ?? 1500),
  });
  const gatewayPort = front.port;
  // Each gateway's metrics port (the detailed health lives there; the public /api/healthz says only the status).
  const metricsPorts = await Promise.all(ports.gateway.map(() => freePort()));
  let busUsers: BusUsers | undefined;
  if (opts.redisUsers !== false && opts.env.REDIS_URL) {
    try {
      busUsers = await createBusUsers(opts.env.REDIS_URL, opts.env.REDIS_PREFIX ?? 'htm:');
      say('each service connects to Redis as its own user (writes only its own event streams)');
    } catch (err) {
      say(
        `Redis users not created (${(err as Error).message.split('\n')[0]}): every service uses REDIS_URL as given`,
      );
    }
  }
  const redisFor = (role: Role): Record<string, string> =>
    busUsers ? { REDIS_URL: busUsers.urlFor(role === 'worker' ? 'jobs' : role) } : {};
  const envFor = (role: Role, port: number): Record<string, string> => ({
    ...envForRole(role, port),
    ...redisFor(role),
  });
  const envForRole = (role: Role, port: number): Record<string, string> => {
    if (role === 'gateway') {
      return {
        ...base,
        PORT: String(port),
        METRICS_PORT: String(metricsPorts[ports.gateway.indexOf(port)] ?? 0),
        // The gateway is the edge: it trusts no X-Forwarded-For (the services behind it do).
        TRUST_PROXY: 'false',
        IDENTITY_URL: listOf('identity'),
        JOBS_URL: listOf('jobs'),
        PAYMENTS_URL: listOf('payments'),
        ADMIN_URL: listOf('admin'),
        NOTIFICATIONS_URL: listOf('notifications'),
        ANALYTICS_URL: listOf('analytics'),
        SITE_CHECK_URL: listOf('site-check'),
        UPSTREAM_HEALTH_INTERVAL_MS: String(healthMs),
        WEB_DIST: opts.env.WEB_DIST ?? path.join(ROOT, 'web', 'dist'),
        PUBLIC_URL: opts.env.PUBLIC_URL ?? `http://localhost:${gatewayPort}`,
      };
    }
    // jobs and its worker decode images with libvips (sharp) on libuv's threads: two glibc
    // malloc arenas keep what those threads free from staying with the process (as the images do).
    const arenas = { MALLOC_ARENA_MAX: base.MALLOC_ARENA_MAX ?? '2' };
    if (role === 'worker') return { ...base, ...arenas, WORKER_PORT: String(port), PORT: '0' };
    return {
      ...base,
      ...(role === 'jobs' ? arenas : {}),
      PORT: String(port),
      PUBLIC_URL: opts.env.PUBLIC_URL ?? `http://localhost:${gatewayPort}`,
    };
  };
  const replicas = Object.fromEntries(
    ROLES.map((role) => [
      role,
      ports[role].map(
        (port, i) =>
          new Replica(
            role,
            i,
            port,
            entryFile(dirOf(role), role),
            envFor(role, port),
            path.join(opts.logDir, `${role}-${i + 1}.log`),
            opts.readyTimeoutMs,
          ),
      ),
    ]),
  ) as Record<Role, Replica[]>;

  const all = ROLES.flatMap((r) => replicas[r]);
  const stop = async () => {
    // Gateway first (no new traffic), then the workers and services, all gracefully.
    await Promise.all(replicas.gateway.map((r) => r.stop()));
    await Promise.all(all.filter((r) => r.role !== 'gateway').map((r) => r.stop()));
    await front.close();
    for (const a of Object.values(addresses)) await a.close();
    await busUsers?.remove().catch(() => undefined);
  };
  try {
    // Services at once (each migrates its own schema under an advisory lock), then workers and gateways.
    await Promise.all(SERVICES.flatMap((s) => replicas[s]).map((r) => r.start()));
    await Promise.all([...replicas.worker, ...replicas.gateway].map((r) => r.start()));
  } catch (err) {
    for (const r of all) await r.stop('SIGKILL').catch(() => undefined);
    await front.close();
    for (const a of Object.values(addresses)) await a.close();
    await busUsers?.remove().catch(() => undefined);
    throw err;
  }
  say(`cluster running: ${ROLES.map((r) => `${r} ×${counts[r]}`).join(', ')}`);
  return {
    url: front.url,
    metricsUrl: `http://127.0.0.1:${metricsPorts[0]}`,
    replicas,
    addresses: urlOf,
    redisUsers: busUsers,
    bundleDir,
    stop,
  };
}
