/**
 * `npm start`: the whole marketplace in one process on one machine (ARCHITECTURE.md "Fixed
 * contracts"). Embedded defaults: PGlite under DATA_DIR, PAYMENTS_PROVIDER=local, dev sign-in,
 * local file storage. Redis from REDIS_URL, else a redis-server child on a free port.
 * Internal services listen on free loopback ports; only the gateway is on PORT (default 8080).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { freePort } from '@htm/service-kit';

const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
process.chdir(root);

type Env = Record<string, string | undefined>;
const say = (msg: string) => process.stdout.write(`[start] ${msg}\n`);
const children: ChildProcess[] = [];

function fail(message: string): never {
  process.stderr.write(`npm start: ${message}\n`);
  for (const c of children) c.kill('SIGTERM');
  process.exit(1);
}

async function redisAnswers(url: string): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1500, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

function which(cmd: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Uses REDIS_URL if it answers; else starts redis-server (installing Debian's package as root if missing). */
async function ensureRedis(env: Env): Promise<string> {
  const url = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (await redisAnswers(url)) return url;
  say(`no Redis answers at ${url}; starting redis-server`);
  let bin = which('redis-server');
  if (!bin && process.getuid?.() === 0 && which('apt-get')) {
    say('redis-server is missing; installing Debian package redis-server...');
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    spawnSync('apt-get', ['install', '-y', '-qq', 'redis-server'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    bin = which('redis-server');
  }
  if (!bin) fail(`no Redis answers at ${url} and redis-server is not installed: install it (apt-get install redis-server) or set REDIS_URL to a running Redis.`);
  const port = await freePort();
  // Its own process group: a Ctrl-C or SIGTERM to `npm start` must not stop Redis before the
  // services have shut down (they flush their outboxes into it); it is stopped last.
  const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore', detached: true });
  children.push(child);
  const childUrl = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    if (await redisAnswers(childUrl)) {
      say(`started redis-server on port ${port}`);
      return childUrl;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  fail('started redis-server but it does not answer');
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds web/dist when it is missing or older than the web sources. */
function ensureWebBuilt(env: Env): void {
  if (env.SKIP_WEB_BUILD === 'true') return;
  const webDir = path.join(root, 'web');
  if (!existsSync(path.join(webDir, 'index.html'))) return;
  const built = path.join(webDir, 'dist', 'index.html');
  const stale = !existsSync(built) || statSync(built).mtimeMs < Math.max(newestMtime(path.join(webDir, 'src')), newestMtime(path.join(root, 'packages', 'contracts', 'src')));
  if (!stale) return;
  say('building the web app (vite)...');
  const r = spawnSync('npm', ['run', 'build', '-w', 'web'], { stdio: 'inherit', env: process.env as NodeJS.ProcessEnv });
  if (r.status !== 0) fail('building the web app failed (see above)');
}

async function main() {
  const started = Date.now();
  const base: Env = { ...process.env };
  const production = base.NODE_ENV === 'production';
  base.NODE_ENV ??= 'development';
  base.DATA_DIR ??= '.data';
  base.PAYMENTS_PROVIDER ??= 'local';
  if (!production) base.ADMIN_EMAIL ??= 'admin@gmail.com';
  base.REDIS_URL = await ensureRedis(base);
  base.TRUST_PROXY ??= 'true';
  const port = Number(base.PORT ?? 8080);
  base.PUBLIC_URL ??= `http://localhost:${port}`;
  ensureWebBuilt(base);

  const { startIdentity } = await import('@htm/identity');
  const { startPayments } = await import('@htm/payments');
  const { startJobs } = await import('@htm/jobs');
  const { startAdmin } = await import('@htm/admin');
  const { startGateway } = await import('@htm/gateway');

  const stops: Array<() => Promise<void>> = [];
  const shutdown = async (code = 0) => {
    // Bounded: whatever has not stopped in 20 s is abandoned (the process exits anyway).
    setTimeout(() => {
      for (const c of children) c.kill('SIGKILL');
      process.exit(code || 1);
    }, 20_000).unref();
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    for (const c of children) c.kill('SIGTERM');
    process.exit(code);
  };
  process.once('exit', () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  });
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());

  try {
    // Ports first, so every service knows the others' URLs and all start (and migrate) at once.
    const [identityPort, paymentsPort, jobsPort, adminPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    base.IDENTITY_URL = `http://127.0.0.1:${identityPort}`;
    base.PAYMENTS_URL = `http://127.0.0.1:${paymentsPort}`;
    base.JOBS_URL = `http://127.0.0.1:${jobsPort}`;
    base.ADMIN_URL = `http://127.0.0.1:${adminPort}`;
    const started = await Promise.allSettled([
      startIdentity({ ...base }, { port: identityPort }),
      startPayments({ ...base }, { port: paymentsPort }),
      startJobs({ ...base }, { port: jobsPort, withWorker: true }),
      startAdmin({ ...base }, { port: adminPort }),
    ]);
    for (const r of started) if (r.status === 'fulfilled') stops.push(r.value.stop);
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const gateway = await startGateway({ ...base, PORT: String(port) }, { port, metricsPort: Number(base.METRICS_PORT ?? 0) });
    stops.push(gateway.stop);
  } catch (err) {
    process.stderr.write(`npm start: a service failed to start: ${(err as Error).message}\n`);
    await shutdown(1);
  }
  say(`marketplace running at http://localhost:${port} (started in ${((Date.now() - started) / 1000).toFixed(1)} s; data in ${base.DATA_DIR})`);
}

void main();
