/**
 * The measured side of bench/event-pipeline.ts, in its own process (the parent commits the
 * outbox rows and times from a second process). Modes (argv[2]):
 *
 * - redis-bare: the baseline on Redis Streams: XADD N envelopes (pipelines of 200, as the relay
 *   sends them) while one consumer loop XREADGROUPs (COUNT 100) and XACKs each batch with one call.
 * - redis-pipeline / kafka-pipeline: our pipeline (packages/events): the outbox relay of a
 *   producing service publishes the committed rows, a consuming service's ServiceEvents handles
 *   each event once (its handled-id row, in the transaction a handler's effect would share; the
 *   handler here has no effect of its own) and acknowledges it. On {type:'commit', n} it also
 *   commits n events itself, each in its own transaction through ServiceEvents.inTransaction (as a
 *   use case in the service does: the relay is woken at the commit), and {type:'times'} answers
 *   when each was committed (by event id).
 * - redis-floor: the same durable work per event as redis-pipeline without our code (no drizzle,
 *   no envelope validation, no tracing, no advisory lock, no leases): a relay loop on its own
 *   connection reads up to 500 unpublished outbox rows in seq order (the envelope as PostgreSQL's
 *   text), XADDs them (one pipeline, MAXLEN ~ as ours, the same 4 partitions by subject) and marks
 *   them published in one UPDATE; a consumer loop on another connection XREADGROUPs the 4 streams
 *   (COUNT 100, BLOCK 500), parses each envelope for its id and type, inserts the handled ids of
 *   the read in one transaction (unnest, ON CONFLICT DO NOTHING), and XACKs each stream's entries
 *   with one call: the batch sizes and transactions of ours.
 * - kafka-bare: the baseline on Kafka: a kafkajs producer sends N messages (batches of 200, acks
 *   all) to a topic a kafkajs consumer (autoCommit) reads.
 *
 * Env: N, REDIS_URL, PREFIX, DATABASE_URL (pipeline), KAFKA_BROKERS (kafka-*). Messages to the
 * parent: {type:'started'} when it begins, {type:'done', ms} (bare modes: when the N-th is acknowledged).
 */
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Redis } from 'ioredis';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { pgSchema } from 'drizzle-orm/pg-core';
import { openDatabase } from '@htm/service-kit';
import {
  createEvent,
  handledEventsTable,
  KafkaBus,
  outboxTable,
  partitionOf,
  RedisStreamsBus,
  ServiceEvents,
  type EventBus,
} from '@htm/events';

const mode = process.argv[2];
const N = Number(process.env.N);
const prefix = process.env.PREFIX!;
const send = (m: object) => process.send!(m);
const sample = () =>
  JSON.stringify(
    createEvent('LeadReceived', `lead-${Math.random()}`, {
      leadId: 'lead-x',
      email: 'lead@gmail.com',
    }),
  );

/** XREADGROUP of group g, consumer c: up to 100 new entries of each stream, waiting up to 500 ms. */
const readGroup = async (r: Redis, streams: string[]) =>
  (await r.xreadgroup(
    'GROUP',
    'g',
    'c',
    'COUNT',
    100,
    'BLOCK',
    500,
    'STREAMS',
    ...streams,
    ...streams.map(() => '>'),
  )) as Array<[string, Array<[string, string[]]>]> | null;

async function redisBare(): Promise<void> {
  const key = `${prefix}bare`;
  const pub = new Redis(process.env.REDIS_URL!);
  const sub = new Redis(process.env.REDIS_URL!);
  await sub.xgroup('CREATE', key, 'g', '$', 'MKSTREAM');
  const payloads = Array.from({ length: N }, sample);
  send({ type: 'started' });
  const t0 = performance.now();
  const producing = (async () => {
    for (let i = 0; i < N; i += 200) {
      const p = pub.pipeline();
      for (const e of payloads.slice(i, i + 200)) p.xadd(key, '*', 'e', e);
      await p.exec();
    }
  })();
  let acked = 0;
  while (acked < N) {
    const res = await readGroup(sub, [key]);
    const entries = res?.[0]?.[1] ?? [];
    if (!entries.length) continue;
    for (const [, f] of entries) JSON.parse(f[1]);
    await sub.xack(key, 'g', ...entries.map(([id]) => id));
    acked += entries.length;
  }
  const ms = performance.now() - t0;
  await producing;
  send({ type: 'done', ms });
  await pub.del(key);
  pub.disconnect();
  sub.disconnect();
}

async function kafkaBare(): Promise<void> {
  const kafka = new Kafka({
    clientId: 'bench-bare',
    brokers: process.env.KAFKA_BROKERS!.split(','),
    logLevel: logLevel.NOTHING,
  });
  const topic = `${prefix.replace(/[^A-Za-z0-9._-]/g, '.')}bare`;
  // The mock has no CreateTopics: a first message creates the topic (the consumer skips it).
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: true,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: [{ key: 'warm-up', value: '{}' }] });
  const consumer = kafka.consumer({
    groupId: `${topic}.g`,
    ...(process.env.KAFKA_MAX_WAIT_MS && {
      maxWaitTimeInMs: Number(process.env.KAFKA_MAX_WAIT_MS),
    }),
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  let got = 0;
  let t0 = 0;
  const done = new Promise<number>((resolve) => {
    void consumer.run({
      autoCommit: true,
      eachMessage: async ({ message }) => {
        if (message.key?.toString() === 'warm-up') return;
        JSON.parse(message.value!.toString());
        if (++got === N) resolve(performance.now() - t0);
      },
    });
  });
  await new Promise((r) => setTimeout(r, 3000)); // the group's first join
  const payloads = Array.from({ length: N }, (_, i) => ({ key: `lead-${i}`, value: sample() }));
  send({ type: 'started' });
  t0 = performance.now();
  for (let i = 0; i < N; i += 200)
    await producer.sendBatch({
      acks: -1,
      topicMessages: [{ topic, messages: payloads.slice(i, i + 200) }],
    });
  send({ type: 'done', ms: await done });
  await consumer.disconnect();
  await producer.disconnect();
}

async function pipeline(kind: 'redis' | 'kafka'): Promise<void> {
  const a = pgSchema('bench_a');
  const b = pgSchema('bench_b');
  const h = await openDatabase({
    schema: 'none',
    migrationsFolder: fileURLToPath(
      new URL('../packages/events/test/fixtures/empty-migrations', import.meta.url),
    ),
    databaseUrl: process.env.DATABASE_URL!,
  });
  const mkBus = (): EventBus =>
    kind === 'redis'
      ? new RedisStreamsBus({ url: process.env.REDIS_URL!, prefix })
      : new KafkaBus({
          brokers: process.env.KAFKA_BROKERS!.split(','),
          prefix: prefix.replace(/[^A-Za-z0-9._-]/g, '.'),
          clientId: 'bench',
          consumer: process.env.KAFKA_MAX_WAIT_MS
            ? { maxWaitTimeInMs: Number(process.env.KAFKA_MAX_WAIT_MS) }
            : {},
        });
  const pubBus = mkBus();
  const subBus = mkBus();
  const producer = new ServiceEvents({
    service: 'admin',
    db: h.db,
    outbox: outboxTable(a),
    handled: handledEventsTable(a),
    bus: pubBus,
  });
  const consumer = new ServiceEvents({
    service: 'notifications',
    db: h.db,
    outbox: outboxTable(b),
    handled: handledEventsTable(b),
    bus: subBus,
    handlers: { LeadReceived: async () => undefined },
  });
  await consumer.start({ relay: false });
  send({ type: 'started' });
  await producer.start({ consumers: false });
  const committed: Record<string, number> = {};
  let seq = 0;
  process.on('message', async (m: { type: string; n?: number }) => {
    if (m.type === 'commit') {
      for (let k = 0; k < (m.n ?? 1); k++) {
        const i = seq++;
        const e = createEvent('LeadReceived', `lat-${i}`, {
          leadId: `lat-${i}`,
          email: 'lead@gmail.com',
        });
        void producer
          .inTransaction((tx) => producer.record(tx, e))
          .then(() => (committed[e.id] = performance.timeOrigin + performance.now()))
          .catch(() => undefined);
      }
      return;
    }
    if (m.type === 'times') return void send({ type: 'times', committed });
    if (m.type !== 'stop') return;
    await producer.stop();
    await consumer.stop();
    await pubBus.close();
    await subBus.close();
    await h.close();
    process.exit(0);
  });
}

/** redis-floor (see the top): runs until the parent sends {type:'stop'}. */
async function redisFloor(): Promise<void> {
  const streams = Array.from({ length: 4 }, (_, p) => `${prefix}floor:${p}`);
  const redisPub = new Redis(process.env.REDIS_URL!);
  const redisSub = new Redis(process.env.REDIS_URL!);
  for (const s of streams) await redisSub.xgroup('CREATE', s, 'g', '0', 'MKSTREAM');
  // jsonb as PostgreSQL's text: the envelope goes to Redis as it is stored, never parsed here.
  const types = {
    getTypeParser: (oid: number, format?: string) =>
      oid === 3802 ? (v: string) => v : pg.types.getTypeParser(oid, format as never),
  };
  const relayDb = new pg.Client({ connectionString: process.env.DATABASE_URL!, types });
  const consumerDb = new pg.Client({ connectionString: process.env.DATABASE_URL!, types });
  await relayDb.connect();
  await consumerDb.connect();
  let running = true;
  const relay = async () => {
    while (running) {
      const { rows } = await relayDb.query<{ seq: string; subject: string; envelope: string }>(
        'SELECT seq, subject, envelope FROM bench_a.outbox WHERE published_at IS NULL ORDER BY seq LIMIT 500',
      );
      if (!rows.length) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      const p = redisPub.pipeline();
      for (const r of rows)
        p.xadd(streams[partitionOf(r.subject, 4)], 'MAXLEN', '~', '1000000', '*', 'e', r.envelope);
      await p.exec();
      await relayDb.query(
        'UPDATE bench_a.outbox SET published_at = now() WHERE seq = ANY($1::bigint[])',
        [rows.map((r) => r.seq)],
      );
    }
  };
  const consume = async () => {
    while (running) {
      const res = await readGroup(redisSub, streams);
      if (!res) continue;
      const ids: string[] = [];
      const kinds: string[] = [];
      for (const [, entries] of res)
        for (const [, f] of entries) {
          const e = JSON.parse(f[1]) as { id: string; type: string };
          ids.push(e.id);
          kinds.push(e.type);
        }
      await consumerDb.query('BEGIN');
      await consumerDb.query(
        'INSERT INTO bench_b.handled_events (event_id, type) SELECT * FROM unnest($1::uuid[], $2::text[]) ON CONFLICT DO NOTHING RETURNING event_id',
        [ids, kinds],
      );
      await consumerDb.query('COMMIT');
      for (const [stream, entries] of res)
        await redisSub.xack(stream, 'g', ...entries.map(([id]) => id));
    }
  };
  send({ type: 'started' });
  const loops = Promise.all([relay(), consume()]);
  process.on('message', async (m: { type: string }) => {
    if (m.type !== 'stop') return;
    running = false;
    await loops;
    await redisPub.del(...streams);
    redisPub.disconnect();
    redisSub.disconnect();
    await relayDb.end();
    await consumerDb.end();
    process.exit(0);
  });
}

if (mode === 'redis-bare') await redisBare().then(() => process.exit(0));
else if (mode === 'redis-floor') await redisFloor();
else if (mode === 'kafka-bare') await kafkaBare().then(() => process.exit(0));
else if (mode === 'redis-pipeline') await pipeline('redis');
else if (mode === 'kafka-pipeline') await pipeline('kafka');
else throw new Error(`unknown mode ${mode}`);
