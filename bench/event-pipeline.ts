/**
 * The event pipeline against its floors (issue #36 part 2, issue #54 part 2). Throughput: events
 * per second from N committed outbox rows to N handled rows in the consumer's schema (outbox relay
 * -> Redis Streams -> ServiceEvents consumer: handled ids in one transaction per read -> ack),
 * against two loops in rounds that take turns (bare, floor, ours, ours, floor, bare: the machine's
 * drift hits all alike):
 * - the floor: the same durable work per event without our code (bench/event-pipeline-worker.ts
 *   `redis-floor`: read and mark the outbox rows, XADD, XREADGROUP, insert the handled ids, XACK,
 *   in the same batch sizes and transactions, plain pg and ioredis). Target: ours / floor >= 0.8.
 * - the bare loop: XADD -> XREADGROUP -> XACK over N envelopes on the same Redis, nothing durable:
 *   the machine's own speed (printed with the load, so runs on different days can be compared).
 * The measured side runs in its own process; this process commits the rows and watches the
 * handled rows. Each worker of ours and of the floor first handles 5,000 events (a service runs
 * for days: V8 has compiled its code; their CPU over those is printed apart), then the N rows
 * are committed in one transaction and timed from that commit. CPU per event (worker + PostgreSQL + Redis, from /proc) of each, and where ours
 * spends more than the floor: one more round of each under V8's CPU profiler, split by package.
 * Then latency: one event per transaction committed from this process (up to 32 at once), at half
 * of our measured rate: commit -> handled row (handled_at: the start of the consumer's
 * transaction, a millisecond or two before its commit). Target p99 <= 250 ms. The same throughput
 * comparison on Kafka (the librdkafka mock broker of test/support/kafka-mock.ts) against a bare
 * kafkajs produce -> consume loop.
 *
 *   npx tsx bench/event-pipeline.ts [--n 30000] [--no-kafka] [--no-profile]
 */
import { execSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Redis } from 'ioredis';
import { createEvent } from '@htm/events';
import { TEST_REDIS_URL } from '@htm/service-kit/testing';
import { startOwnPostgres } from './own-postgres.js';
import { startKafkaMock } from '../test/support/kafka-mock.js';
import {
  cpuUs,
  figure,
  fmt,
  isMain,
  loadLine,
  note,
  pct,
  processes,
  sleep,
  step,
} from './support.js';
import type { Profile } from './profile-gateway.js';
import { owner } from './profile-read.js';
import { writeAloneSection } from './results.js';

const NAME = 'event-pipeline';

/** What the section in RESULTS.md says above its figures. */
export const INTRO = [
  "Three loops over the same Redis and the bench's own PostgreSQL (fsync on), in rounds that take turns: **bare** (XADD -> XREADGROUP -> XACK, nothing durable: the machine's speed), **floor** (the same durable work per event as ours without our code: read 500 unpublished outbox rows, XADD them, mark them published; XREADGROUP the 4 partitions, insert the read's handled ids in one transaction, XACK; plain pg and ioredis), **ours** (packages/events: OutboxRelay and ServiceEvents with a handler that does nothing).",
  'Ours and the floor each handle 5,000 events before the timed ones (a service runs for days: V8 has compiled its code); their CPU over those first events is printed apart.',
  "On a loaded machine the events/s swing from round to round; the CPU per event (worker + PostgreSQL + Redis, from /proc) hardly depends on the load, and when the cores are the limit the throughput ratio can be no better than the CPU ratio. The profile table splits the worker's CPU per event by package (V8's CPU profile of one more round of each, self time, scaled to the process's CPU time).",
].join('\n\n');

const DDL = (schema: string) => `
CREATE SCHEMA ${schema};
CREATE TABLE ${schema}.outbox (seq bigserial PRIMARY KEY, id uuid NOT NULL UNIQUE, type text NOT NULL, subject text NOT NULL,
  envelope jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz);
CREATE INDEX ON ${schema}.outbox (seq) WHERE published_at IS NULL;
CREATE TABLE ${schema}.handled_events (event_id uuid PRIMARY KEY, type text NOT NULL, handled_at timestamptz NOT NULL DEFAULT now());`;

function worker(
  mode: string,
  env: Record<string, string>,
  profileOut?: string,
): { child: ChildProcess; next(type: string): Promise<{ ms?: number }> } {
  const child = fork('bench/event-pipeline-worker.ts', [mode], {
    // Profiled rounds: bench/cpu-profiler.mjs records V8's CPU profile (what node --cpu-prof
    // writes) between two SIGUSR2, so start-up stays out of it.
    execArgv: ['--import', 'tsx', ...(profileOut ? ['--import', './bench/cpu-profiler.mjs'] : [])],
    env: { ...process.env, ...env, ...(profileOut ? { PROFILE_OUT: profileOut } : {}) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const queue: Array<{ type: string; ms?: number }> = [];
  const waiters: Array<() => void> = [];
  child.on('message', (m: { type: string } | string) => {
    queue.push(typeof m === 'string' ? { type: m } : m);
    waiters.splice(0).forEach((w) => w());
  });
  return {
    child,
    async next(type) {
      for (;;) {
        const i = queue.findIndex((m) => m.type === type);
        if (i >= 0) return queue.splice(i, 1)[0];
        if (child.exitCode !== null) throw new Error(`${mode} worker exited ${child.exitCode}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 500);
        });
      }
    },
  };
}

type Side = 'bare' | 'floor' | 'ours';

/** A worker's CPU per event (µs) by where the code lives (package, our file, GC), self time, idle left out. */
function perEventByOwner(p: Profile, events: number): Map<string, number> {
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const samples = new Map<string, number>();
  let busy = 0;
  for (const id of p.samples) {
    const key = owner(byId.get(id)!.callFrame);
    if (key === '(idle)') continue;
    busy++;
    samples.set(key, (samples.get(key) ?? 0) + 1);
  }
  // Scaled to the CPU time the process used while profiled: a sample's wall time on a busy
  // machine includes time spent waiting for a core.
  const us = (p.cpuUsageUs ?? p.endTime - p.startTime) / Math.max(1, busy);
  return new Map([...samples].map(([k, n]) => [k, (n * us) / events]));
}

/** ours | floor | difference per owner, the largest differences first, and the totals. */
function attribution(ours: Profile, floor: Profile, events: number): string {
  const a = perEventByOwner(ours, events);
  const b = perEventByOwner(floor, events);
  const rows = [...new Set([...a.keys(), ...b.keys()])]
    .map((k) => ({ k, a: a.get(k) ?? 0, b: b.get(k) ?? 0 }))
    .sort((x, y) => y.a - y.b - (x.a - x.b));
  const sum = (m: Map<string, number>) => [...m.values()].reduce((t, v) => t + v, 0);
  const line = (k: string, x: number, y: number) =>
    `${k.slice(0, 56).padEnd(56)} ${fmt(x).padStart(7)} ${fmt(y).padStart(7)} ${fmt(x - y).padStart(7)}`;
  return [
    `${'where'.padEnd(56)} ${'ours'.padStart(7)} ${'floor'.padStart(7)} ${'diff'.padStart(7)}`,
    ...rows
      .filter((r) => Math.abs(r.a - r.b) >= 0.5)
      .slice(0, 20)
      .map((r) => line(r.k, r.a, r.b)),
    line('all (worker process)', sum(a), sum(b)),
  ].join('\n');
}

const exited = (c: ChildProcess) =>
  new Promise<void>((r) => (c.exitCode !== null ? r() : c.once('exit', () => r())));

/** CPU time (µs) so far of each named group of processes. */
type CpuGroups = Record<string, () => number[]>;
const cpuOf = (groups: CpuGroups): Record<string, number> =>
  Object.fromEntries(
    Object.entries(groups).map(([k, pids]) => [k, pids().reduce((t, p) => t + cpuUs(p), 0)]),
  );
const cpuSince = (groups: CpuGroups, at: Record<string, number>) => {
  const now = cpuOf(groups);
  return Object.fromEntries(Object.keys(groups).map((k) => [k, now[k] - at[k]]));
};
const redisPids = () =>
  processes()
    .filter((p) => p.comm === 'redis-server')
    .map((p) => p.pid);

export async function run(
  opts: { n?: number; kafka?: boolean; profile?: boolean } = {},
): Promise<void> {
  const N = opts.n ?? 30_000;
  const warm = Math.min(N, 5000);
  // A PostgreSQL of its own (port 18601, fsync on as in production): the shared server can be at its connection limit.
  const tdb = await startOwnPostgres(Number(process.env.BENCH_PG_PORT ?? 18601), { fsync: true });
  const db = new pg.Pool({ connectionString: tdb.url, max: 32 });
  const counter = new pg.Client({ connectionString: tdb.url });
  const redis = new Redis(TEST_REDIS_URL);
  const base = `bench-pipe-${process.pid}-${Date.now()}`;
  step(NAME, `uptime: ${execSync('uptime').toString().trim()}`);
  let round = 0;
  try {
    await db.query(DDL('bench_a') + DDL('bench_b'));
    const reset = () =>
      db.query(
        'TRUNCATE bench_a.outbox, bench_a.handled_events, bench_b.outbox, bench_b.handled_events',
      );
    /** n rows committed, in statements of 500; `together`: one transaction (they appear at once). */
    const commitRows = async (n: number, together = false) => {
      const c = await db.connect();
      try {
        if (together) await c.query('BEGIN');
        await insertRows(c, n);
        if (together) await c.query('COMMIT');
      } finally {
        c.release();
      }
    };
    const insertRows = async (c: pg.PoolClient, n: number) => {
      for (let i = 0; i < n; i += 500) {
        const evs = Array.from({ length: Math.min(500, n - i) }, (_, k) =>
          createEvent('LeadReceived', `lead-${i + k}`, {
            leadId: `lead-${i + k}`,
            email: 'lead@gmail.com',
          }),
        );
        await c.query(
          'INSERT INTO bench_a.outbox (id, type, subject, envelope) SELECT id, type, subject, envelope FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, type text, subject text, envelope jsonb)',
          [
            JSON.stringify(
              evs.map((e) => ({ id: e.id, type: e.type, subject: e.subject, envelope: e })),
            ),
          ],
        );
      }
    };
    /** CPU (µs) of the processes each Redis round used, from its start to its last event: the work per event, whatever the machine's speed. */
    const cpu: Record<Side, Array<Record<string, number>>> = { bare: [], floor: [], ours: [] };
    /** The worker's CPU (µs) over the first `warm` events of a fresh process. */
    const cold = { floor: [] as number[], ours: [] as number[] };
    // The rows are counted on a connection of their own, whose backend's CPU is left out of PostgreSQL's share.
    await counter.connect();
    const counterPid = Number((await counter.query('SELECT pg_backend_pid() AS p')).rows[0].p);
    const postgresPids = () => tdb.pids().filter((p) => p !== counterPid);
    const handled = async () =>
      Number(
        (await counter.query('SELECT count(*)::int AS n FROM bench_b.handled_events')).rows[0].n,
      );

    /**
     * Our pipeline (or the floor loop) over n rows: the worker starts and handles `warm` rows
     * first (a service runs for days: V8's compilers have seen its code; a fresh process would
     * charge their work to the first thousands of events), then n rows are committed in one
     * transaction: ms from that commit until every handled row is there. With `profileOut`, the
     * worker's CPU profile of that span is written there instead (a round of its own: the
     * profiler costs CPU).
     */
    const durable = async (
      mode: 'redis-pipeline' | 'redis-floor' | 'kafka-pipeline',
      n: number,
      env: Record<string, string>,
      profileOut?: string,
    ): Promise<number> => {
      await reset();
      await commitRows(warm);
      const w = worker(
        mode,
        { N: String(n), PREFIX: `${base}-${round++}:`, DATABASE_URL: tdb.url, ...env },
        profileOut,
      );
      await w.next('started');
      const groups: CpuGroups = {
        worker: () => [w.child.pid!],
        postgres: postgresPids,
        redis: redisPids,
      };
      const cold0 = cpuOf(groups);
      while ((await handled()) < warm) await sleep(20);
      if (!profileOut && mode === 'redis-pipeline') cold.ours.push(cpuSince(groups, cold0).worker);
      if (!profileOut && mode === 'redis-floor') cold.floor.push(cpuSince(groups, cold0).worker);
      if (profileOut) w.child.kill('SIGUSR2');
      await commitRows(n, true);
      const cpu0 = cpuOf(groups);
      const t0 = performance.now();
      for (;;) {
        if ((await handled()) >= warm + n) break;
        if (performance.now() - t0 > 300_000)
          throw new Error(`${mode}: not all ${n} handled in 300 s`);
        await sleep(20);
      }
      const ms = performance.now() - t0;
      if (profileOut) {
        w.child.kill('SIGUSR2');
        await w.next('profile-written');
      } else if (mode !== 'kafka-pipeline')
        cpu[mode === 'redis-floor' ? 'floor' : 'ours'].push(cpuSince(groups, cpu0));
      w.child.send({ type: 'stop' });
      await exited(w.child);
      return ms;
    };
    const bare = async (
      kind: 'redis' | 'kafka',
      n: number,
      env: Record<string, string>,
    ): Promise<number> => {
      const w = worker(`${kind}-bare`, { N: String(n), PREFIX: `${base}-${round++}:`, ...env });
      await w.next('started');
      const groups: CpuGroups = { worker: () => [w.child.pid!], redis: redisPids };
      const cpu0 = cpuOf(groups);
      const { ms } = await w.next('done');
      if (kind === 'redis') cpu.bare.push(cpuSince(groups, cpu0));
      await exited(w.child);
      return ms!;
    };
    const rate = (n: number, ms: number) => n / (ms / 1000);
    const meanOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

    step(
      NAME,
      `Redis Streams: ${N} events per round, rounds bare / floor / ours / ours / floor / bare`,
    );
    const load0 = loadLine();
    const b1 = rate(N, await bare('redis', N, {}));
    step(NAME, `redis: bare ${fmt(b1)}/s`);
    const f1 = rate(N, await durable('redis-floor', N, {}));
    step(NAME, `redis: floor ${fmt(f1)}/s`);
    const o1 = rate(N, await durable('redis-pipeline', N, {}));
    step(NAME, `redis: ours ${fmt(o1)}/s`);
    const o2 = rate(N, await durable('redis-pipeline', N, {}));
    step(NAME, `redis: ours ${fmt(o2)}/s`);
    const f2 = rate(N, await durable('redis-floor', N, {}));
    step(NAME, `redis: floor ${fmt(f2)}/s`);
    const b2 = rate(N, await bare('redis', N, {}));
    step(NAME, `redis: bare ${fmt(b2)}/s`);
    const vsFloor = [o1 / f1, o2 / f2];
    const vsBare = [o1 / b1, o2 / b2];
    figure(NAME, 'machine load average (1, 5, 15 min) before the Redis rounds', load0);
    figure(NAME, 'Redis: events per round', N);
    figure(
      NAME,
      "Redis: bare XADD -> XREADGROUP -> XACK loop, events/s (rounds 1 and 6): the machine's speed",
      `${fmt(b1)} / ${fmt(b2)}`,
    );
    figure(
      NAME,
      'Redis: floor, the same durable work without our code (read + mark outbox rows, XADD, XREADGROUP, insert handled ids, XACK), events/s (rounds 2 and 5)',
      `${fmt(f1)} / ${fmt(f2)}`,
    );
    figure(
      NAME,
      `Redis: ours, committed outbox row -> handled row, events/s (rounds 3 and 4; each worker handled ${warm} events before)`,
      `${fmt(o1)} / ${fmt(o2)}`,
    );
    figure(
      NAME,
      'Redis: ours / floor (mean of the neighbouring pairs)',
      `${fmt(meanOf(vsFloor))} (${vsFloor.map(fmt).join(', ')})`,
      { text: '>= 0.8', ok: meanOf(vsFloor) >= 0.8 },
    );
    figure(
      NAME,
      'Redis: ours / bare (rounds 3 / 1 and 4 / 6)',
      `${fmt(meanOf(vsBare))} (${vsBare.map(fmt).join(', ')})`,
    );

    // CPU per event: when the loops are bound by the machine's cores, their throughput ratio can
    // be no better than the ratio of the CPU each spends on an event.
    const perEvent = (rounds: Array<Record<string, number>>, k: string) =>
      rounds.reduce((t, r) => t + (r[k] ?? 0), 0) / (rounds.length * N);
    const split = (side: Side, parts: string[]) => {
      const each = parts.map((k) => perEvent(cpu[side], k));
      const total = each.reduce((a, b) => a + b, 0);
      return {
        text: `${parts.map((k, i) => `${k} ${fmt(each[i])}`).join(' + ')} = ${fmt(total)}`,
        total,
        each: Object.fromEntries(parts.map((k, i) => [k, each[i]])),
      };
    };
    const bareCpu = split('bare', ['worker', 'redis']);
    const floorCpu = split('floor', ['worker', 'postgres', 'redis']);
    const oursCpu = split('ours', ['worker', 'postgres', 'redis']);
    figure(NAME, 'Redis: CPU per event, bare loop (µs, rounds 1 and 6)', bareCpu.text);
    figure(NAME, 'Redis: CPU per event, floor (µs, rounds 2 and 5)', floorCpu.text);
    figure(NAME, 'Redis: CPU per event, ours (µs, rounds 3 and 4)', oursCpu.text);
    figure(
      NAME,
      'Redis: CPU per event, floor / ours (the throughput ratio when both are bound by the cores)',
      fmt(floorCpu.total / oursCpu.total),
    );
    figure(
      NAME,
      `Redis: worker CPU per event over the first ${warm} events of a fresh process (not timed above; V8 compiling), floor / ours (µs)`,
      `${fmt(meanOf(cold.floor) / warm)} / ${fmt(meanOf(cold.ours) / warm)}`,
    );

    // Where our extra CPU goes: one profiled round of each, split by package (self time).
    if (opts.profile !== false) {
      const dir = mkdtempSync(path.join(tmpdir(), 'htm-pipeline-prof-'));
      step(NAME, `profiling one round of ours and one of the floor (profiles in ${dir})`);
      const files = {
        ours: path.join(dir, 'ours.cpuprofile'),
        floor: path.join(dir, 'floor.cpuprofile'),
      };
      await durable('redis-pipeline', N, {}, files.ours);
      await durable('redis-floor', N, {}, files.floor);
      const read = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as Profile;
      note(
        NAME,
        `Redis: worker CPU per event by package, ours against the floor (µs; V8 CPU profile of one round each, scaled to the process's CPU time; profiles in ${dir})`,
        attribution(read(files.ours), read(files.floor), N),
      );
      figure(
        NAME,
        "Redis: PostgreSQL CPU per event, ours - floor (µs; the statements are the same but for the relay's advisory lock per pass)",
        fmt(oursCpu.each.postgres - floorCpu.each.postgres),
      );
    }

    // Latency at half our max rate: one event per transaction, committed from this process.
    const maxRate = Math.min(o1, o2);
    const asked = Math.max(1, Math.floor(maxRate / 2));
    const seconds = 10;
    step(
      NAME,
      `latency: ${asked} events/s (half of ${fmt(maxRate)}) for ${seconds} s, one per transaction`,
    );
    await reset();
    const w = worker('redis-pipeline', {
      N: '0',
      PREFIX: `${base}-${round++}:`,
      DATABASE_URL: tdb.url,
    });
    await w.next('started');
    await sleep(1000);
    // Committed from this process (a second one, as another replica of the producing service would:
    // its relay is not woken by these commits and finds them at its next poll, 100 ms), paced every
    // 10 ms, up to 32 transactions at once.
    const start = Date.now();
    const total = asked * seconds;
    const committed: Record<string, number> = {};
    let sent = 0;
    let inFlight = 0;
    const commitOne = async (i: number) => {
      inFlight++;
      const e = createEvent('LeadReceived', `lat-${i}`, {
        leadId: `lat-${i}`,
        email: 'lead@gmail.com',
      });
      try {
        await db.query(
          'INSERT INTO bench_a.outbox (id, type, subject, envelope) VALUES ($1, $2, $3, $4)',
          [e.id, e.type, e.subject, JSON.stringify(e)],
        );
        committed[e.id] = Date.now();
      } finally {
        inFlight--;
      }
    };
    const pending: Array<Promise<void>> = [];
    while (sent < total) {
      const due = Math.min(total, Math.floor(((Date.now() - start) / 1000) * asked));
      while (sent < due && inFlight < 32) pending.push(commitOne(sent++));
      await sleep(5);
    }
    await Promise.all(pending);
    const achieved = total / ((Date.now() - start) / 1000);
    for (const deadline = Date.now() + 60_000; (await handled()) < total && Date.now() < deadline;)
      await sleep(50);
    const rows = (
      await db.query(
        'SELECT event_id, (extract(epoch from handled_at) * 1000)::float8 AS at FROM bench_b.handled_events',
      )
    ).rows as Array<{ event_id: string; at: number }>;
    w.child.send({ type: 'stop' });
    await exited(w.child);
    const lat = rows
      .filter((x) => committed[x.event_id] !== undefined)
      .map((x) => Math.max(0, x.at - committed[x.event_id]))
      .sort((a, b) => a - b);
    figure(NAME, 'Redis: latency run, events/s asked / achieved', `${asked} / ${fmt(achieved)}`);
    figure(NAME, 'Redis: latency run, events handled / committed', `${lat.length} / ${total}`, {
      text: 'all',
      ok: lat.length === total,
    });
    figure(
      NAME,
      'Redis: commit (second process, relay at its 100 ms poll) -> handled row, at half our max rate: p50 / p99 / max (ms)',
      `${fmt(pct(lat, 50))} / ${fmt(pct(lat, 99))} / ${fmt(lat[lat.length - 1])}`,
      {
        text: 'p99 <= 250',
        ok: pct(lat, 99) <= 250,
      },
    );
    figure(NAME, 'machine load average after the latency run', loadLine());

    if (opts.kafka !== false) {
      step(NAME, 'Kafka (librdkafka mock broker): starting');
      const kafka = await startKafkaMock();
      try {
        const n = Math.min(N, 1000);
        // kafkajs' default fetch wait (5 s) stalls an idle partition's fetch; both sides get the same 100 ms.
        const env = { KAFKA_BROKERS: kafka.brokers, KAFKA_MAX_WAIT_MS: '100' };
        const kb1 = rate(n, await bare('kafka', n, env));
        const ko1 = rate(n, await durable('kafka-pipeline', n, env));
        const ko2 = rate(n, await durable('kafka-pipeline', n, env));
        const kb2 = rate(n, await bare('kafka', n, env));
        const ratios = [ko1 / kb1, ko2 / kb2];
        figure(NAME, 'Kafka mock: events per round (both sides: maxWaitTimeInMs 100)', n);
        figure(
          NAME,
          'Kafka mock: bare kafkajs produce -> consume, events/s (rounds 1 and 4)',
          `${fmt(kb1)} / ${fmt(kb2)}`,
        );
        figure(
          NAME,
          'Kafka mock: ours, committed outbox row -> handled row, events/s (rounds 2 and 3)',
          `${fmt(ko1)} / ${fmt(ko2)}`,
        );
        figure(
          NAME,
          'Kafka mock: ours / bare (mean of the neighbouring pairs)',
          `${fmt(meanOf(ratios))} (${ratios.map(fmt).join(', ')})`,
        );
        figure(NAME, 'machine load average after the Kafka rounds', loadLine());
      } finally {
        await kafka.stop();
      }
    }
  } finally {
    const keys = await redis.keys(`${base}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await counter.end().catch(() => undefined);
    await db.end();
    await tdb.stop();
  }
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      n: { type: 'string' },
      'no-kafka': { type: 'boolean' },
      'no-profile': { type: 'boolean' },
    },
  });
  const started = new Date();
  await run({
    n: values.n ? Number(values.n) : undefined,
    kafka: !values['no-kafka'],
    profile: !values['no-profile'],
  });
  writeAloneSection(NAME, started, INTRO);
}
