/**
 * `npm start`: the whole marketplace in one process on one machine (ARCHITECTURE.md "Fixed
 * contracts"). Embedded defaults: PGlite under DATA_DIR, PAYMENTS_PROVIDER=local, dev sign-in,
 * local file storage. Redis from REDIS_URL, else a redis-server child on a free port.
 * Internal services listen on free loopback ports; only the gateway is on PORT (default 8080).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@htm/service-kit';
import { DEV_SIGN_IN_WARNING, embeddedEnv, gatewayEnv } from './start-env.js';
import { redisAnswers } from './redis-probe.js';

const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
process.chdir(root);

type Env = Record<string, string | undefined>;
const say = (msg: string) => process.stdout.write(`[start] ${msg}\n`);
const children: ChildProcess[] = [];
/** The redis-server this script owns (started now, or left by an earlier run on the same DATA_DIR). */
let ownRedis: { pid: number; stateFile: string } | undefined;

function fail(message: string): never {
  process.stderr.write(`npm start: ${message}\n`);
  for (const c of children) c.kill('SIGTERM');
  if (ownRedis) signalPid(ownRedis.pid, 'SIGTERM');
  process.exit(1);
}

function signalPid(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Is `pid` a live redis-server (not a recycled pid of something else)? */
function isRedisServer(pid: number): boolean {
  if (!signalPid(pid, 0)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('redis-server');
  } catch {
    return true; // no /proc: trust the pid
  }
}

/** Stops the owned redis-server (it writes its append-only file first) and waits for it to exit. */
async function stopOwnRedis(): Promise<void> {
  const r = ownRedis;
  if (!r) return;
  ownRedis = undefined;
  signalPid(r.pid, 'SIGTERM');
  for (let i = 0; i < 100 && isRedisServer(r.pid); i++)
    await new Promise((res) => setTimeout(res, 50));
  if (isRedisServer(r.pid)) signalPid(r.pid, 'SIGKILL');
  rmSync(r.stateFile, { force: true });
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
    spawnSync('apt-get', ['install', '-y', '-qq', 'redis-server'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    bin = which('redis-server');
  }
  if (!bin)
    fail(
      `no Redis answers at ${url} and redis-server is not installed: install it (apt-get install redis-server) or set REDIS_URL to a running Redis.`,
    );

  // Owned per DATA_DIR: its data (append-only file, so timers and undelivered events survive a
  // restart) and a state file naming its pid and port live in DATA_DIR/redis. A run that was
  // killed (kill -9) leaves it running: the next start on the same DATA_DIR reuses it.
  const dir = path.resolve(env.DATA_DIR ?? '.data', 'redis');
  mkdirSync(dir, { recursive: true });
  const stateFile = path.join(dir, 'redis-server.json');
  if (existsSync(stateFile)) {
    try {
      const prev = JSON.parse(readFileSync(stateFile, 'utf8')) as { pid: number; port: number };
      const prevUrl = `redis://127.0.0.1:${prev.port}`;
      if (isRedisServer(prev.pid) && (await redisAnswers(prevUrl))) {
        ownRedis = { pid: prev.pid, stateFile };
        say(`reusing redis-server (pid ${prev.pid}) on port ${prev.port} left by an earlier run`);
        return prevUrl;
      }
      if (isRedisServer(prev.pid)) signalPid(prev.pid, 'SIGKILL'); // ours, but not answering
    } catch {
      /* unreadable state: start afresh */
    }
    rmSync(stateFile, { force: true });
  }
  const port = await freePort();
  // Its own process group: a Ctrl-C or SIGTERM to `npm start` must not stop Redis before the
  // services have shut down (they flush their outboxes into it); it is stopped last.
  const child = spawn(
    bin,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--save',
      '',
    ],
    { stdio: 'ignore', detached: true },
  );
  child.unref();
  if (child.pid) {
    ownRedis = { pid: child.pid, stateFile };
    writeFileSync(stateFile, JSON.stringify({ pid: child.pid, port }));
  }
  const childUrl = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    if (await redisAnswers(childUrl)) {
      say(`started redis-server on port ${port} (append-only file in ${dir})`);
      return childUrl;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  fail('started redis-server but it does not answer');
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.'))
      continue;
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
  const stale =
    !existsSync(built) ||
    statSync(built).mtimeMs <
      Math.max(
        newestMtime(path.join(webDir, 'src')),
        newestMtime(path.join(root, 'packages', 'contracts', 'src')),
      );
  if (!stale) return;
  say('building the web app (vite)...');
  const r = spawnSync('npm', ['run', 'build', '-w', 'web'], {
    stdio: 'inherit',
    env: process.env as NodeJS.ProcessEnv,
  });
  if (r.status !== 0) fail('building the web app failed (see above)');
}

async function main() {
  const started = Date.now();
  const base: Env = embeddedEnv(process.env);
  base.REDIS_URL = await ensureRedis(base);
  const port = Number(base.PORT ?? 8080);
  ensureWebBuilt(base);

  const { startIdentity } = await import('@htm/identity');
  const { startPayments } = await import('@htm/payments');
  const { startJobs } = await import('@htm/jobs');
  const { startAdmin } = await import('@htm/admin');
  const { startNotifications } = await import('@htm/notifications');
  const { startAnalytics } = await import('@htm/analytics');
  const { startSiteCheck, chromiumMissing, loadSiteCheckConfig } = await import('@htm/site-check');
  const { startGateway } = await import('@htm/gateway');

  const stops: Array<() => Promise<void>> = [];
  let stopping: Promise<void> | undefined;
  const shutdown = (code = 0) =>
    (stopping ??= (async () => {
      // Bounded: whatever has not stopped in 20 s is abandoned (the process exits anyway).
      setTimeout(() => {
        for (const c of children) c.kill('SIGKILL');
        if (ownRedis) signalPid(ownRedis.pid, 'SIGTERM'); // it writes its append-only file and exits
        process.exit(code || 1);
      }, 20_000).unref();
      say('shutting down...');
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
      for (const c of children) c.kill('SIGTERM');
      await stopOwnRedis();
      say('stopped');
      process.exit(code);
    })());
  process.once('exit', () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  });
  // `on`, not `once`: a Ctrl-C reaches this process twice (from the terminal and relayed by npm);
  // the second must not kill it halfway through shutting down.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.on(signal, () => void shutdown());

  try {
    // Ports first, so every service knows the others' URLs and all start (and migrate) at once.
    const [
      identityPort,
      paymentsPort,
      jobsPort,
      adminPort,
      notificationsPort,
      analyticsPort,
      siteCheckPort,
    ] = await Promise.all(Array.from({ length: 7 }, () => freePort()));
    base.IDENTITY_URL = `http://127.0.0.1:${identityPort}`;
    base.PAYMENTS_URL = `http://127.0.0.1:${paymentsPort}`;
    base.JOBS_URL = `http://127.0.0.1:${jobsPort}`;
    base.ADMIN_URL = `http://127.0.0.1:${adminPort}`;
    base.NOTIFICATIONS_URL = `http://127.0.0.1:${notificationsPort}`;
    base.ANALYTICS_URL = `http://127.0.0.1:${analyticsPort}`;
    base.SITE_CHECK_URL = `http://127.0.0.1:${siteCheckPort}`;
    // The machine health check runs in this process when Chromium is installed; without it the
    // service still answers, and every paid job's report says the health check is unavailable.
    const noBrowser = chromiumMissing(loadSiteCheckConfig({ ...base }).SITE_CHECK_CHROMIUM_PATH);
    if (noBrowser) say(`health check unavailable: ${noBrowser}`);
    const started = await Promise.allSettled([
      startIdentity({ ...base }, { port: identityPort }),
      startPayments({ ...base }, { port: paymentsPort }),
      startJobs({ ...base }, { port: jobsPort, withWorker: true }),
      startAdmin({ ...base }, { port: adminPort }),
      // E-mail: .eml files under DATA_DIR/mail and GET /api/dev/mail unless SMTP_URL is set.
      startNotifications({ ...base }, { port: notificationsPort }),
      // Insights for the admin, from every stream (its own PGlite under DATA_DIR/analytics).
      startAnalytics({ ...base }, { port: analyticsPort }),
      // The machine health check of every paid job's site (its own PGlite under DATA_DIR/site_check).
      startSiteCheck({ ...base }, { port: siteCheckPort }),
    ]);
    for (const r of started) if (r.status === 'fulfilled') stops.push(r.value.stop);
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const edge = gatewayEnv(base, process.env);
    const gateway = await startGateway(edge, {
      port,
      host: edge.HOST,
      metricsPort: Number(base.METRICS_PORT ?? 0),
    });
    stops.push(gateway.stop);
  } catch (err) {
    process.stderr.write(`npm start: a service failed to start: ${(err as Error).message}\n`);
    await shutdown(1);
  }
  if (base.DEV_SIGN_IN === 'true' && !base.GOOGLE_CLIENT_ID)
    process.stderr.write(`\n[start] !!! ${DEV_SIGN_IN_WARNING}\n\n`);
  say(
    `marketplace running at http://localhost:${port} (started in ${((Date.now() - started) / 1000).toFixed(1)} s; data in ${base.DATA_DIR})`,
  );
}

void main();
