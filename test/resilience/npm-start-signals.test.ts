/**
 * `npm start` owns its redis-server and stops gracefully on Ctrl-C. A run killed with kill -9
 * leaves its redis-server behind (its own process group; pid and port in DATA_DIR/redis); the
 * next start on the same DATA_DIR reuses it instead of ignoring an orphan, and a Ctrl-C (SIGINT
 * to the whole foreground process group, as a terminal sends it, so the app gets it twice: once
 * directly and once relayed by npm) shuts everything down in order, Redis last, with its
 * append-only file written under DATA_DIR. (test/npm-start.test.ts covers the fresh start.)
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { freePort } from '@htm/service-kit';
import { waitFor } from '@htm/service-kit/testing';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let dataDir: string;
let port: number;
let deadRedisPort: number;
const started: ChildProcess[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'htm-start-signals-'));
  port = await freePort();
  deadRedisPort = await freePort(); // nothing listens there: npm start starts (or reuses) its own Redis
});
afterAll(async () => {
  for (const c of started)
    if (c.pid && c.exitCode === null && c.signalCode === null) signalGroup(c.pid, 'SIGKILL');
  const state = stateFile();
  if (existsSync(state)) {
    const { pid } = JSON.parse(readFileSync(state, 'utf8')) as { pid: number };
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const stateFile = () => path.join(dataDir, 'redis', 'redis-server.json');
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const signalGroup = (pgid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(-pgid, signal);
  } catch {
    /* gone */
  }
};

/** `npm start` in its own process group (like a terminal's foreground job); resolves once it serves. */
async function npmStart(): Promise<{
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    REDIS_URL: `redis://127.0.0.1:${deadRedisPort}`,
    METRICS_PORT: '0',
    LOG_LEVEL: 'warn',
  };
  for (const k of [
    'DATABASE_URL',
    'NODE_ENV',
    'PAYMENTS_PROVIDER',
    'ADMIN_EMAIL',
    'REDIS_PREFIX',
    'NODE_OPTIONS',
  ])
    delete env[k];
  const child = spawn('npm', ['start'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  started.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  await waitFor(
    () => /marketplace running at/.test(out) || child.exitCode !== null,
    'npm start to serve',
    170_000,
  );
  if (child.exitCode !== null)
    throw new Error(`npm start exited ${child.exitCode}:\n${out.slice(-3000)}`);
  return { child, output: () => out, exited };
}

/** A redis-server as `npm start` leaves one behind when it is killed with kill -9: its own process group, AOF under DATA_DIR/redis. */
async function orphanRedis(): Promise<{ pid: number; port: number }> {
  const dir = path.join(dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  const redisPort = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(redisPort),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--save',
      '',
    ],
    { stdio: 'ignore', detached: true },
  );
  child.unref();
  const probe = new Redis(`redis://127.0.0.1:${redisPort}`, { retryStrategy: () => 100 });
  await probe.set('htm-start-signals:probe', 'kept');
  probe.disconnect();
  // What the killed run wrote when it started that server.
  writeFileSync(
    path.join(dir, 'redis-server.json'),
    JSON.stringify({ pid: child.pid, port: redisPort }),
  );
  return { pid: child.pid!, port: redisPort };
}

describe('npm start owns its Redis and stops gracefully', () => {
  it('reuses the redis-server a killed run left behind, then stops everything on Ctrl-C, Redis last', async () => {
    const orphan = await orphanRedis();
    const run = await npmStart();
    expect(run.output()).toContain(
      `reusing redis-server (pid ${orphan.pid}) on port ${orphan.port}`,
    );
    expect(run.output()).not.toMatch(/started redis-server/);
    const health = await fetch(`http://127.0.0.1:${port}/api/healthz`);
    expect(health.status).toBe(200);

    // Ctrl-C: SIGINT to the whole foreground group (the app gets it from the "terminal" and again from npm).
    signalGroup(run.child.pid!, 'SIGINT');
    await run.exited;
    expect(run.output()).toContain('[start] stopped');
    expect(run.output()).not.toMatch(/Killed|SIGKILL|Unhandled/);
    await waitFor(() => !alive(orphan.pid), 'the adopted redis-server to stop', 10_000);
    expect(existsSync(stateFile())).toBe(false);
    // Stopped with SIGTERM (not killed): it wrote its append-only file, so its data survives.
    const aofDir = path.join(dataDir, 'redis', 'appendonlydir');
    const aof = readdirSync(aofDir)
      .map((f) => readFileSync(path.join(aofDir, f), 'latin1'))
      .join('');
    expect(aof).toContain('htm-start-signals:probe');
  }, 300_000);
});
