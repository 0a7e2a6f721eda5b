/**
 * The event pipeline against the bare transport (issue #36 part 2). Throughput: events per second
 * from N committed outbox rows to N handled rows in the consumer's schema (outbox relay ->
 * Redis Streams -> ServiceEvents consumer: handled id + effect in one transaction -> ack),
 * against a bare XADD -> XREADGROUP -> XACK loop over N envelopes on the same Redis, in rounds
 * that take turns (bare, ours, ours, bare: the machine's drift hits both alike). The measured
 * side runs in its own process (bench/event-pipeline-worker.ts); this process commits the rows
 * and watches the handled rows. Then latency: one event per transaction committed from this
 * process (up to 32 at once), at half of our measured rate: commit -> handled row
 * (handled_at: the start of the consumer's transaction, a millisecond or two before its commit). The same throughput comparison on Kafka (the librdkafka mock broker
 * of test/support/kafka-mock.ts) against a bare kafkajs produce -> consume loop.
 *
 *   npx tsx bench/event-pipeline.ts [--n 30000] [--no-kafka]
 */
import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Redis } from 'ioredis';
import { createEvent } from '@htm/events';
import { TEST_REDIS_URL } from '@htm/service-kit/testing';
import { startOwnPostgres } from './own-postgres.js';
import { startKafkaMock } from '../test/support/kafka-mock.js';
import { cpuUs, figure, fmt, isMain, pct, processes, sleep, step } from './support.js';
import { writeAloneSection } from './results.js';

const NAME = 'event-pipeline';

const DDL = (schema: string) => `
CREATE SCHEMA ${schema};
CREATE TABLE ${schema}.outbox (seq bigserial PRIMARY KEY, id uuid NOT NULL UNIQUE, type text NOT NULL, subject text NOT NULL,
  envelope jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz);
CREATE INDEX ON ${schema}.outbox (seq) WHERE published_at IS NULL;
CREATE TABLE ${schema}.handled_events (event_id uuid PRIMARY KEY, type text NOT NULL, handled_at timestamptz NOT NULL DEFAULT now());`;

function worker(
  mode: string,
  env: Record<string, string>,
): { child: ChildProcess; next(type: string): Promise<{ ms?: number }> } {
  const child = fork('bench/event-pipeline-worker.ts', [mode], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const queue: Array<{ type: string; ms?: number }> = [];
  const waiters: Array<() => void> = [];
  child.on('message', (m: { type: string }) => {
    queue.push(m);
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

export async function run(opts: { n?: number; kafka?: boolean } = {}): Promise<void> {
  const N = opts.n ?? 30_000;
  // A PostgreSQL of its own (port 18601, fsync on as in production): the shared server can be at its connection limit.
  const tdb = await startOwnPostgres(Number(process.env.BENCH_PG_PORT ?? 18601), { fsync: true });
  const db = new pg.Pool({ connectionString: tdb.url, max: 32 });
  const redis = new Redis(TEST_REDIS_URL);
  const base = `bench-pipe-${process.pid}-${Date.now()}`;
  let round = 0;
  try {
    await db.query(DDL('bench_a') + DDL('bench_b'));
    const reset = () =>
      db.query(
        'TRUNCATE bench_a.outbox, bench_a.handled_events, bench_b.outbox, bench_b.handled_events',
      );
    const commitRows = async (n: number) => {
      for (let i = 0; i < n; i += 500) {
        const evs = Array.from({ length: Math.min(500, n - i) }, (_, k) =>
          createEvent('LeadReceived', `lead-${i + k}`, {
            leadId: `lead-${i + k}`,
            email: 'lead@gmail.com',
          }),
        );
        await db.query(
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
    const cpu: Record<'bare' | 'ours', Array<Record<string, number>>> = { bare: [], ours: [] };
    const handled = async () =>
      Number((await db.query('SELECT count(*)::int AS n FROM bench_b.handled_events')).rows[0].n);

    /** Our pipeline over n committed rows: ms from the worker's start until every effect row is there. */
    const ours = async (
      kind: 'redis' | 'kafka',
      n: number,
      env: Record<string, string>,
    ): Promise<number> => {
      await reset();
      await commitRows(n);
      const w = worker(`${kind}-pipeline`, {
        N: String(n),
        PREFIX: `${base}-${round++}:`,
        DATABASE_URL: tdb.url,
        ...env,
      });
      await w.next('started');
      // The parent's own polling (a count every 20 ms) is in PostgreSQL's share; it is small beside the rows.
      const groups: CpuGroups = {
        worker: () => [w.child.pid!],
        postgres: tdb.pids,
        redis: redisPids,
      };
      const cpu0 = cpuOf(groups);
      const t0 = performance.now();
      for (;;) {
        if ((await handled()) >= n) break;
        if (performance.now() - t0 > 300_000)
          throw new Error(`${kind} pipeline: not all ${n} handled in 300 s`);
        await sleep(20);
      }
      const ms = performance.now() - t0;
      if (kind === 'redis') cpu.ours.push(cpuSince(groups, cpu0));
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

    /** Rounds bare, ours, ours, bare; events/s of each and the median ratio of neighbours. */
    const compare = async (
      kind: 'redis' | 'kafka',
      n: number,
      env: Record<string, string> = {},
    ) => {
      const b1 = await bare(kind, n, env);
      step(NAME, `${kind}: bare ${fmt(n / (b1 / 1000))}/s`);
      const o1 = await ours(kind, n, env);
      step(NAME, `${kind}: ours ${fmt(n / (o1 / 1000))}/s`);
      const o2 = await ours(kind, n, env);
      step(NAME, `${kind}: ours ${fmt(n / (o2 / 1000))}/s`);
      const b2 = await bare(kind, n, env);
      step(NAME, `${kind}: bare ${fmt(n / (b2 / 1000))}/s`);
      const rate = (ms: number) => n / (ms / 1000);
      const ratios = [rate(o1) / rate(b1), rate(o2) / rate(b2)];
      return {
        bare: [rate(b1), rate(b2)],
        ours: [rate(o1), rate(o2)],
        ratio: (ratios[0] + ratios[1]) / 2,
        ratios,
      };
    };

    step(NAME, `Redis Streams: ${N} events per round, rounds bare / ours / ours / bare`);
    const r = await compare('redis', N);
    figure(
      NAME,
      'machine load average (1, 5, 15 min) before the Redis rounds',
      os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' '),
    );
    figure(NAME, 'Redis: events per round', N);
    figure(
      NAME,
      'Redis: bare XADD -> XREADGROUP -> XACK loop, events/s (rounds 1 and 4)',
      r.bare.map(fmt).join(' / '),
    );
    figure(
      NAME,
      'Redis: ours, committed outbox row -> handled row, events/s (rounds 2 and 3)',
      r.ours.map(fmt).join(' / '),
    );
    figure(
      NAME,
      'Redis: ours / bare (mean of the neighbouring pairs)',
      `${fmt(r.ratio)} (${r.ratios.map(fmt).join(', ')})`,
      { text: '>= 0.5', ok: r.ratio >= 0.5 },
    );

    // CPU per event: when both loops are bound by the machine's cores, their throughput ratio can
    // be no better than the ratio of the CPU each spends on an event.
    const perEvent = (rounds: Array<Record<string, number>>, k: string) =>
      rounds.reduce((t, r) => t + (r[k] ?? 0), 0) / (rounds.length * N);
    const split = (side: 'bare' | 'ours', parts: string[]) => {
      const each = parts.map((k) => perEvent(cpu[side], k));
      const total = each.reduce((a, b) => a + b, 0);
      return {
        text: `${parts.map((k, i) => `${k} ${fmt(each[i])}`).join(' + ')} = ${fmt(total)}`,
        total,
      };
    };
    const bareCpu = split('bare', ['worker', 'redis']);
    const oursCpu = split('ours', ['worker', 'postgres', 'redis']);
    figure(NAME, 'Redis: CPU per event, bare loop (µs, mean of rounds 1 and 4)', bareCpu.text);
    figure(NAME, 'Redis: CPU per event, ours (µs, mean of rounds 2 and 3)', oursCpu.text);
    figure(
      NAME,
      'Redis: CPU per event, bare / ours (the throughput ratio when both are bound by the cores)',
      fmt(bareCpu.total / oursCpu.total),
    );

    // Latency at half our max rate: one event per transaction, committed from this process.
    const maxRate = Math.min(...r.ours);
    const rate = Math.max(1, Math.floor(maxRate / 2));
    const seconds = 10;
    step(
      NAME,
      `latency: ${rate} events/s (half of ${fmt(maxRate)}) for ${seconds} s, one per transaction`,
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
    const total = rate * seconds;
    const committed: Record<string, number> = {};
    let asked = 0;
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
    while (asked < total) {
      const due = Math.min(total, Math.floor(((Date.now() - start) / 1000) * rate));
      while (asked < due && inFlight < 32) pending.push(commitOne(asked++));
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
    figure(NAME, 'Redis: latency run, events/s asked / achieved', `${rate} / ${fmt(achieved)}`);
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
    figure(
      NAME,
      'machine load average after the latency run',
      os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' '),
    );

    if (opts.kafka !== false) {
      step(NAME, 'Kafka (librdkafka mock broker): starting');
      const kafka = await startKafkaMock();
      try {
        const n = Math.min(N, 1000);
        // kafkajs' default fetch wait (5 s) stalls an idle partition's fetch; both sides get the same 100 ms.
        const k = await compare('kafka', n, {
          KAFKA_BROKERS: kafka.brokers,
          KAFKA_MAX_WAIT_MS: '100',
        });
        figure(NAME, 'Kafka mock: events per round (both sides: maxWaitTimeInMs 100)', n);
        figure(
          NAME,
          'Kafka mock: bare kafkajs produce -> consume, events/s (rounds 1 and 4)',
          k.bare.map(fmt).join(' / '),
        );
        figure(
          NAME,
          'Kafka mock: ours, committed outbox row -> handled row, events/s (rounds 2 and 3)',
          k.ours.map(fmt).join(' / '),
        );
        figure(
          NAME,
          'Kafka mock: ours / bare (mean of the neighbouring pairs)',
          `${fmt(k.ratio)} (${k.ratios.map(fmt).join(', ')})`,
        );
        figure(
          NAME,
          'machine load average after the Kafka rounds',
          os
            .loadavg()
            .map((l) => l.toFixed(2))
            .join(' '),
        );
      } finally {
        await kafka.stop();
      }
    }
  } finally {
    const keys = await redis.keys(`${base}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await db.end();
    await tdb.stop();
  }
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: { n: { type: 'string' }, 'no-kafka': { type: 'boolean' } },
  });
  const started = new Date();
  await run({ n: values.n ? Number(values.n) : undefined, kafka: !values['no-kafka'] });
  writeAloneSection(NAME, started);
}
