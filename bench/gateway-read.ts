/**
 * 1. Gateway read path: an authenticated GET /api/tester/available-jobs through the gateway
 * (JWT check, Redis rate limit, proxy, jobs service, Postgres) with 10,000 paid open jobs,
 * against a bare express hello-world, all loaded by autocannon from a second process.
 *
 * Measured twice: with every service in this one process (the `npm start` shape), and with
 * the gateway and jobs each in their own process (the docker-compose / Kubernetes shape).
 * A bare express + http-proxy-middleware in front of a static upstream, in this process, is
 * measured too: what the proxy hop alone costs on this machine, before any of our work; and
 * our gateway in front of the same static upstream: the gateway's own share, without jobs.
 */
import { spawn } from 'node:child_process';
import { Agent } from 'node:http';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { freePort, listen } from '@htm/service-kit';
import { cannon, figure, isMain, runAlone, seedOpenJobs, spawnService, startBareExpress, step, type CannonResult, type Stack } from './support.js';
import { signInTester } from '../test/support/stack.js';

const NAME = 'gateway-read';
const TARGET = 0.35;

/** The same bare proxy and upstream, each in its own process (the reference for the split shape). */
async function spawnBareProxy(body: string) {
  const [upPort, proxyPort] = [await freePort(), await freePort()];
  const upstream = `const e=require('express');const a=e();const b=${JSON.stringify(body)};a.get('/*p',(q,r)=>{r.type('application/json').send(b)});a.listen(${upPort},'127.0.0.1');`;
  const proxy = `const e=require('express');const {createProxyMiddleware}=require('http-proxy-middleware');const {Agent}=require('node:http');const a=e();a.use(createProxyMiddleware({target:'http://127.0.0.1:${upPort}',agent:new Agent({keepAlive:true,maxSockets:256})}));a.listen(${proxyPort},'127.0.0.1');`;
  const children = [upstream, proxy].map((src) => spawn(process.execPath, ['-e', src], { stdio: 'ignore' }));
  const url = `http://127.0.0.1:${proxyPort}`;
  for (let i = 0; i < 100 && !(await fetch(`${url}/x`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 100));
  return {
    url,
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
  const proxy = express();
  proxy.use(createProxyMiddleware({ target: up.url, agent: new Agent({ keepAlive: true, maxSockets: 256 }) }));
  const p = await listen(proxy, 0);
  return {
    url: p.url,
    async close() {
      await p.close();
      await up.close();
    },
  };
}

/** The median of a few numbers. */
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function run(stack: Stack, opts: { seconds?: number; connections?: number; rounds?: number } = {}): Promise<void> {
  const seconds = opts.seconds ?? 4;
  const rounds = opts.rounds ?? 3;
  const connections = opts.connections ?? 10;
  step(NAME, 'seeding 10,000 paid open jobs');
  await seedOpenJobs(stack, 10_000);
  const tester = await signInTester(stack, `bench.reader.${Date.now()}@gmail.com`, { country: 'US' });
  const path = '/api/tester/available-jobs';
  const headers = { authorization: `Bearer ${tester.token}` };
  const check = await fetch(`${stack.url}${path}`, { headers });
  const page = await check.text();
  if (check.status !== 200 || (JSON.parse(page) as { jobs: unknown[] }).jobs.length !== 20) throw new Error(`available-jobs answered ${check.status}: ${page.slice(0, 200)}`);

  step(NAME, 'starting jobs and the gateway in their own processes');
  const jobs = await spawnService('jobs', stack, { JOBS_WITH_WORKER: 'false' });
  const gateway = await spawnService('gateway', stack, { JOBS_URL: jobs.url, METRICS_PORT: '0', WEB_DIST: '/nonexistent' });
  const bare = await startBareExpress();
  const proxy = await startBareProxy(page);
  const splitProxy = await spawnBareProxy(page);
  // Our gateway in front of the same static upstream: what the gateway's own work costs.
  const gatewayOnly = await spawnService('gateway', stack, { JOBS_URL: splitProxy.upstreamUrl, METRICS_PORT: '0', WEB_DIST: '/nonexistent' });
  try {
    const targets: Array<[string, string, string, Record<string, string>?]> = [
      ['bare', 'bare express hello-world', `${bare.url}/hello`],
      ['proxy', 'bare express proxy -> static upstream', `${proxy.url}${path}`],
      ['splitProxy', 'bare express proxy -> static upstream, one process each', `${splitProxy.url}${path}`],
      ['one', 'gateway -> jobs -> Postgres, one process', `${stack.url}${path}`, headers],
      ['split', 'gateway -> jobs -> Postgres, one process each', `${gateway.url}${path}`, headers],
      ['gatewayOnly', 'gateway -> static upstream, one process each', `${gatewayOnly.url}${path}`, headers],
    ];
    step(NAME, `warming up (2 s each), then ${rounds} rounds of ${seconds} s per target at ${connections} connections`);
    for (const [, , url, h] of targets) await cannon(url, { connections, seconds: 2, headers: h });
    // Rounds take turns through every target, so a machine that slows down or speeds up during
    // the run (a shared VM) weighs on all of them alike. Bare express opens every round and
    // closes the last: each ratio to it is taken against the two bare runs around it.
    const r: Record<string, CannonResult[]> = Object.fromEntries(targets.map(([name]) => [name, []]));
    const measure = async (name: string, label: string, url: string, h?: Record<string, string>) => {
      step(NAME, label);
      const res = await cannon(url, { connections, seconds, headers: h });
      if (res.non2xx || res.errors) throw new Error(`${name} run had ${res.non2xx} non-2xx answers and ${res.errors} errors`);
      r[name].push(res);
    };
    for (let i = 1; i <= rounds; i++) {
      for (const [name, label, url, h] of targets) await measure(name, `round ${i}/${rounds}: ${label}`, url, h);
    }
    await measure('bare', `closing: ${targets[0][1]}`, targets[0][2]);
    const rps = (name: string) => median(r[name].map((x) => x.rps));
    const latency = (name: string) => `${median(r[name].map((x) => x.p50))} / ${median(r[name].map((x) => x.p99))}`;
    /** Round i's throughput of `name`, relative to `base` in the same round (bare: the runs before and after). */
    const roundRatio = (name: string, i: number, base: string) =>
      r[name][i].rps / (base === 'bare' ? (r.bare[i].rps + r.bare[i + 1].rps) / 2 : r[base][i].rps);
    /** Median over the rounds of name / base. */
    const ratio = (name: string, base = 'bare') => median(r[name].map((_, i) => roundRatio(name, i, base)));
    figure(NAME, 'bare express req/s (median of the rounds)', rps('bare'));
    figure(NAME, 'bare express p50 / p99 (ms)', latency('bare'));
    figure(NAME, 'reference: bare express + http-proxy-middleware -> static upstream, one process: req/s', rps('proxy'));
    figure(NAME, 'reference: bare proxy / bare express (the proxy hop alone)', ratio('proxy'));
    figure(NAME, 'reference, one process each: bare proxy / bare express', ratio('splitProxy'));
    figure(NAME, 'all-in-one process: available-jobs req/s (10k open jobs, page of 20)', rps('one'));
    figure(NAME, 'all-in-one process: p50 / p99 (ms)', latency('one'));
    figure(NAME, 'all-in-one process: gateway / bare express throughput ratio', ratio('one'), { text: `>= ${TARGET}`, ok: ratio('one') >= TARGET });
    figure(NAME, 'gateway and jobs in their own processes: available-jobs req/s', rps('split'));
    figure(NAME, 'gateway and jobs in their own processes: p50 / p99 (ms)', latency('split'));
    figure(NAME, 'gateway and jobs in their own processes: gateway / bare express throughput ratio', ratio('split'), { text: `>= ${TARGET}`, ok: ratio('split') >= TARGET });
    figure(NAME, 'reference, one process each: our gateway -> static upstream / bare express (the gateway alone, no jobs or Postgres)', ratio('gatewayOnly'));
    figure(NAME, 'share of the bare proxy reached: all-in-one / one process each', `${ratio('one', 'proxy').toFixed(2)} / ${ratio('split', 'splitProxy').toFixed(2)}`);
    const perRound = (name: string) => r[name].map((_, i) => roundRatio(name, i, 'bare').toFixed(2)).join(', ');
    figure(NAME, 'ratio to bare express in each round: all-in-one / one process each', `${perRound('one')} / ${perRound('split')}`);
  } finally {
    await gatewayOnly.stop();
    await splitProxy.close();
    await proxy.close();
    await bare.close();
    await gateway.stop();
    await jobs.stop();
  }
}

if (isMain(import.meta.url)) await runAlone(NAME, (s) => run(s));
