/**
 * 1. Gateway read path: an authenticated GET /api/tester/available-jobs through the gateway
 * (JWT check, Redis rate limit, proxy, jobs service, Postgres) with 10,000 paid open jobs,
 * against a bare express hello-world, all loaded by autocannon from a second process.
 *
 * Measured twice: with every service in this one process (the `npm start` shape), and with
 * the gateway and jobs each in their own process (the docker-compose / Kubernetes shape).
 * A bare express + http-proxy-middleware in front of a static upstream, in this process, is
 * measured too: what the proxy hop alone costs on this machine, before any of our work.
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

export async function run(stack: Stack, opts: { seconds?: number; connections?: number } = {}): Promise<void> {
  const seconds = opts.seconds ?? 8;
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
  try {
    const targets: Array<[string, string, Record<string, string>?]> = [
      ['bare', `${bare.url}/hello`],
      ['proxy', `${proxy.url}${path}`],
      ['splitProxy', `${splitProxy.url}${path}`],
      ['one', `${stack.url}${path}`, headers],
      ['split', `${gateway.url}${path}`, headers],
    ];
    step(NAME, `warming up (2 s each), then ${seconds} s per target at ${connections} connections`);
    for (const [, url, h] of targets) await cannon(url, { connections, seconds: 2, headers: h });
    const r: Record<string, CannonResult> = {};
    for (const [name, url, h] of targets) {
      step(NAME, { bare: 'bare express hello-world', proxy: 'bare express proxy -> static upstream', splitProxy: 'bare express proxy -> static upstream, one process each', one: 'gateway -> jobs -> Postgres, one process', split: 'gateway -> jobs -> Postgres, one process each' }[name]!);
      r[name] = await cannon(url, { connections, seconds, headers: h });
      if (r[name].non2xx || r[name].errors) throw new Error(`${name} run had ${r[name].non2xx} non-2xx answers and ${r[name].errors} errors`);
    }
    const ratio = (x: CannonResult) => x.rps / r.bare.rps;
    figure(NAME, 'bare express req/s', r.bare.rps);
    figure(NAME, 'bare express p50 / p99 (ms)', `${r.bare.p50} / ${r.bare.p99}`);
    figure(NAME, 'reference: bare express + http-proxy-middleware -> static upstream, one process: req/s', r.proxy.rps);
    figure(NAME, 'reference: bare proxy / bare express (the proxy hop alone)', ratio(r.proxy));
    figure(NAME, 'reference, one process each: bare proxy / bare express', ratio(r.splitProxy));
    figure(NAME, 'all-in-one process: available-jobs req/s (10k open jobs, page of 20)', r.one.rps);
    figure(NAME, 'all-in-one process: p50 / p99 (ms)', `${r.one.p50} / ${r.one.p99}`);
    figure(NAME, 'all-in-one process: gateway / bare express throughput ratio', ratio(r.one), { text: `>= ${TARGET}`, ok: ratio(r.one) >= TARGET });
    figure(NAME, 'gateway and jobs in their own processes: available-jobs req/s', r.split.rps);
    figure(NAME, 'gateway and jobs in their own processes: p50 / p99 (ms)', `${r.split.p50} / ${r.split.p99}`);
    figure(NAME, 'gateway and jobs in their own processes: gateway / bare express throughput ratio', ratio(r.split), { text: `>= ${TARGET}`, ok: ratio(r.split) >= TARGET });
    figure(NAME, 'share of the bare proxy reached: all-in-one / one process each', `${(r.one.rps / r.proxy.rps).toFixed(2)} / ${(r.split.rps / r.splitProxy.rps).toFixed(2)}`);
  } finally {
    await splitProxy.close();
    await proxy.close();
    await bare.close();
    await gateway.stop();
    await jobs.stop();
  }
}

if (isMain(import.meta.url)) await runAlone(NAME, (s) => run(s));
