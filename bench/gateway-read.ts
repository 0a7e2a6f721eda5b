/**
 * 1. Gateway read path: an authenticated GET /api/tester/available-jobs through the gateway
 * (JWT check, Redis rate limit, proxy, jobs service, Postgres) with 10,000 paid open jobs,
 * all loaded by autocannon from a second process.
 *
 * The targets (issue #22 part 2) compare the gateway with a bare express + http-proxy-middleware
 * hop in front of the same upstream, measured in the same rounds:
 * - our gateway in front of a static upstream answering the same page, one process each, against
 *   the bare hop there: the gateway's own work, without jobs or Postgres (target >= 0.85);
 * - every service in this one process (the `npm start` shape) against the bare hop in front of
 *   this process's own jobs service (target >= 0.85). The earlier comparison with a bare hop to
 *   the static upstream is printed as a reference: it charges jobs' own work to the gateway.
 * Also measured, for reference: the gateway and jobs each in their own process (the
 * docker-compose / Kubernetes shape), and a bare express hello-world.
 */
import { spawn } from 'node:child_process';
import { Agent } from 'node:http';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { freePort, listen } from '@htm/service-kit';
import {
  cannon,
  cpuUs,
  figure,
  isMain,
  runAlone,
  seedOpenJobs,
  spawnService,
  startBareExpress,
  step,
  type CannonResult,
  type Stack,
} from './support.js';
import { signInTester } from '../test/support/stack.js';

const NAME = 'gateway-read';
/** Share of the bare proxy hop's throughput the gateway must reach (its own work <= 15% of the hop). */
const TARGET = 0.85;

/** The same bare proxy and upstream, each in its own process (the reference for the split shape). */
async function spawnBareProxy(body: string) {
  const [upPort, proxyPort] = [await freePort(), await freePort()];
  const upstream = `const e=require('express');const a=e();const b=${JSON.stringify(body)};a.get('/*p',(q,r)=>{r.type('application/json').send(b)});a.listen(${upPort},'127.0.0.1');`;
  const proxy = `const e=require('express');const {createProxyMiddleware}=require('http-proxy-middleware');const {Agent}=require('node:http');const a=e();a.use(createProxyMiddleware({target:'http://127.0.0.1:${upPort}',agent:new Agent({keepAlive:true,maxSockets:256})}));a.listen(${proxyPort},'127.0.0.1');`;
  const children = [upstream, proxy].map((src) =>
    spawn(process.execPath, ['-e', src], { stdio: 'ignore' }),
  );
  const proxyPid = children[1].pid!;
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
    await new Promise((r) => setTimeout(r, 100));
  return {
    url,
    pid: proxyPid,
    upstreamUrl: `http://127.0.0.1:${upPort}`,
    async close() {
      for (const c of children) c.kill('SIGKILL');
    },
  };
}

/** express + http-proxy-middleware (keep-alive) in front of an express app answering `body`. */
async function startBareProxy(body: string) {
  const upstream = express();
  upstream.get('/{*path}', (_req, res) => {
    res.type('application/json').send(body);
  });
  const up = await listen(upstream, 0);
  const p = await startBareProxyTo(up.url);
  return {
    url: p.url,
    async close() {
      await p.close();
      await up.close();
    },
  };
}

/** express + http-proxy-middleware (keep-alive) in front of `target`, in this process. */
async function startBareProxyTo(target: string) {
  const proxy = express();
  proxy.use(
    createProxyMiddleware({ target, agent: new Agent({ keepAlive: true, maxSockets: 256 }) }),
  );
  return listen(proxy, 0);
}

const fmtRps = (n: number) => String(Math.round(n));

/** The median of a few numbers. */
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function run(
  stack: Stack,
  opts: { seconds?: number; connections?: number; rounds?: number } = {},
): Promise<void> {
  const seconds = opts.seconds ?? 4;
  const rounds = opts.rounds ?? 3;
  const connections = opts.connections ?? 10;
  step(NAME, 'seeding 10,000 paid open jobs');
  await seedOpenJobs(stack, 10_000);
  const tester = await signInTester(stack, `bench.reader.${Date.now()}@gmail.com`, {
    country: 'US',
  });
  const path = '/api/tester/available-jobs';
  const headers = { authorization: `Bearer ${tester.token}` };
  const check = await fetch(`${stack.url}${path}`, { headers });
  const page = await check.text();
  if (check.status !== 200 || (JSON.parse(page) as { jobs: unknown[] }).jobs.length !== 20)
    throw new Error(`available-jobs answered ${check.status}: ${page.slice(0, 200)}`);

  step(NAME, 'starting jobs and the gateway in their own processes');
  const jobs = await spawnService('jobs', stack, { JOBS_WITH_WORKER: 'false' });
  const gateway = await spawnService('gateway', stack, {
    JOBS_URL: jobs.url,
    METRICS_PORT: '0',
    WEB_DIST: '/nonexistent',
  });
  const bare = await startBareExpress();
  const proxy = await startBareProxy(page);
  // The same bare hop in front of this process's own jobs service: what the all-in-one gateway is compared with.
  const proxyToJobs = await startBareProxyTo(stack.jobs.url);
  const splitProxy = await spawnBareProxy(page);
  // Our gateway in front of the same static upstream: what the gateway's own work costs.
  const gatewayOnly = await spawnService('gateway', stack, {
    JOBS_URL: splitProxy.upstreamUrl,
    METRICS_PORT: '0',
    WEB_DIST: '/nonexistent',
  });
  try {
    /** The process whose CPU time a target's requests cost (undefined: this one). */
    const pidOf: Record<string, number | undefined> = {
      splitProxy: splitProxy.pid,
      gatewayOnly: gatewayOnly.pid,
      split: gateway.pid,
    };
    const targets: Array<[string, string, string, Record<string, string>?]> = [
      // Each target next to the one it is compared with (bare proxy and gateway, same shape).
      ['bare', 'bare express hello-world', `${bare.url}/hello`],
      ['proxy', 'bare express proxy -> static upstream', `${proxy.url}${path}`],
      [
        'oneBare',
        'bare express proxy -> jobs -> Postgres, one process',
        `${proxyToJobs.url}${path}`,
        headers,
      ],
      ['one', 'gateway -> jobs -> Postgres, one process', `${stack.url}${path}`, headers],
      [
        'splitProxy',
        'bare express proxy -> static upstream, one process each',
        `${splitProxy.url}${path}`,
      ],
      [
        'gatewayOnly',
        'gateway -> static upstream, one process each',
        `${gatewayOnly.url}${path}`,
        headers,
      ],
      ['split', 'gateway -> jobs -> Postgres, one process each', `${gateway.url}${path}`, headers],
    ];
    step(
      NAME,
      `warming up (2 s each), then ${rounds} rounds of ${seconds} s per target at ${connections} connections`,
    );
    for (const [, , url, h] of targets) await cannon(url, { connections, seconds: 2, headers: h });
    // What each proxying process spends with no request at all (timers, health checks, Redis
    // flushes, the stack's pollers in this process): taken off its CPU per request below, since
    // on a slow shared machine few requests share it.
    const idleSeconds = 3;
    const idleBefore = Object.fromEntries(targets.map(([name]) => [name, cpuUs(pidOf[name])]));
    await new Promise((res) => setTimeout(res, idleSeconds * 1000));
    const idleUsPerSecond = Object.fromEntries(
      targets.map(([name]) => [name, (cpuUs(pidOf[name]) - idleBefore[name]) / idleSeconds]),
    );
    // Rounds take turns through every target, so a machine that slows down or speeds up during
    // the run (a shared VM) weighs on all of them alike. Bare express opens every round and
    // closes the last: each ratio to it is taken against the two bare runs around it.
    const r: Record<string, CannonResult[]> = Object.fromEntries(
      targets.map(([name]) => [name, []]),
    );
    /** CPU µs per request of the process that proxied each run (the gateway's, not jobs' or the upstream's). */
    const cpu: Record<string, number[]> = Object.fromEntries(targets.map(([name]) => [name, []]));
    const measure = async (
      name: string,
      label: string,
      url: string,
      h?: Record<string, string>,
    ) => {
      step(NAME, label);
      const [before, t0] = [cpuUs(pidOf[name]), performance.now()];
      const res = await cannon(url, { connections, seconds, headers: h });
      const used =
        cpuUs(pidOf[name]) - before - (idleUsPerSecond[name] * (performance.now() - t0)) / 1000;
      if (res.non2xx || res.errors)
        throw new Error(`${name} run had ${res.non2xx} non-2xx answers and ${res.errors} errors`);
      r[name].push(res);
      cpu[name].push(used / res.total);
    };
    for (let i = 1; i <= rounds; i++) {
      // Every other round runs the targets after bare express in reverse order, so that neither
      // side of a compared pair always runs first.
      const order = i % 2 ? targets : [targets[0], ...targets.slice(1).reverse()];
      for (const [name, label, url, h] of order)
        await measure(name, `round ${i}/${rounds}: ${label}`, url, h);
    }
    await measure('bare', `closing: ${targets[0][1]}`, targets[0][2]);
    const rps = (name: string) => median(r[name].map((x) => x.rps));
    const latency = (name: string) =>
      `${median(r[name].map((x) => x.p50))} / ${median(r[name].map((x) => x.p99))}`;
    /** Round i's throughput of `name`, relative to `base` in the same round (bare: the runs before and after). */
    const roundRatio = (name: string, i: number, base: string) =>
      r[name][i].rps / (base === 'bare' ? (r.bare[i].rps + r.bare[i + 1].rps) / 2 : r[base][i].rps);
    /** Median over the rounds of name / base. */
    const ratio = (name: string, base = 'bare') =>
      median(r[name].map((_, i) => roundRatio(name, i, base)));
    const gatewayAlone = ratio('gatewayOnly', 'splitProxy');
    const allInOne = ratio('one', 'oneBare');
    figure(
      NAME,
      'one process each: our gateway -> static upstream / bare express + http-proxy-middleware -> static upstream',
      gatewayAlone,
      { text: `>= ${TARGET}`, ok: gatewayAlone >= TARGET },
    );
    figure(
      NAME,
      'all-in-one process: gateway -> jobs -> Postgres / bare express + http-proxy-middleware -> the same jobs -> Postgres (this process)',
      allInOne,
      { text: `>= ${TARGET}`, ok: allInOne >= TARGET },
    );
    figure(
      NAME,
      "reference, all-in-one process: gateway -> jobs -> Postgres / bare proxy -> static upstream (the earlier, unfair comparison: it counts jobs' own work)",
      ratio('one', 'proxy'),
    );
    figure(
      NAME,
      'by CPU per request, all-in-one process: bare proxy -> jobs / gateway -> jobs (each round)',
      `${median(cpu.one.map((c, i) => cpu.oneBare[i] / c)).toFixed(2)} (${cpu.one.map((c, i) => (cpu.oneBare[i] / c).toFixed(2)).join(', ')})`,
    );
    figure(
      NAME,
      'reference, one process each: gateway -> jobs -> Postgres / bare proxy hop',
      ratio('split', 'splitProxy'),
    );
    const perRoundShare = (name: string, base: string) =>
      r[name].map((_, i) => roundRatio(name, i, base).toFixed(2)).join(', ');
    figure(
      NAME,
      'ratio to the bare proxy hop in each round: gateway alone / all-in-one',
      `${perRoundShare('gatewayOnly', 'splitProxy')} / ${perRoundShare('one', 'oneBare')}`,
    );
    figure(
      NAME,
      'req/s (median of the rounds): bare proxy hop, one process each / our gateway -> static upstream',
      `${fmtRps(rps('splitProxy'))} / ${fmtRps(rps('gatewayOnly'))}`,
    );
    figure(
      NAME,
      'req/s (median of the rounds): bare proxy hop, one process / all-in-one gateway -> jobs',
      `${fmtRps(rps('proxy'))} / ${fmtRps(rps('one'))}`,
    );
    // The same comparisons by CPU time per request: bare hop's / ours (1 = no work of our own).
    const cpuMedian = (name: string) => median(cpu[name]);
    const cpuRatio = (name: string, base: string) =>
      median(cpu[name].map((c, i) => cpu[base][i] / c));
    figure(
      NAME,
      'idle CPU of the proxying process (ms per s, taken off below): bare hop, one process each / our gateway / all-in-one process',
      `${(idleUsPerSecond.splitProxy / 1000).toFixed(1)} / ${(idleUsPerSecond.gatewayOnly / 1000).toFixed(1)} / ${(idleUsPerSecond.one / 1000).toFixed(1)}`,
    );
    figure(
      NAME,
      'CPU µs per request of the proxying process (median): bare hop / our gateway, one process each',
      `${fmtRps(cpuMedian('splitProxy'))} / ${fmtRps(cpuMedian('gatewayOnly'))}`,
    );
    figure(
      NAME,
      'by CPU per request, one process each: bare hop / our gateway -> static upstream (each round)',
      `${cpuRatio('gatewayOnly', 'splitProxy').toFixed(2)} (${cpu.gatewayOnly.map((c, i) => (cpu.splitProxy[i] / c).toFixed(2)).join(', ')})`,
    );
    figure(
      NAME,
      'CPU µs per request of the all-in-one process (median): bare hop (proxy + upstream) / gateway -> jobs -> Postgres client',
      `${fmtRps(cpuMedian('proxy'))} / ${fmtRps(cpuMedian('one'))}`,
    );
    figure(
      NAME,
      'by CPU per request, all-in-one process: bare hop / gateway -> jobs (each round)',
      `${cpuRatio('one', 'proxy').toFixed(2)} (${cpu.one.map((c, i) => (cpu.proxy[i] / c).toFixed(2)).join(', ')})`,
    );
    figure(NAME, 'all-in-one process: p50 / p99 (ms)', latency('one'));
    figure(NAME, 'gateway and jobs in their own processes: available-jobs req/s', rps('split'));
    figure(NAME, 'gateway and jobs in their own processes: p50 / p99 (ms)', latency('split'));
    figure(NAME, 'reference: bare express hello-world req/s (median of the rounds)', rps('bare'));
    figure(
      NAME,
      'reference, to bare express: bare proxy hop, one process / one process each',
      `${ratio('proxy').toFixed(2)} / ${ratio('splitProxy').toFixed(2)}`,
    );
    figure(
      NAME,
      'reference, to bare express: all-in-one / gateway and jobs split / gateway alone',
      `${ratio('one').toFixed(2)} / ${ratio('split').toFixed(2)} / ${ratio('gatewayOnly').toFixed(2)}`,
    );
  } finally {
    await gatewayOnly.stop();
    await splitProxy.close();
    await proxy.close();
    await proxyToJobs.close();
    await bare.close();
    await gateway.stop();
    await jobs.stop();
  }
}

if (isMain(import.meta.url))
  await runAlone(NAME, (s) => run(s, { rounds: Number(process.env.ROUNDS) || undefined }));
