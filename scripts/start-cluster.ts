/**
 * `npm run start:cluster`: the marketplace as separate processes with replicas, on this machine.
 * Every service replica and every jobs worker is its own OS process running the production bundle
 * (built first into dist/, as `npm run build:services` does), against the PostgreSQL server of
 * DATABASE_URL (one schema per service) and the Redis of REDIS_URL; EVENT_BUS=redis (default) or
 * kafka (with KAFKA_BROKERS). See docs/operations.md, "The cluster on one machine".
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/htm npm run start:cluster -- --jobs=3 --worker=1
 *
 * Options: --<role>=<n> for gateway, identity, jobs, payments, admin, notifications, worker (default
 * 2 each); --port=<n> (the public address, default PORT or 8080: a front that spreads connections
 * over every gateway replica whose /readyz answers, so a gateway restart keeps it up; each gateway
 * also listens on its own free port); --no-build (use the bundles already in dist/).
 */
import path from 'node:path';
import {
  DEFAULT_REPLICAS,
  ROLES,
  ROOT,
  startCluster,
  type Cluster,
  type Role,
} from './cluster/cluster.js';
import { redisAnswers } from './redis-probe.js';

const say = (msg: string) => process.stdout.write(`[cluster] ${msg}\n`);

function fail(message: string): never {
  process.stderr.write(`npm run start:cluster: ${message}\n`);
  process.exit(1);
}

export function parseArgs(argv: string[]): {
  replicas: Record<Role, number>;
  port?: number;
  build: boolean;
} {
  const replicas = { ...DEFAULT_REPLICAS };
  let port: number | undefined;
  let build = true;
  for (const arg of argv) {
    const m = /^--?([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg}`);
    const [, key, value] = m;
    if (key === 'no-build') build = false;
    else if (key === 'port') port = Number(value);
    else if ((ROLES as readonly string[]).includes(key)) {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0 || n > 10)
        throw new Error(`--${key} needs a number of replicas from 0 to 10`);
      replicas[key as Role] = n;
    } else
      throw new Error(
        `unknown option --${key}; known: ${ROLES.map((r) => `--${r}=N`).join(' ')} --port=N --no-build`,
      );
  }
  return { replicas, port, build };
}

async function main() {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    fail((err as Error).message);
  }
  const env = { ...process.env };
  if (!env.DATABASE_URL)
    fail(
      'DATABASE_URL is not set: the cluster needs a PostgreSQL server (e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/htm).',
    );
  env.REDIS_URL ??= 'redis://127.0.0.1:6379';
  if (!(await redisAnswers(env.REDIS_URL)))
    fail(`no Redis answers at ${env.REDIS_URL}: start one (redis-server) or set REDIS_URL.`);
  const dataDir = path.resolve(env.DATA_DIR ?? path.join(ROOT, '.data', 'cluster'));
  env.DATA_DIR = dataDir;
  const port = args.port ?? Number(env.PORT ?? 8080);
  let cluster: Cluster | undefined;
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping every process (gracefully)...');
    await cluster?.stop().catch(() => undefined);
    process.exit(code);
  };
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));
  const started = Date.now();
  try {
    cluster = await startCluster({
      replicas: args.replicas,
      env,
      build: args.build,
      gatewayPort: port,
      logDir: path.join(dataDir, 'logs'),
      say,
    });
  } catch (err) {
    fail((err as Error).message);
  }
  for (const role of ROLES) {
    for (const r of cluster.replicas[role])
      say(
        `${r.name.padEnd(12)} pid ${String(r.pid).padEnd(7)} ${r.url}   log ${path.relative(ROOT, r.logFile)}`,
      );
  }
  say(
    `marketplace running at http://localhost:${port}, spread over ${cluster.replicas.gateway.length} gateway(s) (started in ${((Date.now() - started) / 1000).toFixed(1)} s; EVENT_BUS=${env.EVENT_BUS ?? 'redis'}); Ctrl-C stops it`,
  );
}

if (
  process.argv[1] &&
  path.resolve(process.argv[1]) === path.resolve(ROOT, 'scripts', 'start-cluster.ts')
)
  void main();
