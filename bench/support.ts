/**
 * Shared plumbing of the benchmarks: the whole stack in this process (test/support/stack.ts:
 * real Postgres, real Redis, unique prefix), autocannon in a second process, a bare express
 * baseline, latency percentiles, and the figures collected for bench/RESULTS.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { freePort } from '@htm/service-kit';
import { startStack, type Stack } from '../test/support/stack.js';

export type { Stack };

/** One figure of a run: printed as it is measured and written to RESULTS.md by run.ts. */
export interface Figure {
  bench: string;
  name: string;
  value: string;
  target?: string;
  ok?: boolean;
}
export const figures: Figure[] = [];
export const notes: Array<{ bench: string; title: string; text: string }> = [];

export function figure(
  bench: string,
  name: string,
  value: string | number,
  target?: { text: string; ok: boolean },
): void {
  const v = typeof value === 'number' ? fmt(value) : value;
  figures.push({ bench, name, value: v, target: target?.text, ok: target?.ok });
  console.log(
    `  ${name}: ${v}${target ? `   (target ${target.text}: ${target.ok ? 'met' : 'NOT met'})` : ''}`,
  );
}
export function note(bench: string, title: string, text: string): void {
  notes.push({ bench, title, text });
  console.log(`  ${title}:\n${text.replace(/^/gm, '    ')}`);
}
/** The machine's load while a bench measured (a note of its section), with what else to say. */
export function noteMachineLoad(bench: string, extra = ''): void {
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  note(
    bench,
    'machine load while measuring',
    `load average (1, 5, 15 min): ${load} on ${os.cpus().length} cores${extra}`,
  );
}
export function step(bench: string, text: string): void {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${bench}: ${text}`);
}
export const fmt = (n: number) =>
  Number.isInteger(n) ? String(n) : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The machine's load averages now (1, 5, 15 min), as `uptime` prints them. */
export const loadLine = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** The whole marketplace in this process, tuned for measuring (no logs, no rate limits in the way). */
export async function startBenchStack(label = 'bench'): Promise<Stack> {
  return startStack({
    label,
    withWorker: true,
    env: {
      LOG_LEVEL: 'silent',
      API_RATE_LIMIT_PER_MINUTE: '100000000',
      AUTH_RATE_LIMIT_PER_MINUTE: '100000000',
      FORM_RATE_LIMIT_PER_MINUTE: '100000000',
      ACCESS_TOKEN_TTL_SECONDS: '3600',
    },
  });
}

/** A standalone bench file: start a stack, run, stop. */
export async function runAlone(name: string, fn: (stack: Stack) => Promise<void>): Promise<void> {
  step(name, 'starting the stack (real Postgres + Redis)');
  const stack = await startBenchStack(name);
  try {
    await fn(stack);
  } finally {
    await stack.stop();
  }
}

export const isMain = (url: string) => process.argv[1] && fileURLToPath(url) === process.argv[1];

/** A bare express hello-world on a free port (the baseline of the gateway read bench). */
export async function startBareExpress(): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.disable('x-powered-by');
  app.get('/hello', (_req, res) => {
    res.json({ hello: 'world' });
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface CannonResult {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
}

const autocannonBin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

/** autocannon in a second process (so the load generator does not share the event loop it measures). */
export async function cannon(
  url: string,
  opts: { connections?: number; seconds?: number; headers?: Record<string, string> } = {},
): Promise<CannonResult> {
  const args = [
    autocannonBin,
    '--json',
    '-c',
    String(opts.connections ?? 10),
    '-d',
    String(opts.seconds ?? 8),
  ];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}=${v}`);
  args.push(url);
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`autocannon exited ${code}: ${stderr.slice(-500)}`)),
    );
  });
  const r = JSON.parse(out) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
  };
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

/** Percentile of a sorted sample. */
export function pct(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** `n` sequential requests with one client: fine-grained latency (autocannon rounds to ms). */
export async function sequentialLatency(
  url: string,
  headers: Record<string, string>,
  n: number,
  before?: () => void,
): Promise<{ p50: number; p99: number }> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    before?.();
    const t0 = performance.now();
    const r = await fetch(url, { headers });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: pct(ms, 50), p99: pct(ms, 99) };
}

/** Replaces every job with `n` paid open jobs (SQL, fast), newest first by created_at; then ANALYZE. */
export async function seedOpenJobs(stack: Stack, n: number): Promise<void> {
  await stack.sql('TRUNCATE jobs.jobs, jobs.submissions, jobs.files');
  await stack.sql(
    `INSERT INTO jobs.jobs (title, url, what_to_test, requirements, status, payment_status, paid_at, poster_id, poster_email, poster_name, geo_rule, expected_completion_hours, created_at)
     SELECT 'Bench job ' || g, 'https://example.com/' || g, 'Can a first-time visitor order a cake?', '["Find the order button", "Say if prices are clear"]'::jsonb,
            'open', 'paid', now(), 'poster-' || (g % 500), 'poster' || (g % 500) || '@gmail.com', 'Poster ' || (g % 500),
            (ARRAY['us_pr','us_pr_ca','global_beta'])[1 + g % 3], 48, now() - (g || ' seconds')::interval
     FROM generate_series(1, $1::int) AS g`,
    [n],
  );
  await stack.sql('ANALYZE jobs.jobs');
}

/**
 * CPU time (user + system, µs) a process has used so far: this process from process.cpuUsage(),
 * another from /proc/<pid>/stat (clock ticks of 10 ms). On a machine shared with other work,
 * a process's CPU time per request hardly depends on how long it waited for a core, unlike its
 * throughput.
 */
export function cpuUs(pid?: number): number {
  if (pid === undefined) {
    const u = process.cpuUsage();
    return u.user + u.system;
  }
  const fields = procStat(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) * 10_000 : 0; // utime, stime (fields 14, 15)
}

/**
 * CPU time (µs) a process and the children it has waited for have used so far (utime + stime +
 * cutime + cstime): a parent's share of the short-lived programs it runs (ffmpeg), or the
 * postmaster's of its exited backends.
 */
export function cpuWithChildrenUs(pid: number): number {
  const f = procStat(pid);
  return f ? (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10_000 : 0;
}

/** The fields after the command of /proc/<pid>/stat (state first), or undefined once the process is gone. */
function procStat(pid: number): string[] | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(') ') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Every process of this machine now, with its parent and command name (Linux). */
export function processes(): Array<{ pid: number; ppid: number; comm: string }> {
  const out: Array<{ pid: number; ppid: number; comm: string }> = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = readFileSync(`/proc/${d}/stat`, 'utf8');
      const comm = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
      out.push({ pid: Number(d), ppid: Number(procStat(Number(d))?.[1]), comm });
    } catch {
      // gone between the listing and the read
    }
  }
  return out;
}

export const rssMb = () => process.memoryUsage().rss / 1024 / 1024;

export interface ServiceProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * One service in its own Node process, as docker-compose and Kubernetes run it
 * (`services/<name>/src/main.ts`), with the stack's environment plus `env`.
 */
export async function spawnService(
  name: 'gateway' | 'jobs',
  stack: Stack,
  env: Record<string, string> = {},
  execArgv: string[] = [],
): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...execArgv, '--import', 'tsx', `services/${name}/src/main.ts`],
    {
      env: {
        ...process.env,
        ...stack.env,
        LOG_LEVEL: 'silent',
        PORT: String(port),
        HOST: '127.0.0.1',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}: ${stderr}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not become healthy in 60 s: ${stderr}`);
    }
    await sleep(200);
  }
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
