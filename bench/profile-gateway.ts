/**
 * The gateway's own work, by middleware: our gateway and a bare express + http-proxy-middleware
 * hop, each in its own process in front of the same static upstream (its own process), are
 * loaded in turn by autocannon while a CPU profile runs (bench/cpu-profiler.mjs), and each
 * profile's CPU time per request is split by the middleware that was running: every sample goes
 * to the innermost frame of the stack that belongs to a known step (token check, rate limit,
 * security headers, proxy...), the rest to Node's HTTP, the garbage collector, etc.
 *
 * Not part of `npm run bench`; a tool for tuning: `npx tsx bench/profile-gateway.ts [seconds]`
 * (the .cpuprofile files stay in PROFILE_DIR, default a temporary folder, for Chrome DevTools).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@htm/service-kit';
import { cannon, isMain, runAlone, sleep, spawnService, step, type Stack } from './support.js';
import { signInTester } from '../test/support/stack.js';

const NAME = 'profile-gateway';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  startTime: number;
  endTime: number;
  /** CPU time of the process while profiled (bench/cpu-profiler.mjs). */
  cpuUsageUs?: number;
}

/**
 * The step a frame belongs to, or undefined. Checked from the innermost frame outwards, so a
 * middleware's own work counts to it and the next middleware (called from inside it) to that one.
 */
function stepOf(f: ProfileNode['callFrame']): string | undefined {
  const u = f.url;
  const fn = f.functionName;
  if (!u) return undefined;
  if (u.includes('/http-proxy-middleware/') || u.includes('/http-proxy/'))
    return 'proxy (http-proxy-middleware, request out and answer back)';
  if (u.includes('/services/gateway/src/http/proxy.ts'))
    return 'proxy (http-proxy-middleware, request out and answer back)';
  if (u.includes('/express-rate-limit/') || u.includes('/services/gateway/src/http/rate-limits.ts'))
    return 'rate limit (per-user API limit)';
  if (u.includes('/service-kit/src/auth.ts') || u.includes('/lru-cache/'))
    return 'token check (cached verification)';
  if (u.includes('/services/gateway/src/http/security.ts'))
    return fn === 'originCheck' || fn === 'refuseCrossSite'
      ? 'cross-site check'
      : 'security headers (+ CORS)';
  if (u.includes('/prom-client/') || u.includes('/service-kit/src/metrics.ts'))
    return 'metrics (counter + histogram)';
  if (u.includes('/service-kit/src/context.ts')) return 'correlation id';
  if (u.includes('/service-kit/src/http.ts'))
    return fn === 'step' || fn === 'series' ? 'express router + our series()' : 'correlation id';
  if (u.includes('/service-kit/src/tracing.ts') || u.includes('/@opentelemetry/')) return 'tracing';
  if (
    u.includes('/services/gateway/src/app.ts') ||
    u.includes('/services/gateway/src/http/route-table.ts')
  )
    return 'route lookup + head size + body size';
  if (
    u.includes('/node_modules/router/') ||
    u.includes('/node_modules/express/') ||
    u.includes('/path-to-regexp/') ||
    u.includes('/finalhandler/')
  )
    return 'express router + our series()';
  if (u.includes('/pino') || u.includes('/service-kit/src/logger.ts')) return 'request logging';
  return undefined;
}

/** Where a sample with no known step was: Node's HTTP and sockets, the GC, the engine. */
function restOf(f: ProfileNode['callFrame']): string {
  if (f.functionName === '(garbage collector)') return 'garbage collector';
  if (f.functionName === '(program)') return 'engine, outside JavaScript ((program))';
  return "Node's HTTP server, parser, streams and sockets";
}

/**
 * CPU microseconds per request by step (idle left out), highest first: each step's share of the
 * busy samples times the process's CPU time per request (its wall time per request when the
 * profile carries no CPU time).
 */
export function perStep(profile: Profile, requests: number): Array<{ name: string; us: number }> {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const memo = new Map<number, string | null>();
  const classify = (id: number): string | null => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const n = byId.get(id)!;
    if (n.callFrame.functionName === '(idle)') return null;
    const own = stepOf(n.callFrame);
    const p = parent.get(id);
    const res =
      own ?? (p === undefined ? restOf(n.callFrame) : (classify(p) ?? restOf(n.callFrame)));
    memo.set(id, res);
    return res;
  };
  // Leaves name the rest when no known step is above them.
  const leafRest = (id: number) => restOf(byId.get(id)!.callFrame);
  const busy = profile.samples.filter((id) => byId.get(id)!.callFrame.functionName !== '(idle)');
  const usPerSample =
    profile.cpuUsageUs !== undefined
      ? profile.cpuUsageUs / busy.length
      : (profile.endTime - profile.startTime) / profile.samples.length;
  const us = new Map<string, number>();
  for (const id of busy) {
    let key = classify(id) ?? leafRest(id);
    if (key === "Node's HTTP server, parser, streams and sockets") key = leafRest(id);
    us.set(key, (us.get(key) ?? 0) + usPerSample);
  }
  return [...us.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([name, t]) => ({ name, us: t / requests }));
}

/** The same static upstream as bench/gateway-read.ts, and a bare proxy in front of it, each its own process. */
async function spawnStatic(body: string, preload: string[], profileOut: string) {
  const [upPort, proxyPort] = [await freePort(), await freePort()];
  const upstream = `const e=require('express');const a=e();const b=${JSON.stringify(body)};a.get('/*p',(q,r)=>{r.type('application/json').send(b)});a.listen(${upPort},'127.0.0.1');`;
  const proxy = `const e=require('express');const {createProxyMiddleware}=require('http-proxy-middleware');const {Agent}=require('node:http');const a=e();a.use(createProxyMiddleware({target:'http://127.0.0.1:${upPort}',agent:new Agent({keepAlive:true,maxSockets:256})}));a.listen(${proxyPort},'127.0.0.1');`;
  const up = spawn(process.execPath, ['-e', upstream], { stdio: 'ignore' });
  const px = spawn(process.execPath, [...preload, '-e', proxy], {
    stdio: 'ignore',
    env: { ...process.env, PROFILE_OUT: profileOut },
  });
  const url = `http://127.0.0.1:${proxyPort}`;
  for (
    let i = 0;
    i < 100 &&
    !(await fetch(`${url}/x`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  )
    await sleep(100);
  return {
    url,
    upstreamUrl: `http://127.0.0.1:${upPort}`,
    pid: px.pid!,
    close: () => [up, px].forEach((c) => c.kill('SIGKILL')),
  };
}

export async function profileGateway(
  stack: Stack,
  seconds: number,
): Promise<
  Record<
    'gateway' | 'bare',
    { rps: number; total: number; steps: Array<{ name: string; us: number }> }
  >
> {
  const dir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'htm-profile-'));
  const tester = await signInTester(stack, `profile.gateway.${Date.now()}@gmail.com`, {
    country: 'US',
  });
  const headers = { authorization: `Bearer ${tester.token}` };
  const path = '/api/tester/available-jobs';
  const page = await (await fetch(`${stack.url}${path}`, { headers })).text();
  const out = (name: string) => join(dir, `${name}.cpuprofile`);
  const preload = ['--import', fileURLToPath(new URL('./cpu-profiler.mjs', import.meta.url))];
  const bare = await spawnStatic(page, preload, out('bare'));
  const gateway = await spawnService(
    'gateway',
    stack,
    {
      JOBS_URL: bare.upstreamUrl,
      METRICS_PORT: '0',
      WEB_DIST: '/nonexistent',
      PROFILE_OUT: out('gateway'),
    },
    preload,
  );
  const result = {} as Record<
    'gateway' | 'bare',
    { rps: number; total: number; steps: Array<{ name: string; us: number }> }
  >;
  try {
    for (const [name, url, pid, h] of [
      ['gateway', `${gateway.url}${path}`, gateway.pid, headers],
      ['bare', `${bare.url}${path}`, bare.pid, undefined],
    ] as const) {
      step(NAME, `${name}: warming up for 3 s`);
      await cannon(url, { connections: 10, seconds: 3, headers: h });
      process.kill(pid, 'SIGUSR2');
      step(NAME, `${name}: profiling while loading ${url} for ${seconds} s`);
      const r = await cannon(url, { connections: 10, seconds, headers: h });
      // A profile is a tool, not a figure: a stray failed request (a loaded machine) is reported, not fatal.
      if (r.non2xx || r.errors)
        console.warn(`  ${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors of ${r.total}`);
      process.kill(pid, 'SIGUSR2');
      for (let i = 0; i < 50 && !existsSync(out(name)); i++) await sleep(100);
      const profile = JSON.parse(readFileSync(out(name), 'utf8')) as Profile;
      result[name] = { rps: r.rps, total: r.total, steps: perStep(profile, r.total) };
    }
  } finally {
    await gateway.stop();
    bare.close();
  }
  return result;
}

/** The two profiles side by side as a markdown table (µs of CPU per request). */
export function stepTable(r: Awaited<ReturnType<typeof profileGateway>>): string {
  const names = [...new Set([...r.gateway.steps, ...r.bare.steps].map((s) => s.name))];
  const us = (side: 'gateway' | 'bare', name: string) =>
    r[side].steps.find((s) => s.name === name)?.us ?? 0;
  names.sort((a, b) => us('gateway', b) - us('gateway', a));
  const total = (side: 'gateway' | 'bare') => r[side].steps.reduce((n, s) => n + s.us, 0);
  const rows = names.map(
    (n) => `| ${n} | ${us('gateway', n).toFixed(1)} | ${us('bare', n).toFixed(1)} |`,
  );
  return [
    '| step (innermost frame of each CPU sample) | our gateway (µs/request) | bare express + http-proxy-middleware (µs/request) |',
    '|---|---:|---:|',
    ...rows,
    `| **total CPU per request** | **${total('gateway').toFixed(0)}** | **${total('bare').toFixed(0)}** |`,
    `| req/s while profiled (not a ratio: one after the other) | ${Math.round(r.gateway.rps)} | ${Math.round(r.bare.rps)} |`,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  await runAlone(NAME, async (s) => {
    const r = await profileGateway(s, Number(process.argv[2] ?? 8));
    console.log(`\n${stepTable(r)}`);
  });
}
