/**
 * Live screens at scale (issue #36 part 1): one gateway replica (its own process) holding 5,000
 * live streams, next to a bare node:http SSE server (bench/live-bare-sse.mjs, its own process)
 * holding 5,000 more, both reading the same Redis stream of live messages. The clients are bare
 * sockets in a third process (bench/live-clients.mjs, file limit raised with prlimit); this
 * process publishes the live messages at 50/s (what the gateway-live feed appends: one XADD per
 * message), each carrying its audience and the publisher's clock. Every message reaches both
 * servers at the same moment, so the baseline and the gateway are measured side by side, under
 * the same load of the same machine.
 *
 * Measured: message appended -> frame parsed by the client (p50/p99, per server), RSS delta of
 * each server process per open stream, and per stream the messages received against those its
 * user's audience rule says it must get (lost, duplicated, or sent to the wrong user).
 *
 * With --replicas 2 the streams are spread over two gateway replicas (a user's tabs on both, as
 * behind a load balancer), each its own process reading the same stream; RSS is their sum.
 *
 *   npx tsx bench/live-scale.ts [--streams 5000] [--seconds 30] [--rate 50] [--replicas 1]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from '@htm/service-kit';
import { figure, fmt, isMain, sleep, step } from './support.js';
import { writeAloneSection } from './results.js';

const NAME = 'live-scale';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const now = () => performance.timeOrigin + performance.now();

interface StreamUser {
  user: string;
  kind: 'tester' | 'admin';
  country: string | null;
}
interface Audience {
  users: string[];
  admins?: boolean;
  testers?: string[] | 'any';
}
const admits = (s: StreamUser, to: Audience) =>
  to.users.includes(s.user) ||
  (!!to.admins && s.kind === 'admin') ||
  (!!to.testers &&
    s.kind === 'tester' &&
    (to.testers === 'any' || (s.country !== null && to.testers.includes(s.country))));

export const rssKb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

/** A node process with its open-file limit raised (prlimit execs node: the pid is node's). */
function spawnRaised(args: string[], env: Record<string, string>, ipc = false): ChildProcess {
  const limit = Number(
    readFileSync('/proc/self/limits', 'utf8').match(/Max open files\s+\d+\s+(\d+)/)?.[1] ?? 20000,
  );
  return spawn('prlimit', [`--nofile=${limit}:${limit}`, process.execPath, ...args], {
    env: { ...process.env, ...env },
    stdio: ipc ? ['ignore', 'inherit', 'inherit', 'ipc'] : ['ignore', 'ignore', 'pipe'],
  });
}

async function healthy(url: string, child: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited ${child.exitCode}`);
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    if (Date.now() > deadline) throw new Error(`${what} not healthy in 60 s`);
    await sleep(200);
  }
}

function ask<T>(child: ChildProcess, msg: object, reply: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type: string }) => {
      if (m.type !== reply) return;
      child.off('message', on);
      resolve(m as T);
    };
    child.on('message', on);
    if (Object.keys(msg).length) child.send(msg);
  });
}

const stop = (c: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    const t = setTimeout(() => c.kill('SIGKILL'), 10_000);
    c.once('exit', () => (clearTimeout(t), resolve()));
    c.kill('SIGTERM');
  });

interface TargetReport {
  name: string;
  counts: number[];
  users: string[];
  wrong: number;
  closed: number;
  pings: number;
  badFrames: number;
  deliveries: number;
  p50: number;
  p99: number;
  max: number;
}

export async function run(
  opts: { streams?: number; seconds?: number; rate?: number; replicas?: number } = {},
): Promise<void> {
  const replicas = opts.replicas ?? 1;
  const streams = opts.streams ?? 5000;
  const seconds = opts.seconds ?? 30;
  const rate = opts.rate ?? 50;
  const perUser = 5;
  const prefix = `bench-live-${process.pid}-${Date.now()}:`;
  const key = `${prefix}live:messages`;
  const redis = new Redis(REDIS_URL);
  const children: ChildProcess[] = [];
  try {
    // Users: 1 in 100 an admin, the rest approved testers of US / CA / PR; 5 streams each.
    const users: StreamUser[] = Array.from({ length: Math.ceil(streams / perUser) }, (_, i) => ({
      user: `bench-user-${i}`,
      kind: i % 100 === 0 ? 'admin' : 'tester',
      country: i % 100 === 0 ? null : ['US', 'CA', 'PR'][i % 3],
    }));
    const expiresAt = Date.now() + 3_600_000;
    // Three tickets a stream: a refused open is tried again with a new one, as the web app does.
    const tickets: string[][] = [];
    const pipe = redis.pipeline();
    for (let i = 0; i < streams; i++) {
      const u = users[Math.floor(i / perUser)];
      tickets.push([0, 1, 2].map((k) => `${String(i).padStart(8, '0')}${k}${'x'.repeat(23)}`));
      const caller = {
        id: u.user,
        email: `${u.user}@example.com`,
        name: u.user,
        type: u.kind,
        approved: true,
        country: u.country,
        location: null,
        sid: `sid-${u.user}`,
        claimsAt: Date.now(),
        expiresAt,
      };
      for (const t of tickets[i])
        pipe.set(`${prefix}live:ticket:${t}`, JSON.stringify(caller), 'EX', 600);
    }
    await pipe.exec();
    await redis.xadd(
      key,
      '*',
      'm',
      JSON.stringify({ event: 'admin', data: {}, to: { users: [] } }),
    );

    step(
      NAME,
      `starting ${replicas} gateway replica(s) and the bare SSE server, each in its own process`,
    );
    // LIVE_SCALE_PROFILE=<dir>: a CPU profile of the gateway is written there when it stops.
    const prof = process.env.LIVE_SCALE_PROFILE
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.LIVE_SCALE_PROFILE}`]
      : [];
    // LIVE_SCALE_HEAP=<dir>: heap snapshots of the first gateway there, before and after the streams
    // open (compare them with `node bench/heap-diff.mjs before after <streams>`; slows the run).
    const heapDir = process.env.LIVE_SCALE_HEAP;
    if (heapDir) prof.push('--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapDir}`);
    const snapshot = async (pid: number) => {
      if (!heapDir) return;
      const count = () => readdirSync(heapDir).filter((f) => f.endsWith('.heapsnapshot')).length;
      const before = count();
      process.kill(pid, 'SIGUSR2');
      while (count() === before) await sleep(500);
      await sleep(5000); // the file is complete when the gateway answers again
      await healthy(`http://127.0.0.1:${gateways[0].port}`, gateways[0].child, 'gateway');
    };
    const gateways: Array<{ port: number; child: ChildProcess }> = [];
    let gwErr = '';
    for (let r = 0; r < replicas; r++) {
      const port = await freePort();
      const child = spawnRaised([...prof, '--import', 'tsx', 'services/gateway/src/main.ts'], {
        LOG_LEVEL: 'silent',
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        METRICS_PORT: '0',
        REDIS_URL,
        REDIS_PREFIX: prefix,
        LIVE_PING_MS: '5000',
        LIVE_MAX_STREAMS: String(Math.max(10_000, streams)),
      });
      children.push(child);
      child.stderr!.on('data', (d: Buffer) => (gwErr = (gwErr + d.toString()).slice(-2000)));
      gateways.push({ port, child });
    }
    const gwPort = gateways[0].port;
    const gwRss = () => gateways.reduce((a, g) => a + rssKb(g.child.pid!), 0);
    const barePort = await freePort();
    const bare = spawnRaised(['bench/live-bare-sse.mjs'], {
      PORT: String(barePort),
      REDIS_URL,
      KEY: key,
    });
    children.push(bare);
    for (const g of gateways)
      await healthy(`http://127.0.0.1:${g.port}`, g.child, `gateway (${gwErr})`);
    await healthy(`http://127.0.0.1:${barePort}`, bare, 'bare SSE server');
    // One client process per server: neither server's clients wait for the other's.
    const clientOf = {
      gateway: spawnRaised(['bench/live-clients.mjs'], {}, true),
      bare: spawnRaised(['bench/live-clients.mjs'], {}, true),
    };
    children.push(clientOf.gateway, clientOf.bare);
    await Promise.all([ask(clientOf.gateway, {}, 'ready'), ask(clientOf.bare, {}, 'ready')]);
    await sleep(3000);
    await snapshot(gateways[0].child.pid!);
    const rss0 = { gateway: gwRss(), bare: rssKb(bare.pid!) };

    step(
      NAME,
      `opening ${streams} streams on each (${users.length} users x ${perUser} tabs), from two client processes`,
    );
    const t0 = Date.now();
    type Opened = {
      targets: Array<{
        name: string;
        open: number;
        refused: string[];
        refusedCount: number;
        retried: number;
      }>;
    };
    const opened = (
      await Promise.all([
        ask<Opened>(
          clientOf.gateway,
          {
            type: 'open',
            targets: [
              {
                name: 'gateway',
                port: gwPort,
                streams: tickets.map((ts, i) => ({
                  paths: ts.map((t) => `/api/live?ticket=${t}`),
                  port: gateways[i % replicas].port,
                  ...users[Math.floor(i / perUser)],
                })),
              },
            ],
          },
          'opened',
        ),
        ask<Opened>(
          clientOf.bare,
          {
            type: 'open',
            targets: [
              {
                name: 'bare',
                port: barePort,
                streams: tickets.map((_, i) => {
                  const u = users[Math.floor(i / perUser)];
                  const path = `/live?user=${u.user}&kind=${u.kind}&country=${u.country ?? ''}`;
                  return { paths: [path, path, path], ...u };
                }),
              },
            ],
          },
          'opened',
        ),
      ])
    ).flatMap((o) => o.targets);
    const openMs = Date.now() - t0;
    for (const t of opened)
      figure(
        NAME,
        `${t.name === 'gateway' ? 'gateway' : 'bare node:http SSE'}: opens refused and tried again with a new ticket (503 under the storm)`,
        `${t.retried}${t.refusedCount ? ` (${t.refused[0]})` : ''}`,
      );
    for (const t of opened)
      if (t.open !== streams)
        throw new Error(
          `${t.name}: ${t.open} of ${streams} streams open; refused ${t.refusedCount}: ${t.refused.join(' | ')}`,
        );
    await sleep(5000);
    const rss1 = { gateway: gwRss(), bare: rssKb(bare.pid!) };
    await snapshot(gateways[0].child.pid!);

    step(NAME, `publishing ${rate} live messages/s for ${seconds} s`);
    // The mix of the feed: most messages name one user (a poster's or tester's job, earnings) and
    // every admin; one in 50 is an `available` message for the testers of some countries.
    const expected = new Map<string, number>();
    const total = rate * seconds;
    const start = now();
    const countries: Array<string[] | 'any'> = ['any', ['US'], ['US', 'PR'], ['US', 'PR', 'CA']];
    for (let seq = 0; seq < total; seq++) {
      const due = start + (seq * 1000) / rate;
      const wait = due - now();
      if (wait > 1) await sleep(wait);
      const to: Audience =
        seq % 50 === 0
          ? { users: [], testers: countries[(seq / 50) % countries.length] }
          : { users: [users[(seq * 7919) % users.length].user], admins: true };
      for (const u of users)
        if (admits(u, to)) expected.set(u.user, (expected.get(u.user) ?? 0) + 1);
      const event = to.testers ? 'available' : 'job';
      await redis.xadd(
        key,
        '*',
        'm',
        JSON.stringify({ event, data: { bench: { seq, t: now(), to } }, to }),
      );
    }
    const publishMs = now() - start;
    const rssRun = { gateway: gwRss(), bare: rssKb(bare.pid!) };

    // Wait until every stream has what it must have (or 15 s pass).
    const want = users.reduce((a, u) => a + (expected.get(u.user) ?? 0) * perUser, 0);
    let report: { targets: TargetReport[] } = { targets: [] };
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(500)) {
      const parts = await Promise.all([
        ask<{ targets: TargetReport[] }>(clientOf.gateway, { type: 'report' }, 'report'),
        ask<{ targets: TargetReport[] }>(clientOf.bare, { type: 'report' }, 'report'),
      ]);
      report = { targets: parts.flatMap((p) => p.targets) };
      if (report.targets.every((t) => t.counts.reduce((a, b) => a + b, 0) >= want)) break;
    }

    const load = os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    figure(NAME, 'machine load average (1, 5, 15 min) at the end', load);
    figure(
      NAME,
      'open streams per server / users x tabs / gateway replicas',
      `${streams} / ${users.length} x ${perUser} / ${replicas}`,
    );
    figure(
      NAME,
      `time to open ${streams} streams on each server, at once, one client process each (s)`,
      openMs / 1000,
    );
    figure(
      NAME,
      'messages published / rate achieved (per s)',
      `${total} / ${fmt(total / (publishMs / 1000))}`,
    );
    const byName = Object.fromEntries(report.targets.map((t) => [t.name, t]));
    for (const name of ['gateway', 'bare'] as const) {
      const t = byName[name];
      let lost = 0;
      let extra = 0;
      t.counts.forEach((n, i) => {
        const e = expected.get(t.users[i]) ?? 0;
        if (n < e) lost += e - n;
        else extra += n - e;
      });
      const label = name === 'gateway' ? 'gateway' : 'bare node:http SSE';
      const perStream = (rss1[name] - rss0[name]) / streams;
      figure(NAME, `${label}: deliveries / expected`, `${t.deliveries} / ${want}`);
      figure(
        NAME,
        `${label}: messages lost / duplicated / to the wrong user / streams closed`,
        `${lost} / ${extra} / ${t.wrong} / ${t.closed}`,
        name === 'gateway'
          ? { text: '0 / 0 / 0 / 0', ok: lost + extra + t.wrong + t.closed === 0 }
          : undefined,
      );
      figure(
        NAME,
        `${label}: append -> client p50 / p99 / max (ms)`,
        `${fmt(t.p50)} / ${fmt(t.p99)} / ${fmt(t.max)}`,
        name === 'gateway' ? { text: 'p99 <= 1000', ok: t.p99 <= 1000 } : undefined,
      );
      figure(
        NAME,
        `${label}: RSS idle / with the streams / after the messages (MB)`,
        `${fmt(rss0[name] / 1024)} / ${fmt(rss1[name] / 1024)} / ${fmt(rssRun[name] / 1024)}`,
      );
      figure(
        NAME,
        `${label}: RSS delta per open stream (KB)`,
        perStream,
        name === 'gateway' ? { text: '<= 20', ok: perStream <= 20 } : undefined,
      );
      figure(NAME, `${label}: heartbeats seen (all streams)`, t.pings);
    }
    const g = byName.gateway;
    const b = byName.bare;
    figure(NAME, 'ratio gateway / bare: p99 latency', g.p99 / b.p99);
    figure(
      NAME,
      'ratio gateway / bare: RSS per stream',
      (rss1.gateway - rss0.gateway) / Math.max(1, rss1.bare - rss0.bare),
    );
  } finally {
    for (const c of children) if (c.connected) c.send({ type: 'close' });
    await Promise.all(children.map(stop));
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      streams: { type: 'string' },
      seconds: { type: 'string' },
      rate: { type: 'string' },
      replicas: { type: 'string' },
    },
  });
  const started = new Date();
  await run({
    streams: values.streams ? Number(values.streams) : undefined,
    seconds: values.seconds ? Number(values.seconds) : undefined,
    rate: values.rate ? Number(values.rate) : undefined,
    replicas: values.replicas ? Number(values.replicas) : undefined,
  });
  const two = values.replicas && values.replicas !== '1';
  writeAloneSection(
    NAME,
    started,
    '',
    '',
    two ? `${NAME}-${values.replicas}-replicas` : NAME,
    `npx tsx bench/live-scale.ts${two ? ` --replicas ${values.replicas}` : ''}`,
  );
}
