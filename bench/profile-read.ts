/**
 * Where the gateway read path spends its CPU: runs the gateway and jobs in their own processes,
 * warms them up, then profiles both while autocannon loads `GET /api/tester/available-jobs`,
 * and prints each process's CPU time per request by package and its busiest functions (self
 * time). Not part of `npm run bench`; a tool for tuning: `npx tsx bench/profile-read.ts
 * [seconds]` (the .cpuprofile files stay in PROFILE_DIR, default a temporary folder, for
 * Chrome DevTools).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  cannon,
  isMain,
  sleep,
  runAlone,
  seedOpenJobs,
  spawnService,
  step,
  type Stack,
} from './support.js';
import { signInTester } from '../test/support/stack.js';

const NAME = 'profile-read';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  startTime: number;
  endTime: number;
}

/** Where a frame's code lives: a package, a node: module, our own file, or the engine. */
export function owner(f: ProfileNode['callFrame']): string {
  if (!f.url) return f.functionName.startsWith('(') ? f.functionName : `native ${f.functionName}`;
  if (f.url.startsWith('node:')) return f.url.replace(/^node:(internal\/)?/, 'node:');
  if (f.url.includes('node_modules/')) return f.url.split('node_modules/').pop()!.split('/')[0];
  return f.url.replace(/^.*\/(services|packages)\//, '$1/');
}

/** CPU microseconds per request spent in each owner's own code (idle left out), highest first. */
export function perRequest(
  profile: Profile,
  requests: number,
): Array<{ name: string; us: number }> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const usPerSample = (profile.endTime - profile.startTime) / profile.samples.length;
  const us = new Map<string, number>();
  for (const id of profile.samples) {
    const key = owner(byId.get(id)!.callFrame);
    if (key !== '(idle)') us.set(key, (us.get(key) ?? 0) + usPerSample);
  }
  return [...us.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([name, t]) => ({ name, us: t / requests }));
}

/** Each function's share of the busy (not idle) samples, by self time, highest first. */
export function topFunctions(profile: Profile, limit = 25): Array<{ name: string; share: number }> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const counts = new Map<string, number>();
  let total = 0;
  for (const id of profile.samples) {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)') continue;
    total++;
    const where = f.url
      .replace(/^.*node_modules\//, '')
      .replace(/^file:\/\/.*\/(services|packages)\//, '$1/');
    const key = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, n]) => ({ name, share: n / total }));
}

async function run(stack: Stack, seconds: number): Promise<void> {
  const dir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'htm-profile-'));
  step(NAME, 'seeding 10,000 paid open jobs');
  await seedOpenJobs(stack, 10_000);
  const tester = await signInTester(stack, `profile.reader.${Date.now()}@gmail.com`, {
    country: 'US',
  });
  const out = (name: string) => join(dir, `${name}.cpuprofile`);
  const preload = ['--import', fileURLToPath(new URL('./cpu-profiler.mjs', import.meta.url))];
  const jobs = await spawnService(
    'jobs',
    stack,
    { JOBS_WITH_WORKER: 'false', PROFILE_OUT: out('jobs') },
    preload,
  );
  const gateway = await spawnService(
    'gateway',
    stack,
    {
      JOBS_URL: jobs.url,
      METRICS_PORT: '0',
      WEB_DIST: '/nonexistent',
      PROFILE_OUT: out('gateway'),
    },
    preload,
  );
  const url = `${gateway.url}/api/tester/available-jobs`;
  const headers = { authorization: `Bearer ${tester.token}` };
  let requests = 0;
  try {
    step(NAME, 'warming up for 3 s');
    await cannon(url, { connections: 10, seconds: 3, headers });
    for (const p of [gateway, jobs]) process.kill(p.pid, 'SIGUSR2');
    step(NAME, `profiling while loading ${url} for ${seconds} s`);
    const r = await cannon(url, { connections: 10, seconds, headers });
    for (const p of [gateway, jobs]) process.kill(p.pid, 'SIGUSR2');
    requests = r.total;
    console.log(
      `  ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}`,
    );
    for (let i = 0; i < 50 && !(existsSync(out('gateway')) && existsSync(out('jobs'))); i++)
      await sleep(100);
  } finally {
    await gateway.stop();
    await jobs.stop();
  }
  for (const name of ['gateway', 'jobs']) {
    if (!existsSync(out(name))) continue;
    const profile = JSON.parse(readFileSync(out(name), 'utf8')) as Profile;
    const owners = perRequest(profile, requests);
    const total = owners.reduce((n, o) => n + o.us, 0);
    console.log(`\n${name}: ${total.toFixed(0)} µs of CPU per request (${out(name)})`);
    for (const o of owners.slice(0, 25))
      console.log(`  ${o.us.toFixed(1).padStart(6)} µs  ${o.name}`);
    console.log('  busiest functions (self time):');
    for (const t of topFunctions(profile, 15))
      console.log(`  ${(t.share * 100).toFixed(1).padStart(5)}%  ${t.name}`);
  }
}

if (isMain(import.meta.url)) await runAlone(NAME, (s) => run(s, Number(process.argv[2] ?? 10)));
