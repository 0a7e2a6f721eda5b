/**
 * Operator CLI for the event bus (whichever EVENT_BUS the environment names: Redis Streams or
 * Kafka). Reads the same environment as the services: EVENT_BUS, REDIS_URL, REDIS_PREFIX,
 * KAFKA_BROKERS.
 *
 *   npm run events -- tail <source> [--from-start] [--count N]   print events as they arrive
 *   npm run events -- dead-letters <group> [--limit N] [--json]  list a consumer group's dead letters
 *   npm run events -- replay <group> [ids...]                     put dead letters back on their streams
 *   npm run events -- republish --since <ISO time> [--service S]  publish again every outbox event since then
 *
 * <source>: identity | jobs | payments | admin. <group>: the consuming service's name.
 * Redis only: --partitions N (default 4) must match the services' stream partitions.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { Redis } from 'ioredis';
import {
  createEventBus,
  EVENT_SOURCES,
  KafkaBus,
  RedisStreamsBus,
  type EventBus,
  type EventSource,
} from '@htm/events';
import { eventBusConfigSchema } from '@htm/service-kit';

export const USAGE = `usage:
  npm run events -- tail <source> [--from-start] [--count N]
  npm run events -- dead-letters <group> [--limit N] [--json]
  npm run events -- replay <group> [ids...]
  npm run events -- republish --since <ISO time> [--service <source>]   (needs DATABASE_URL)
sources: ${EVENT_SOURCES.join(', ')}
environment: EVENT_BUS (redis|kafka), REDIS_URL, REDIS_PREFIX, KAFKA_BROKERS
redis option: --partitions N (default 4, as the services)`;

export interface CliIo {
  env?: Record<string, string | undefined>;
  out?: (line: string) => void;
  err?: (line: string) => void;
  /** Stops `tail` (Ctrl-C in the terminal). */
  signal?: AbortSignal;
}

interface Parsed {
  cmd?: string;
  args: string[];
  flags: Record<string, string | true>;
}

function parse(argv: string[]): Parsed {
  const p: Parsed = { args: [], flags: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const [k, v] = a.slice(2).split('=', 2);
      if (v !== undefined) p.flags[k] = v;
      else if (
        ['count', 'limit', 'partitions', 'since', 'service'].includes(k) &&
        argv[i + 1] !== undefined
      )
        p.flags[k] = argv[++i];
      else p.flags[k] = true;
    } else if (!p.cmd) p.cmd = a;
    else p.args.push(a);
  }
  return p;
}

function intFlag(p: Parsed, name: string, def: number): number {
  const v = p.flags[name];
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer`);
  return n;
}

class UsageError extends Error {}

/** The bus settings, parsed with the services' own EVENT_BUS union (kafka needs KAFKA_BROKERS). */
function busConfig(env: Record<string, string | undefined>) {
  const bus = eventBusConfigSchema.safeParse(env);
  if (!bus.success)
    throw new UsageError(
      bus.error.issues.map((i) => `${i.path.join('.') || 'EVENT_BUS'}: ${i.message}`).join('; '),
    );
  return {
    ...bus.data,
    REDIS_URL: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: env.REDIS_PREFIX ?? 'htm:',
  };
}

/** Runs one command; resolves to the process exit code. */
export async function runCli(argv: string[], io: CliIo = {}): Promise<number> {
  const env = io.env ?? process.env;
  const out = io.out ?? ((l: string) => process.stdout.write(`${l}\n`));
  const err = io.err ?? ((l: string) => process.stderr.write(`${l}\n`));
  const p = parse(argv);
  let bus: EventBus | undefined;
  try {
    if (!p.cmd) {
      err(USAGE);
      return 2;
    }
    if (p.cmd === 'help' || p.flags.help) {
      out(USAGE);
      return 0;
    }
    const cfg = busConfig(env);
    const partitions = intFlag(p, 'partitions', 4);
    switch (p.cmd) {
      case 'tail': {
        const source = p.args[0] as EventSource | undefined;
        if (!source || !EVENT_SOURCES.includes(source))
          throw new UsageError(`tail needs a source: ${EVENT_SOURCES.join(', ')}`);
        const count = p.flags.count === undefined ? Infinity : intFlag(p, 'count', 1);
        const fromStart = p.flags['from-start'] === true;
        if (cfg.EVENT_BUS === 'redis')
          await tailRedis(cfg, source, { partitions, count, fromStart, out, signal: io.signal });
        else await tailKafka(cfg, source, { count, fromStart, out, signal: io.signal });
        return 0;
      }
      case 'dead-letters': {
        const group = p.args[0];
        if (!group)
          throw new UsageError(
            'dead-letters needs a consumer group (the consuming service, e.g. jobs)',
          );
        bus = createEventBus(cfg, undefined, { clientId: 'events-cli', partitions });
        const letters = await bus.deadLetters(group, intFlag(p, 'limit', 100));
        if (p.flags.json) {
          for (const l of letters) out(JSON.stringify(l));
        } else if (!letters.length) {
          out(`no dead letters for group ${group}`);
        } else {
          for (const l of letters) {
            const e = (l.event ?? {}) as { id?: string; type?: string; subject?: string };
            out(
              `${l.id}\t${l.failedAt}\tattempts=${l.attempts}\t${e.type ?? '?'}\tsubject=${e.subject ?? '?'}\tevent=${e.id ?? '?'}\terror=${l.error}`,
            );
          }
          out(
            `${letters.length} dead letter(s) for group ${group}; replay with: npm run events -- replay ${group} [ids...]`,
          );
        }
        return 0;
      }
      case 'replay': {
        const [group, ...ids] = p.args;
        if (!group)
          throw new UsageError('replay needs a consumer group (the consuming service, e.g. jobs)');
        bus = createEventBus(cfg, undefined, { clientId: 'events-cli', partitions });
        const n = await bus.replayDeadLetters(group, ids.length ? ids : undefined);
        out(`replayed ${n} dead letter(s) of group ${group}`);
        if (ids.length && n < ids.length)
          err(`${ids.length - n} id(s) were not found in the dead letters of ${group}`);
        if (bus.kind === 'kafka')
          err(
            'kafka: dead-letter topics are append-only; replayed letters stay listed (consumers are idempotent by event id)',
          );
        return ids.length && n < ids.length ? 1 : 0;
      }
      case 'republish': {
        const since = typeof p.flags.since === 'string' ? new Date(p.flags.since) : undefined;
        if (!since || Number.isNaN(since.getTime()))
          throw new UsageError(
            'republish needs --since <ISO time>, e.g. --since 2026-11-26T03:00:00Z',
          );
        const service = p.flags.service;
        if (
          service !== undefined &&
          (typeof service !== 'string' || !EVENT_SOURCES.includes(service as EventSource))
        )
          throw new UsageError(`--service must be one of: ${EVENT_SOURCES.join(', ')}`);
        const databaseUrl = env.DATABASE_URL;
        if (!databaseUrl)
          throw new UsageError("republish needs DATABASE_URL (the services' Postgres)");
        const counts = await republishSince(
          databaseUrl,
          since,
          service ? [service as EventSource] : [...EVENT_SOURCES],
        );
        for (const [source, n] of counts)
          out(
            `${source}: ${n === undefined ? 'no outbox here' : `${n} event(s) marked to publish again`}`,
          );
        out(
          `the services' outbox relays publish them again in order; consumers skip the events they already handled`,
        );
        return 0;
      }
      default:
        throw new UsageError(`unknown command: ${p.cmd}`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      err(e.message);
      err(USAGE);
      return 2;
    }
    err(`error: ${(e as Error).message}`);
    return 1;
  } finally {
    await bus?.close().catch(() => undefined);
  }
}

interface TailOpts {
  count: number;
  fromStart: boolean;
  out: (line: string) => void;
  signal?: AbortSignal;
}

/** XREAD (no consumer group: reading does not disturb the services) across the source's partitions. */
async function tailRedis(
  cfg: ReturnType<typeof busConfig>,
  source: EventSource,
  o: TailOpts & { partitions: number },
): Promise<void> {
  const naming = new RedisStreamsBus({
    url: cfg.REDIS_URL,
    prefix: cfg.REDIS_PREFIX,
    partitions: o.partitions,
  });
  await naming.close();
  const streams = naming.streamsOf([source]);
  const redis = new Redis(cfg.REDIS_URL, {
    maxRetriesPerRequest: 2,
    connectTimeout: 3000,
    connectionName: `events-cli-tail-${process.pid}`,
  });
  const stop = () => redis.disconnect();
  o.signal?.addEventListener('abort', stop, { once: true });
  try {
    // Start after the newest entry of each stream (or at the beginning): fixed ids, so nothing
    // published between two reads is missed.
    const last = new Map<string, string>();
    for (const s of streams) {
      const top = o.fromStart
        ? []
        : ((await redis.xrevrange(s, '+', '-', 'COUNT', 1)) as Array<[string, string[]]>);
      last.set(s, top[0]?.[0] ?? '0-0');
    }
    let seen = 0;
    while (seen < o.count && !o.signal?.aborted) {
      let res: Array<[string, Array<[string, string[]]>]> | null;
      try {
        res = (await redis.xread(
          'COUNT',
          100,
          'BLOCK',
          1000,
          'STREAMS',
          ...streams,
          ...streams.map((s) => last.get(s)!),
        )) as typeof res;
      } catch (e) {
        if (o.signal?.aborted) return;
        throw e;
      }
      for (const [stream, entries] of res ?? []) {
        for (const [id, fields] of entries) {
          last.set(stream, id);
          const i = fields.indexOf('e');
          o.out(i >= 0 ? fields[i + 1] : JSON.stringify({ stream, id, fields }));
          if (++seen >= o.count) return;
        }
      }
    }
  } finally {
    o.signal?.removeEventListener('abort', stop);
    redis.disconnect();
  }
}

/** A throw-away consumer group (no offsets committed) on the source's topic. */
async function tailKafka(
  cfg: ReturnType<typeof busConfig>,
  source: EventSource,
  o: TailOpts,
): Promise<void> {
  if (!cfg.KAFKA_BROKERS) throw new UsageError('KAFKA_BROKERS must be set when EVENT_BUS=kafka');
  const naming = new KafkaBus({ brokers: cfg.KAFKA_BROKERS.split(','), prefix: cfg.REDIS_PREFIX });
  const kafka = new Kafka({
    clientId: 'events-cli',
    brokers: cfg.KAFKA_BROKERS.split(',').map((b) => b.trim()),
    logLevel: logLevel.WARN,
  });
  const consumer = kafka.consumer({ groupId: `events-cli-tail-${process.pid}-${Date.now()}` });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [naming.topic(source)], fromBeginning: o.fromStart });
    let seen = 0;
    await new Promise<void>((resolve, reject) => {
      o.signal?.addEventListener('abort', () => resolve(), { once: true });
      consumer
        .run({
          autoCommit: false,
          eachMessage: async ({ message }) => {
            if (seen >= o.count) return;
            o.out(message.value?.toString() ?? '');
            if (++seen >= o.count) resolve();
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ac = new AbortController();
  process.once('SIGINT', () => ac.abort());
  process.once('SIGTERM', () => ac.abort());
  const code = await runCli(process.argv.slice(2), { signal: ac.signal });
  process.exit(code);
}

/**
 * Marks every outbox row published since `since` as unpublished, in each source's schema: the
 * running relays publish them again, in order (consumers are idempotent by event id). Rows the
 * relay already deleted (older than its retention) cannot come back. Returns the rows per source
 * (undefined: that schema has no outbox in this database).
 */
export async function republishSince(
  databaseUrl: string,
  since: Date,
  sources: readonly EventSource[],
): Promise<Array<[EventSource, number | undefined]>> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const out: Array<[EventSource, number | undefined]> = [];
    for (const source of sources) {
      const exists = await client.query(`SELECT to_regclass($1) IS NOT NULL AS ok`, [
        `"${source}".outbox`,
      ]);
      if (!exists.rows[0]?.ok) {
        out.push([source, undefined]);
        continue;
      }
      const r = await client.query(
        `UPDATE "${source}".outbox SET published_at = NULL WHERE published_at >= $1`,
        [since],
      );
      out.push([source, r.rowCount ?? 0]);
    }
    return out;
  } finally {
    await client.end();
  }
}
