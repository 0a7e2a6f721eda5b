/**
 * `npm run bench:soak -- --minutes 30` (default 3): the marketplace as a cluster of processes
 * (scripts/cluster/cluster.ts, what `npm run start:cluster` runs: production bundles, one OS
 * process per replica, real PostgreSQL and Redis) under steady mixed traffic from a second process
 * (bench/soak-traffic.ts: sign-ins, posting and paying, claims, recordings over tus, submissions
 * with a screenshot, reviews, auto-accepts, live streams; the e-mails those events cause).
 *
 * Every 5 s it records each process's RSS, this run's Redis keys (memory, by kind), the unpublished
 * outbox rows, the dead letters and the e-mails; every 10 s each route's p99. At the end it judges,
 * with the warm-up taken as the first sixth of the run:
 * - no failed request;
 * - each process's RSS grows <= 5% over the last two thirds, read right after a full garbage
 *   collection in every process (through its inspector, bench/collect-garbage.mjs) a little after
 *   the one-third mark and at the end, both under traffic: RSS as sampled rises and falls with
 *   V8's full collections (a replica 103 MB at one third and 134 MB at the end, its twin 133 and
 *   138), so it is reported beside, not judged (the chart shows the first collection's dip);
 * - each route's p99 in the last third <= 1.2x its p99 in the first third after the warm-up, as the
 *   median of its 10 s windows' p99s (the p99 of all the calls of each third printed beside: a
 *   handful of slow calls in a burst decides that one);
 * - no growth of Redis memory over the last third (this run's keys apart from the event streams and
 *   the live history, which keep entries by design up to their cap / 10 minutes: reported apart;
 *   from two thirds on, as keys kept up to 15 minutes fill until then), of the unpublished
 *   outbox rows, of the dead letters or of the unsent e-mails;
 * and reports where the work per job cycle went, first third -> last: CPU by process (PostgreSQL
 * and Redis included) and the statements whose time per cycle grew most (pg_stat_statements);
 * and writes bench/results/soak-<date>.json and .png (RSS and p99 over time; SVG drawn here,
 * turned into PNG by sharp).
 */
import { execFile, execFileSync, fork } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import pg from 'pg';
import { Redis } from 'ioredis';
import sharp from 'sharp';
import { testRedisPrefix, TEST_REDIS_URL } from '@htm/service-kit/testing';
import { startOwnPostgres } from './own-postgres.js';
import { ROOT, startCluster, type Cluster } from '../scripts/cluster/cluster.js';
import {
  cpuUs,
  cpuWithChildrenUs,
  figure,
  fmt,
  note,
  pct,
  processes,
  sleep,
  step,
} from './support.js';
import { writeAloneSection } from './results.js';

const NAME = 'soak';
const SAMPLE_MS = 5000;
const WINDOW_MS = 10_000;

const { values } = parseArgs({
  options: { minutes: { type: 'string' }, clients: { type: 'string' } },
});
const minutes = Number(values.minutes ?? 3);
const clients = Number(values.clients ?? 6);
const runMs = minutes * 60_000;
/** How far from a moment the samples taken "around" it reach (their median is the figure). */
const AROUND_MS = Math.max(SAMPLE_MS * 1.5, runMs / 30);

interface Sample {
  t: number;
  rss: Record<string, number>;
  /** CPU seconds used so far by each process (its waited-for children included), PostgreSQL, Redis, the traffic. */
  cpu: Record<string, number>;
  redisOther: number;
  /** Bytes of the other keys by kind (the key with ids and numbers taken out). */
  redisKinds: Record<string, number>;
  redisStreams: number;
  streamEntries: number;
  outbox: number;
  deadLetters: number;
  mailPending: number;
  /** Counted in the final sample only (0 in the others). */
  mailSent: number;
}
interface Window {
  t: number;
  p99: Record<string, number>;
  /** Each route's median and 90th percentile in the window (to see whether a p99 moves alone). */
  p50: Record<string, number>;
  p90: Record<string, number>;
  n: Record<string, number>;
  failures: string[];
  cycles: number;
  auto: number;
  live: number;
  liveOpens: number;
}

const rssMb = (pid: number | undefined) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  } catch {
    return NaN;
  }
};
const median = (xs: number[]) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};

/** A line chart (two panels: RSS per process, p99 per route) as SVG. */
function chart(samples: Sample[], windows: Window[], t0: number, marks: number[]): string {
  const W = 1400;
  const H = 1000;
  const pad = { l: 80, r: 330, t: 50, b: 50 };
  const panelH = (H - pad.t - pad.b - 60) / 2;
  const colors = [
    '#1f77b4',
    '#ff7f0e',
    '#2ca02c',
    '#d62728',
    '#9467bd',
    '#8c564b',
    '#e377c2',
    '#7f7f7f',
    '#bcbd22',
    '#17becf',
    '#393b79',
    '#637939',
    '#8c6d31',
    '#843c39',
    '#7b4173',
    '#3182bd',
    '#e6550d',
    '#31a354',
  ];
  const xMax = Math.max(runMs, ...samples.map((s) => s.t - t0)) / 1000;
  const x = (sec: number) => pad.l + (sec / xMax) * (W - pad.l - pad.r);
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const parts: string[] = [
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2 - 200}" y="28" font-family="DejaVu Sans, sans-serif" font-size="20">Soak: ${minutes} min in start:cluster, ${clients} client pairs</text>`,
  ];
  const panel = (
    top: number,
    title: string,
    series: Array<{ name: string; pts: Array<[number, number]> }>,
    unit: string,
  ) => {
    const yMax =
      Math.max(1, ...series.flatMap((s) => s.pts.map((p) => p[1]).filter(Number.isFinite))) * 1.1;
    const y = (v: number) => top + panelH - (v / yMax) * panelH;
    parts.push(
      `<text x="${pad.l}" y="${top - 8}" font-family="DejaVu Sans, sans-serif" font-size="16">${esc(title)}</text>`,
    );
    parts.push(
      `<rect x="${pad.l}" y="${top}" width="${W - pad.l - pad.r}" height="${panelH}" fill="none" stroke="#999"/>`,
    );
    for (let i = 0; i <= 4; i++) {
      const v = (yMax * i) / 4;
      parts.push(`<line x1="${pad.l}" x2="${W - pad.r}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/>`);
      parts.push(
        `<text x="${pad.l - 8}" y="${y(v) + 4}" text-anchor="end" font-family="DejaVu Sans, sans-serif" font-size="12">${fmt(v)} ${unit}</text>`,
      );
    }
    for (let i = 0; i <= 6; i++) {
      const sec = (xMax * i) / 6;
      parts.push(
        `<text x="${x(sec)}" y="${top + panelH + 16}" text-anchor="middle" font-family="DejaVu Sans, sans-serif" font-size="12">${fmt(sec / 60)} min</text>`,
      );
    }
    for (const m of marks)
      parts.push(
        `<line x1="${x(m / 1000)}" x2="${x(m / 1000)}" y1="${top}" y2="${top + panelH}" stroke="#aaa" stroke-dasharray="4 4"/>`,
      );
    series.forEach((s, i) => {
      const c = colors[i % colors.length];
      const pts = s.pts.filter((p) => Number.isFinite(p[1]));
      if (pts.length)
        parts.push(
          `<polyline fill="none" stroke="${c}" stroke-width="2" points="${pts.map(([sec, v]) => `${x(sec).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}"/>`,
        );
      const ly = top + 14 + i * 16;
      if (ly < top + panelH) {
        parts.push(`<rect x="${W - pad.r + 15}" y="${ly - 9}" width="12" height="4" fill="${c}"/>`);
        parts.push(
          `<text x="${W - pad.r + 32}" y="${ly - 3}" font-family="DejaVu Sans, sans-serif" font-size="12">${esc(s.name.slice(0, 42))}</text>`,
        );
      }
    });
  };
  const procs = Object.keys(samples[0]?.rss ?? {});
  panel(
    pad.t + 20,
    'RSS of each process (MB)',
    procs.map((p) => ({
      name: p,
      pts: samples.map((s) => [(s.t - t0) / 1000, s.rss[p]] as [number, number]),
    })),
    'MB',
  );
  const routes = [...new Set(windows.flatMap((w) => Object.keys(w.p99)))].sort(
    (a, b) =>
      windows.reduce((n, w) => n + (w.n[b] ?? 0), 0) -
      windows.reduce((n, w) => n + (w.n[a] ?? 0), 0),
  );
  panel(
    pad.t + 80 + panelH,
    'p99 of each route per 10 s window (ms); dashed: end of warm-up, thirds',
    routes.slice(0, 18).map((r) => ({
      name: r,
      pts: windows.map((w) => [(w.t - t0) / 1000, w.p99[r] ?? NaN] as [number, number]),
    })),
    'ms',
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${parts.join('')}</svg>`;
}

/** The run was stopped by a signal (its clean-up has run). */
class Interrupted extends Error {}

async function main(): Promise<void> {
  const started = new Date();
  const stamp = started.toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const outDir = path.join(ROOT, 'bench', 'results');
  // Inside the repository (the bundles resolve their packages from its node_modules), like the cluster test.
  const work = path.join(ROOT, 'test-results', `soak-${process.pid}`);
  mkdirSync(outDir, { recursive: true });
  mkdirSync(work, { recursive: true });
  // A PostgreSQL of its own (port 18602; fsync off to spare the shared disk): a dozen processes' pools
  // for the whole run must not depend on the shared server's connection limit, nor add to it.
  const db = await startOwnPostgres(Number(process.env.BENCH_PG_PORT ?? 18602), {
    fsync: false,
    statements: true,
  });
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  pool.on('error', () => undefined); // the server stops at the end
  // Which queries cost more as the run goes on (a note at the end); without the extension, no note.
  const statements = await pool
    .query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
    .then(() => true)
    .catch(() => false);
  const redis = new Redis(TEST_REDIS_URL);
  const prefix = testRedisPrefix('soak');
  let cluster: Cluster | undefined;
  // Ctrl-C or a kill: the run ends early and the cluster, its database and keys are cleaned up
  // (otherwise its ten processes would outlive the bench).
  let interrupted = false;
  for (const sig of ['SIGINT', 'SIGTERM'] as const)
    process.once(sig, () => {
      interrupted = true;
      step(NAME, `${sig}: stopping the traffic and the cluster`);
    });
  try {
    step(
      NAME,
      'building the bundles and starting the cluster (gateway 2, jobs 2, every other service 1, jobs worker 1)',
    );
    cluster = await startCluster({
      replicas: {
        gateway: 2,
        identity: 1,
        jobs: 2,
        payments: 1,
        admin: 1,
        notifications: 1,
        analytics: 1,
        worker: 1,
      },
      env: {
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATABASE_URL: db.url,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: prefix,
        EVENT_BUS: 'redis',
        AUTO_ACCEPT_AFTER_MS: '5000',
        AUTH_RATE_LIMIT_PER_MINUTE: '100000',
        FORM_RATE_LIMIT_PER_MINUTE: '100000',
        API_RATE_LIMIT_PER_MINUTE: '1000000',
        WEB_DIST: '/nonexistent',
        UPSTREAM_TIMEOUT_MS: '30000',
        PAYMENTS_TIMEOUT_MS: '25000',
        DATA_DIR: path.join(work, 'data'),
        // Each process's inspector on a port of its own (127.0.0.1 only), for rssAfterGc.
        NODE_OPTIONS: '--inspect=127.0.0.1:0',
      },
      bundleDir: path.join(work, 'dist'),
      logDir: path.join(work, 'logs'),
      drainMs: 1000,
    });
    const procs = Object.values(cluster.replicas).flat();
    // RSS as sampled rises and falls with V8's full collections (it lets its old space fill with
    // garbage until the next one), so growth is judged on RSS right after a full collection in
    // every process, at one third of the run and at its end (both under traffic).
    const rssAfterGc = async (): Promise<Record<string, number>> => {
      const inspectors = procs.map((r) => {
        const urls = readFileSync(r.logFile, 'utf8').match(/ws:\/\/127\.0\.0\.1:\d+\/[\w-]+/g);
        if (!urls) throw new Error(`${r.name}: no inspector address in ${r.logFile}`);
        return urls[urls.length - 1];
      });
      await promisify(execFile)(process.execPath, [
        '--experimental-websocket',
        path.join(ROOT, 'bench', 'collect-garbage.mjs'),
        ...inspectors,
      ]);
      return Object.fromEntries(procs.map((r) => [r.name, rssMb(r.pid)]));
    };

    // A screenshot (PNG) and a 3-second WebM like MediaRecorder's.
    const png = path.join(work, 'screen.png');
    await sharp({ create: { width: 800, height: 600, channels: 3, background: '#3a6ea5' } })
      .png()
      .toFile(png);
    const webm = path.join(work, 'clip.webm');
    execFileSync('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=3:size=160x120:rate=10',
      '-c:v',
      'libvpx',
      '-b:v',
      '200k',
      webm,
    ]);

    const outboxes = (
      await pool.query<{ s: string }>(
        "SELECT table_schema AS s FROM information_schema.tables WHERE table_name = 'outbox' ORDER BY 1",
      )
    ).rows.map((r) => r.s);
    const trafficProc: { pid?: number } = {}; // set once the traffic is forked
    const redisPid = processes().find((p) => p.comm === 'redis-server')?.pid;
    const cpuNow = (): Record<string, number> => {
      const cpu: Record<string, number> = {};
      for (const r of procs) cpu[r.name] = r.pid ? cpuWithChildrenUs(r.pid) / 1e6 : NaN;
      const [postmaster, ...backends] = db.pids();
      cpu.postgres =
        (cpuWithChildrenUs(postmaster) + backends.reduce((a, p) => a + cpuUs(p), 0)) / 1e6;
      if (redisPid) cpu.redis = cpuUs(redisPid) / 1e6;
      if (trafficProc.pid) cpu.traffic = cpuWithChildrenUs(trafficProc.pid) / 1e6;
      return cpu;
    };
    /** Each statement's calls and execution time so far (pg_stat_statements), by query id. */
    const statementsNow = async () =>
      statements
        ? (
            await pool.query<{ id: string; query: string; calls: string; ms: number }>(
              `SELECT queryid::text AS id, left(regexp_replace(query, '\\s+', ' ', 'g'), 140) AS query,
                      calls, total_exec_time AS ms FROM pg_stat_statements`,
            )
          ).rows
        : [];
    const sample = async (withSent = false): Promise<Sample> => {
      const rss: Record<string, number> = {};
      for (const r of procs) rss[r.name] = rssMb(r.pid);
      const cpu = cpuNow();
      let redisOther = 0;
      const redisKinds: Record<string, number> = {};
      let redisStreams = 0;
      let streamEntries = 0;
      let deadLetters = 0;
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        for (const k of keys) {
          const bytes = Number((await redis.call('MEMORY', 'USAGE', k)) ?? 0);
          const rest = k.slice(prefix.length);
          if (/^events:dlq:/.test(rest)) {
            deadLetters += await redis.xlen(k);
            redisOther += bytes;
          } else if (/^events:[a-z]+:\d+$/.test(rest) || rest === 'live:messages') {
            redisStreams += bytes;
            streamEntries += await redis.xlen(k);
          } else {
            redisOther += bytes;
            const kind = rest
              .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id')
              .replace(/\d{3,}/g, ':n')
              .replace(/[A-Za-z0-9_-]{20,}/g, ':token');
            redisKinds[kind] = (redisKinds[kind] ?? 0) + bytes;
          }
        }
      } while (cursor !== '0');
      const outbox = Number(
        (
          await pool.query(
            `SELECT ${outboxes.map((s) => `(SELECT count(*) FROM "${s}".outbox WHERE published_at IS NULL)`).join(' + ') || '0'} AS n`,
          )
        ).rows[0].n,
      );
      // Every 5 s only the unsent ones (the mailer's partial index); the sent ones, a table that
      // grows all run, counted at the end only, so the bench adds no growing work of its own.
      const mail = (
        await pool
          .query<{ status: string; n: number }>(
            withSent
              ? 'SELECT status, count(*)::int AS n FROM notifications.messages GROUP BY status'
              : "SELECT 'pending' AS status, count(*)::int AS n FROM notifications.messages WHERE status = 'pending'",
          )
          .catch(() => ({ rows: [] }))
      ).rows;
      const mailOf = (s: string) => mail.find((m) => m.status === s)?.n ?? 0;
      return {
        t: Date.now(),
        rss,
        cpu,
        redisOther,
        redisKinds,
        redisStreams,
        streamEntries,
        outbox,
        deadLetters,
        mailPending: mailOf('pending'),
        mailSent: mailOf('sent'),
      };
    };

    step(NAME, `signing in ${clients} posters and ${clients} approved testers (second process)`);
    const traffic = fork('bench/soak-traffic.ts', [], {
      execArgv: ['--import', 'tsx'],
      env: {
        ...process.env,
        URL: cluster.url,
        DATABASE_URL: db.url,
        CLIENTS: String(clients),
        WINDOW_MS: String(WINDOW_MS),
        SCREENSHOT: png,
        RECORDING: webm,
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    trafficProc.pid = traffic.pid;
    const windows: Window[] = [];
    /** Every call's latency by window (its end) and route: a third's p99 is the p99 of all its calls. */
    const latencies = new Map<number, Record<string, number[]>>();
    let done = false;
    const ready = new Promise<void>((resolve, reject) => {
      traffic.on(
        'message',
        (
          m: { type: string; at: number; latencies: Record<string, number[]> } & Omit<
            Window,
            't' | 'p99' | 'n'
          >,
        ) => {
          if (m.type === 'ready') resolve();
          else if (m.type === 'done') done = true;
          else if (m.type === 'window') {
            const p99: Record<string, number> = {};
            const p50: Record<string, number> = {};
            const p90: Record<string, number> = {};
            const n: Record<string, number> = {};
            for (const [r, ls] of Object.entries(m.latencies)) {
              ls.sort((a, b) => a - b);
              p99[r] = pct(ls, 99);
              p50[r] = pct(ls, 50);
              p90[r] = pct(ls, 90);
              n[r] = ls.length;
            }
            latencies.set(m.at, m.latencies);
            windows.push({
              t: m.at,
              p99,
              p50,
              p90,
              n,
              failures: m.failures,
              cycles: m.cycles,
              auto: m.auto,
              live: m.live,
              liveOpens: m.liveOpens,
            });
          }
        },
      );
      traffic.once('exit', (code) => {
        done = true;
        reject(new Error(`traffic exited ${code}`));
      });
    });
    await ready;
    const t0 = Date.now();
    step(NAME, `traffic running for ${minutes} min`);
    const samples: Sample[] = [];
    // After the samples around one third (the baseline of RSS as sampled) are taken.
    const gcAt = runMs / 3 + AROUND_MS + SAMPLE_MS;
    let gcThird: Record<string, number> | undefined;
    // pg_stat_statements at the start and end of the first third after the warm-up and of the last third.
    const marks = [runMs / 6, runMs / 6 + runMs / 3, runMs - runMs / 3];
    const marked: Array<Awaited<ReturnType<typeof statementsNow>>> = [];
    while (Date.now() - t0 < runMs && !interrupted) {
      samples.push(await sample());
      if (marked.length < marks.length && Date.now() - t0 >= marks[marked.length])
        marked.push(await statementsNow());
      if (!gcThird && Date.now() - t0 >= gcAt) gcThird = await rssAfterGc();
      const s = samples[samples.length - 1];
      if (samples.length % 6 === 0) {
        const w = windows.slice(-6);
        step(
          NAME,
          `${fmt((s.t - t0) / 60_000)} min: RSS total ${fmt(Object.values(s.rss).reduce((a, b) => a + b, 0))} MB, cycles ${w.reduce((a, x) => a + x.cycles, 0)}/min, failures ${windows.reduce((a, x) => a + x.failures.length, 0)}, load ${os.loadavg()[0].toFixed(1)}`,
        );
      }
      await sleep(SAMPLE_MS - ((Date.now() - t0) % SAMPLE_MS));
    }
    if (interrupted) {
      if (traffic.connected) traffic.send({ type: 'stop' });
      throw new Interrupted();
    }
    marked.push(await statementsNow());
    const gcEnd = await rssAfterGc();
    if (traffic.connected) traffic.send({ type: 'stop' });
    for (const deadline = Date.now() + 120_000; !done && Date.now() < deadline;) await sleep(200);
    // Quiet: the events and e-mails of the last cycles settle.
    await sleep(5000);
    const final = await sample(true);

    // Judging: failures of every call, the wind-down included; p99s of the windows inside the run.
    const failures = windows.flatMap((w) => w.failures);
    const calls = windows.reduce((a, w) => a + Object.values(w.n).reduce((x, y) => x + y, 0), 0);
    windows.splice(0, windows.length, ...windows.filter((w) => w.t - t0 <= runMs + WINDOW_MS / 2));
    const warm = runMs / 6;
    const third = runMs / 3;
    const at = (s: { t: number }) => s.t - t0;
    figure(
      NAME,
      'machine load average (1, 5, 15 min) at the end',
      os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' '),
    );
    figure(
      NAME,
      'duration / processes / client pairs',
      `${minutes} min / ${procs.length} / ${clients}`,
    );
    figure(
      NAME,
      'requests / job cycles finished (of them auto-accepted) / live messages received / live streams opened',
      `${calls} / ${windows.reduce((a, w) => a + w.cycles, 0)} (${windows.reduce((a, w) => a + w.auto, 0)}) / ${windows.reduce((a, w) => a + w.live, 0)} / ${windows.reduce((a, w) => a + w.liveOpens, 0)}`,
    );
    figure(NAME, 'failed requests', failures.length, { text: '0', ok: failures.length === 0 });
    if (failures.length) note(NAME, 'failed requests (first 10)', failures.slice(0, 10).join('\n'));
    figure(
      NAME,
      'e-mails sent / still pending at the end',
      `${final.mailSent} / ${final.mailPending}`,
    );

    const around = (mid: number) => samples.filter((s) => Math.abs(at(s) - mid) <= AROUND_MS);
    const last = samples.filter((s) => at(s) >= runMs - Math.max(SAMPLE_MS * 3, runMs / 15));
    const pctOf = (g: number) => `${g >= 0 ? '+' : ''}${(g * 100).toFixed(1)}%`;
    const rssRows: string[] = [];
    let worst = -Infinity;
    let worstSampled = -Infinity;
    for (const p of procs.map((r) => r.name)) {
      const a = median(around(third).map((s) => s.rss[p]));
      const b = median(last.map((s) => s.rss[p]));
      const sampled = b / a - 1;
      worstSampled = Math.max(worstSampled, sampled);
      const ga = gcThird?.[p] ?? NaN;
      const gb = gcEnd[p];
      const g = gb / ga - 1;
      worst = Math.max(worst, Number.isFinite(g) ? g : Infinity);
      rssRows.push(
        `${p.padEnd(16)} ${fmt(ga).padStart(6)} MB -> ${fmt(gb).padStart(6)} MB  ${pctOf(g).padStart(6)}   as sampled ${fmt(a).padStart(6)} -> ${fmt(b).padStart(6)} MB  ${pctOf(sampled)}`,
      );
    }
    figure(
      NAME,
      'largest RSS growth of a process over the last two thirds, right after a full garbage collection at both ends',
      `${(worst * 100).toFixed(1)}%`,
      { text: '<= 5%', ok: worst <= 0.05 },
    );
    figure(
      NAME,
      "largest RSS growth as sampled (rises and falls with V8's full collections)",
      `${(worstSampled * 100).toFixed(1)}%`,
    );
    note(
      NAME,
      'RSS at one third of the run -> at the end: right after a full garbage collection; as sampled (medians of the samples around each)',
      rssRows.join('\n'),
    );

    const first = windows.filter((w) => at(w) > warm && at(w) <= warm + third);
    const lastW = windows.filter((w) => at(w) > runMs - third && at(w) <= runMs);
    /** The p99 of every call of a route in these windows. */
    const pooledP99 = (ws: Window[], r: string) =>
      pct(
        ws.flatMap((w) => latencies.get(w.t)?.[r] ?? []).sort((a, b) => a - b),
        99,
      );
    const p99Rows: string[] = [];
    let worstP = -Infinity;
    let worstPooled = -Infinity;
    const routes = [...new Set(windows.flatMap((w) => Object.keys(w.n)))].sort();
    for (const r of routes) {
      // Judged: the median of the 10 s windows' p99s (each about the slowest of a few dozen calls),
      // steady against one burst. Beside it, the p99 of all the calls of each third.
      const a = median(first.map((w) => w.p99[r]));
      const b = median(lastW.map((w) => w.p99[r]));
      const pa = pooledP99(first, r);
      const pb = pooledP99(lastW, r);
      const n = lastW.reduce((x, w) => x + (w.n[r] ?? 0), 0);
      const ratio = b / a;
      const pooled = pb / pa;
      if (n >= 20 && Number.isFinite(ratio)) worstP = Math.max(worstP, ratio);
      if (n >= 20 && Number.isFinite(pooled)) worstPooled = Math.max(worstPooled, pooled);
      const x = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '-');
      p99Rows.push(
        `${r.slice(0, 52).padEnd(52)} ${fmt(a).padStart(7)} -> ${fmt(b).padStart(7)} ms  x${x(ratio)}   all calls ${fmt(pa).padStart(6)} -> ${fmt(pb).padStart(6)} x${x(pooled)}  (${n} calls in the last third${n < 20 ? ', too few to judge' : ''})`,
      );
    }
    figure(
      NAME,
      'largest p99 ratio of a route, last third / first third after warm-up (median of 10 s windows)',
      worstP === -Infinity ? 'n/a' : worstP,
      { text: '<= 1.2', ok: worstP <= 1.2 },
    );
    figure(
      NAME,
      'the same with the p99 of all the calls of each third (a handful of slow calls in one burst decides it)',
      worstPooled === -Infinity ? 'n/a' : worstPooled,
    );
    note(
      NAME,
      "p99 per route: first third after warm-up -> last third (medians of the 10 s windows' p99; then the p99 of all the calls in each)",
      p99Rows.join('\n'),
    );

    // Where the machine's work per job cycle went, first third after the warm-up -> last third.
    const sampleAt = (ms: number) =>
      samples.find((s) => at(s) >= ms) ?? samples[samples.length - 1];
    const [sA, sB, sC, sD] = [
      sampleAt(warm),
      sampleAt(warm + third),
      sampleAt(runMs - third),
      samples[samples.length - 1],
    ];
    const cyclesOf = (ws: Window[]) => ws.reduce((a, w) => a + w.cycles, 0);
    const [cyclesFirst, cyclesLast] = [cyclesOf(first), cyclesOf(lastW)];
    const perCycle = (a: Sample, b: Sample, k: string, cycles: number) =>
      ((b.cpu[k] - a.cpu[k]) * 1000) / cycles;
    const cpuKeys = Object.keys(sD.cpu);
    const cpuFirst = cpuKeys.reduce((x, k) => x + (perCycle(sA, sB, k, cyclesFirst) || 0), 0);
    const cpuLast = cpuKeys.reduce((x, k) => x + (perCycle(sC, sD, k, cyclesLast) || 0), 0);
    figure(
      NAME,
      'CPU per job cycle, all processes (ms): first third after warm-up -> last third',
      `${fmt(cpuFirst)} -> ${fmt(cpuLast)} (x${(cpuLast / cpuFirst).toFixed(2)}; ${cyclesFirst} -> ${cyclesLast} cycles)`,
    );
    note(
      NAME,
      'CPU per job cycle by process (ms, waited-for children such as ffmpeg included): first third after warm-up -> last third',
      cpuKeys
        .map((k) => {
          const a = perCycle(sA, sB, k, cyclesFirst);
          const b = perCycle(sC, sD, k, cyclesLast);
          return `${k.padEnd(16)} ${fmt(a).padStart(7)} -> ${fmt(b).padStart(7)}  x${(b / a).toFixed(2)}`;
        })
        .join('\n'),
    );
    if (marked.length === 4) {
      const delta = (from: (typeof marked)[0], to: (typeof marked)[0]) => {
        const before = new Map(from.map((r) => [r.id, r]));
        return new Map(
          to.map((r) => [
            r.id,
            {
              query: r.query,
              calls: Number(r.calls) - Number(before.get(r.id)?.calls ?? 0),
              ms: r.ms - (before.get(r.id)?.ms ?? 0),
            },
          ]),
        );
      };
      const d1 = delta(marked[0], marked[1]);
      const d2 = delta(marked[2], marked[3]);
      const rows = [...new Set([...d1.keys(), ...d2.keys()])].map((id) => {
        const a = d1.get(id) ?? { calls: 0, ms: 0, query: '' };
        const b = d2.get(id) ?? { calls: 0, ms: 0, query: '' };
        return { query: b.query || a.query, a, b, grew: b.ms / cyclesLast - a.ms / cyclesFirst };
      });
      rows.sort((x, y) => y.grew - x.grew);
      const dbFirst = rows.reduce((x, r) => x + r.a.ms, 0) / cyclesFirst;
      const dbLast = rows.reduce((x, r) => x + r.b.ms, 0) / cyclesLast;
      note(
        NAME,
        `PostgreSQL execution time per job cycle ${fmt(dbFirst)} -> ${fmt(dbLast)} ms; the statements whose time per cycle grew most (ms per cycle, mean ms per call, calls; pg_stat_statements)`,
        rows
          .slice(0, 8)
          .map(
            (r) =>
              `${fmt(r.a.ms / cyclesFirst).padStart(6)} -> ${fmt(r.b.ms / cyclesLast).padStart(6)}  mean ${(r.a.ms / (r.a.calls || 1)).toFixed(2)} -> ${(r.b.ms / (r.b.calls || 1)).toFixed(2)}  calls ${r.a.calls} -> ${r.b.calls}  ${r.query}`,
          )
          .join('\n'),
      );
    }

    const first3 = around(third);
    const g = (f: (s: Sample) => number) =>
      `${fmt(median(first3.map(f)))} -> ${fmt(median(last.map(f)))} -> ${fmt(f(final))}`;
    // Judged from two thirds on: keys kept for a time fill until it has passed once (the live
    // history's seen-markers 10 minutes, the claims changes an access token's 15), so at one third
    // of a 30-minute run they are still filling by design.
    const twoThirds = around(runMs - third);
    /** The median Redis memory of this run's other keys over these samples, in KB. */
    const redisKb = (ss: Sample[]) => median(ss.map((s) => s.redisOther)) / 1024;
    const redisGrowth = redisKb(last) / redisKb(twoThirds) - 1;
    figure(
      NAME,
      "Redis memory of this run's keys apart from event streams and live history (KB): at one third -> two thirds -> end -> after the traffic; judged from two thirds, once keys kept up to 15 minutes are full",
      `${[first3, twoThirds, last].map((ss) => fmt(redisKb(ss))).join(' -> ')} -> ${fmt(final.redisOther / 1024)} (${redisGrowth >= 0 ? '+' : ''}${(redisGrowth * 100).toFixed(1)}%)`,
      { text: 'no growth (<= 5%)', ok: redisGrowth <= 0.05 },
    );
    const kinds = [
      ...new Set([
        ...Object.keys(final.redisKinds),
        ...first3.flatMap((s) => Object.keys(s.redisKinds)),
      ]),
    ];
    const kindRows = kinds
      .map((k) => ({
        k,
        a: median(first3.map((s) => s.redisKinds[k] ?? 0)),
        b: median(last.map((s) => s.redisKinds[k] ?? 0)),
        c: final.redisKinds[k] ?? 0,
      }))
      .sort((x, y) => y.b - y.a - (x.b - x.a))
      .slice(0, 12)
      .map(
        ({ k, a, b, c }) =>
          `${k.slice(0, 60).padEnd(60)} ${fmt(a / 1024).padStart(7)} -> ${fmt(b / 1024).padStart(7)} -> ${fmt(c / 1024).padStart(7)} KB`,
      );
    note(
      NAME,
      'Redis keys of this run by kind (ids taken out), KB at one third -> end -> after the traffic, largest growth first',
      kindRows.join('\n'),
    );
    figure(
      NAME,
      'event streams + live history (kept by design up to their cap / 10 min): KB, entries at one third -> end',
      `${fmt(median(first3.map((s) => s.redisStreams)) / 1024)} KB, ${median(first3.map((s) => s.streamEntries))} -> ${fmt(median(last.map((s) => s.redisStreams)) / 1024)} KB, ${median(last.map((s) => s.streamEntries))}`,
    );
    const maxOutbox = Math.max(...samples.map((s) => s.outbox));
    figure(
      NAME,
      'unpublished outbox rows: at one third -> end -> after the traffic (max seen)',
      `${g((s) => s.outbox)} (${maxOutbox})`,
      { text: 'no growth, 0 after', ok: final.outbox === 0 },
    );
    figure(
      NAME,
      'dead letters: at one third -> end -> after the traffic',
      g((s) => s.deadLetters),
      { text: '0', ok: final.deadLetters === 0 },
    );
    figure(
      NAME,
      'unsent e-mails: at one third -> end -> after the traffic',
      g((s) => s.mailPending),
      {
        text: 'no growth',
        ok: final.mailPending <= median(first3.map((s) => s.mailPending)) + clients,
      },
    );

    const json = path.join(outDir, `soak-${stamp}.json`);
    const pngOut = path.join(outDir, `soak-${stamp}.png`);
    writeFileSync(
      json,
      JSON.stringify(
        { started, minutes, clients, processes: procs.map((r) => r.name), samples, windows, final },
        null,
        1,
      ),
    );
    await sharp(Buffer.from(chart(samples, windows, t0, [warm, warm + third, runMs - third])))
      .png()
      .toFile(pngOut);
    figure(
      NAME,
      'figures / chart',
      `${path.relative(ROOT, json)} / ${path.relative(ROOT, pngOut)}`,
    );
    writeAloneSection(
      NAME,
      started,
      `\`npm run bench:soak -- --minutes ${minutes}\`: ${clients} client pairs in a second process, the cluster's logs under ${work}/logs during the run.`,
      `![soak chart](${path.relative(path.join(ROOT, 'bench'), pngOut)})`,
    );
  } finally {
    await cluster?.stop();
    await pool.end();
    await db.stop();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    rmSync(path.join(work, 'dist'), { recursive: true, force: true });
  }
}

await main().catch((err: unknown) => {
  if (!(err instanceof Interrupted)) throw err;
  step(NAME, 'interrupted: the cluster is stopped, no figures written');
  process.exit(130);
});
