import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { EVENT_SOURCES, type EventSource } from './catalogue.js';
import { acceptEnvelope, RejectedEventError, type EventEnvelope } from './envelope.js';
import { runWithRetry, type RetryPolicy } from './retry.js';
import {
  partitionOf,
  type DeadLetter,
  type EventBus,
  type StreamHistory,
  type SubscribeOptions,
  type Subscription,
} from './bus.js';

export interface RedisStreamsOptions {
  url: string;
  /** Prefix of every key (tests use a unique one). */
  prefix?: string;
  /** Streams per source; a subject always maps to the same one, which keeps its order. */
  partitions?: number;
  logger?: Logger;
  /** XREADGROUP block time. */
  blockMs?: number;
  /** How long a consumer owns a partition without renewing (a dead consumer's partitions move after this). */
  leaseMs?: number;
  /** First retry delay; doubles each attempt. */
  retryBackoffMs?: number;
  /** How long transient handler errors are retried, and how far apart (see retry.ts). */
  retry?: RetryPolicy;
  /** Approximate cap of entries kept per stream. */
  maxLen?: number;
}

// Acquire or renew a lease: 1 = renewed, 2 = newly acquired, 0 = held by someone else.
const LEASE_LUA = `
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 2 end
return 0`;
const RELEASE_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Entry = [id: string, fields: string[] | null];

export class RedisStreamsBus implements EventBus {
  readonly kind = 'redis' as const;
  readonly prefix: string;
  readonly partitions: number;
  private readonly pub: Redis;
  private readonly consumers = new Set<StreamConsumer>();

  constructor(readonly opts: RedisStreamsOptions) {
    this.prefix = opts.prefix ?? 'htm:';
    this.partitions = opts.partitions ?? 4;
    this.pub = new Redis(opts.url, { maxRetriesPerRequest: 2, connectTimeout: 3000 });
    this.pub.on('error', (err) =>
      opts.logger?.warn({ err: err.message }, 'redis (event bus) error'),
    );
  }

  streamKey(source: EventSource, partition: number): string {
    return `${this.prefix}events:${source}:${partition}`;
  }
  streamsOf(sources: readonly EventSource[]): string[] {
    return sources.flatMap((s) =>
      Array.from({ length: this.partitions }, (_, p) => this.streamKey(s, p)),
    );
  }
  dlqKey(group: string): string {
    return `${this.prefix}events:dlq:${group}`;
  }
  /** Written beside a source's streams; gone after a wipe or a restart without data. */
  historyKey(source: EventSource): string {
    return `${this.prefix}events:${source}:history`;
  }
  /** The source whose stream this key is (`<prefix>events:<source>:<partition>`), if any. */
  sourceOfStream(stream: string): string | undefined {
    const m = /^events:([^:]+):\d+$/.exec(stream.slice(this.prefix.length));
    return stream.startsWith(this.prefix) ? m?.[1] : undefined;
  }
  /** A request that the group's consumers apply its dead letters again (see requestReplay). */
  replayRequestKey(group: string): string {
    return `${this.prefix}dlq-replay:${group}`;
  }
  leaseKey(group: string, stream: string): string {
    return `${this.prefix}lease:${group}:${stream.slice(this.prefix.length)}`;
  }

  async publish(events: readonly EventEnvelope[]): Promise<void> {
    if (!events.length) return;
    const pipe = this.pub.pipeline();
    for (const e of events) {
      pipe.xadd(
        this.streamKey(e.source, partitionOf(e.subject, this.partitions)),
        'MAXLEN',
        '~',
        String(this.opts.maxLen ?? 1_000_000),
        '*',
        'e',
        JSON.stringify(e),
      );
    }
    const results = (await pipe.exec()) ?? [];
    const failed = results.find(([err]) => err);
    if (failed) throw failed[0];
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    const c = new StreamConsumer(this, opts);
    this.consumers.add(c);
    await c.start();
    return {
      stop: async () => {
        await c.stop();
        this.consumers.delete(c);
      },
      // Test hook: die like a crashed process (no ack, no lease release).
      kill: async () => {
        c.kill();
        this.consumers.delete(c);
      },
    } as Subscription;
  }

  async deadLetters(group: string, limit = 100): Promise<Array<DeadLetter & { id: string }>> {
    const rows = (await this.pub.xrange(this.dlqKey(group), '-', '+', 'COUNT', limit)) as Entry[];
    return rows.map(([id, fields]) => {
      const f = toMap(fields ?? []);
      return {
        id,
        group,
        error: f.error ?? '',
        ...(f.reason && { reason: f.reason as DeadLetter['reason'] }),
        attempts: Number(f.attempts ?? 0),
        failedAt: f.failedAt ?? '',
        event: safeJson(f.event ?? 'null'),
      };
    });
  }

  async replayDeadLetters(group: string, ids?: string[]): Promise<number> {
    const letters = await this.deadLetters(group, 10_000);
    let n = 0;
    for (const l of letters) {
      if (ids && !ids.includes(l.id)) continue;
      const e = l.event as Partial<EventEnvelope> | null;
      if (!e || typeof e.subject !== 'string' || !EVENT_SOURCES.includes(e.source as EventSource))
        continue;
      await this.pub.xadd(
        this.streamKey(e.source as EventSource, partitionOf(e.subject, this.partitions)),
        '*',
        'e',
        JSON.stringify(e),
      );
      await this.pub.xdel(this.dlqKey(group), l.id);
      n++;
    }
    return n;
  }

  /**
   * The admin's Replay: asks the group's own consumers (whichever replica looks first, within
   * about a second) to run every letter through their handler again and remove those applied. It
   * writes only a plain key, so it works with per-service Redis users, which may not write another
   * service's streams (replayDeadLetters, by contrast, writes the source stream: the `ops` user's
   * CLI). A group with no consumer running keeps the request (24 h) and its letters.
   */
  async requestReplay(group: string): Promise<number> {
    const letters = await this.deadLetters(group, 10_000);
    const n = letters.filter((l) => !l.reason && l.event && typeof l.event === 'object').length;
    if (n > 0)
      await this.pub.set(this.replayRequestKey(group), new Date().toISOString(), 'EX', 86_400);
    return n;
  }

  /**
   * The marker, the entries, and how far every group reading the source's streams has
   * confirmed: a group with pending entries up to (not including) its oldest pending one, else up
   * to its last delivered id (stream ids are Redis times in ms). A stream without groups, or a
   * group that never read (last delivered id 0-0), counts as confirmed up to just before the
   * stream's first entry, and an empty one up to now: it owes nothing it was created before (it
   * was created on this stream, and what is added from now on shows as entries at the next look),
   * never from the epoch, which would republish the whole outbox window after a Redis loss.
   */
  async streamHistory(source: EventSource): Promise<StreamHistory> {
    // Taken before any stream is read: an entry added while this looks is after it.
    const lookedAt = Date.now();
    const marked = (await this.pub.exists(this.historyKey(source))) === 1;
    const idTime = (id: string) => Number(String(id).split('-')[0]);
    let entries = 0;
    let confirmed: number | null = null;
    const lower = (t: number) => (confirmed = confirmed === null ? t : Math.min(confirmed, t));
    for (const s of this.streamsOf([source])) {
      const len = await this.pub.xlen(s);
      entries += len;
      let groups: unknown[][] = [];
      try {
        groups = (await this.pub.xinfo('GROUPS', s)) as unknown[][];
      } catch {
        /* no stream yet */
      }
      /** Just before the stream's first entry; when this look began, for an empty one. */
      const beforeFirst = async () => {
        const first = len > 0 ? ((await this.pub.xrange(s, '-', '+', 'COUNT', 1)) as Entry[]) : [];
        return first[0] ? idTime(first[0][0]) - 1 : lookedAt;
      };
      for (const g of groups) {
        const m = toMap(g as string[]);
        const lastDelivered = m['last-delivered-id'] ?? '0-0';
        if (Number(m.pending ?? 0) > 0) {
          const summary = (await this.pub.xpending(s, m.name)) as [
            number,
            string | null,
            string | null,
            unknown,
          ];
          lower(summary[1] ? idTime(summary[1]) - 1 : 0);
        } else if (lastDelivered === '0-0') lower(await beforeFirst());
        else lower(idTime(lastDelivered));
      }
      if (!groups.length && len > 0) lower(await beforeFirst());
    }
    return { marked, entries, confirmedThrough: confirmed === null ? null : new Date(confirmed) };
  }

  async markHistory(source: EventSource): Promise<void> {
    await this.pub.set(this.historyKey(source), new Date().toISOString());
  }

  /** Events in a group's dead letter (the alerting metric: anything above 0 needs a hand). */
  async deadLetterCount(group: string): Promise<number> {
    return this.pub.xlen(this.dlqKey(group));
  }

  /** Pending (unacknowledged) plus not-yet-read entries of a group (every entry while the group does not exist yet). */
  async lag(group: string, sources: readonly EventSource[]): Promise<number> {
    let total = 0;
    for (const s of this.streamsOf(sources)) {
      try {
        const groups = (await this.pub.xinfo('GROUPS', s)) as unknown[][];
        const mine = groups.map((g) => toMap(g as string[])).find((m) => m.name === group);
        total += mine ? Number(mine.lag ?? 0) + Number(mine.pending ?? 0) : await this.pub.xlen(s);
      } catch {
        /* stream not created yet */
      }
    }
    return total;
  }

  async readAll(
    sources: readonly EventSource[],
    handler: (event: EventEnvelope) => Promise<void>,
  ): Promise<{ events: number; skipped: number }> {
    let events = 0;
    let skipped = 0;
    for (const stream of this.streamsOf(sources)) {
      // The end as of now: entries appended later are the consumer group's business.
      const last = (await this.pub.xrevrange(stream, '+', '-', 'COUNT', 1)) as Entry[];
      const end = last[0]?.[0];
      if (!end) continue;
      let start = '-';
      for (;;) {
        const page = (await this.pub.xrange(stream, start, end, 'COUNT', 500)) as Entry[];
        if (!page.length) break;
        for (const [, fields] of page) {
          const raw = fields ? toMap(fields).e : undefined;
          let event: EventEnvelope | undefined;
          try {
            // Forged or misrouted events are left out of a replay as the consumers refuse them.
            event =
              raw === undefined ? undefined : acceptEnvelope(raw, this.sourceOfStream(stream));
          } catch {
            event = undefined;
          }
          if (!event) {
            skipped++;
            continue;
          }
          await handler(event);
          events++;
        }
        const lastId = page[page.length - 1][0];
        if (lastId === end) break;
        start = `(${lastId}`;
      }
    }
    return { events, skipped };
  }

  get redis(): Redis {
    return this.pub;
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.stop()));
    this.consumers.clear();
    this.pub.disconnect();
  }
}

class StreamConsumer {
  private readonly redis: Redis;
  private readonly name: string;
  private readonly owned = new Set<string>();
  private readonly streams: string[];
  private running = true;
  private loop?: Promise<void>;
  private lastRenew = 0;
  private lastReplayCheck = 0;
  private readonly log?: Logger;

  constructor(
    private readonly bus: RedisStreamsBus,
    private readonly opts: SubscribeOptions,
  ) {
    this.name = opts.consumerName ?? `${opts.group}-${randomUUID().slice(0, 8)}`;
    this.streams = bus.streamsOf(opts.sources);
    this.log = bus.opts.logger?.child({ consumer: this.name, group: opts.group });
    this.redis = new Redis(bus.opts.url, { maxRetriesPerRequest: null, connectTimeout: 3000 });
    this.redis.on('error', (err) => this.log?.warn({ err: err.message }, 'redis (consumer) error'));
  }

  private get leaseMs() {
    return this.bus.opts.leaseMs ?? 10_000;
  }
  private get maxAttempts() {
    return this.opts.maxAttempts ?? 5;
  }

  async start(): Promise<void> {
    await this.ensureGroups();
    this.loop = this.run();
  }

  /** Creates the consumer group on every stream (from the start of the stream) where it is missing. */
  private async ensureGroups(): Promise<void> {
    for (const s of this.streams) {
      try {
        await this.redis.xgroup('CREATE', s, this.opts.group, '0', 'MKSTREAM');
      } catch (err) {
        if (!String((err as Error).message).includes('BUSYGROUP')) throw err;
      }
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.renewLeases();
        await this.replayIfAsked();
        if (!this.owned.size) {
          await sleep(Math.min(this.leaseMs / 3, 1000));
          continue;
        }
        const streams = [...this.owned];
        const res = (await this.redis.xreadgroup(
          'GROUP',
          this.opts.group,
          this.name,
          'COUNT',
          100,
          'BLOCK',
          this.bus.opts.blockMs ?? 500,
          'STREAMS',
          ...streams,
          ...streams.map(() => '>'),
        )) as Array<[string, Entry[]]> | null;
        if (res) await this.processRead(res);
      } catch (err) {
        if (!this.running) break;
        this.log?.warn({ err: (err as Error).message }, 'event consumer loop error; retrying');
        // Redis came back without its data (restart with no persistence, failover to an empty
        // replica): the streams and groups are gone. Recreate the groups from the start of each
        // stream, or events the relays publish from now on would never be read.
        if (String((err as Error).message).includes('NOGROUP'))
          await this.ensureGroups().catch(() => undefined);
        await sleep(500);
      }
    }
  }

  private async renewLeases(force = false): Promise<void> {
    const now = Date.now();
    if (!force && now - this.lastRenew < this.leaseMs / 3) return;
    this.lastRenew = now;
    for (const s of this.streams) {
      const r = Number(
        await this.redis.eval(
          LEASE_LUA,
          1,
          this.bus.leaseKey(this.opts.group, s),
          this.name,
          String(this.leaseMs),
        ),
      );
      if (r === 0) this.owned.delete(s);
      else if (!this.owned.has(s)) {
        this.owned.add(s);
        await this.recoverPending(s);
      }
    }
  }

  /** A newly owned partition: take over every unacknowledged entry (its last owner died) and finish them in order. */
  private async recoverPending(stream: string): Promise<void> {
    let cursor = '0-0';
    do {
      const r = (await this.redis.xautoclaim(
        stream,
        this.opts.group,
        this.name,
        0,
        cursor,
        'COUNT',
        100,
      )) as [string, Entry[]];
      cursor = r[0];
    } while (cursor !== '0-0' && this.running);
    let after = '0';
    while (this.running) {
      const res = (await this.redis.xreadgroup(
        'GROUP',
        this.opts.group,
        this.name,
        'COUNT',
        100,
        'STREAMS',
        stream,
        after,
      )) as Array<[string, Entry[]]> | null;
      const entries = res?.[0]?.[1] ?? [];
      if (!entries.length) break;
      for (const [id, fields] of entries) {
        const pending = (await this.redis.xpending(stream, this.opts.group, id, id, 1)) as Array<
          [string, string, number, number]
        >;
        const deliveries = Number(pending[0]?.[3] ?? 1);
        await this.process(stream, id, fields, deliveries);
        after = id;
        if (!this.running) return;
      }
    }
  }

  /** The leading run of valid envelopes of a stream's entries (the batch handler's part). */
  private leadingRun(
    stream: string,
    entries: Entry[],
  ): Array<{ id: string; event: EventEnvelope }> {
    const run: Array<{ id: string; event: EventEnvelope }> = [];
    for (const [id, fields] of entries) {
      const raw = fields ? toMap(fields).e : undefined;
      if (raw === undefined) break;
      try {
        run.push({ id, event: acceptEnvelope(raw, this.bus.sourceOfStream(stream)) });
      } catch {
        break; // refused: the one-by-one path dead-letters it
      }
    }
    return run;
  }

  /**
   * One read (entries of several streams): the leading runs of every stream go to the batch
   * handler together (one transaction for the read, not one per stream; each stream's order is
   * kept, streams are independent), each stream's handled part is acknowledged with one command,
   * and what is left of each stream goes on stream by stream.
   */
  private async processRead(res: Array<[string, Entry[]]>): Promise<void> {
    const handled = new Map<string, number>();
    if (this.opts.batchHandler && res.length > 1) {
      const runs = res
        .filter(([stream]) => this.owned.has(stream))
        .map(([stream, entries]) => ({ stream, run: this.leadingRun(stream, entries) }));
      const all = runs.flatMap((r) => r.run.map((x) => x.event));
      if (all.length > 1 && this.running) {
        let done = await this.runBatch(all, 'stream by stream');
        for (const { stream, run } of runs) {
          const k = Math.min(done, run.length);
          done -= k;
          if (k)
            await this.ackAll(
              stream,
              run.slice(0, k).map((x) => x.id),
            );
          handled.set(stream, k);
        }
      }
    }
    for (const [stream, entries] of res)
      await this.processEntries(stream, entries.slice(handled.get(stream) ?? 0));
  }

  /**
   * Entries of one stream in order: runs of valid envelopes go to the batch handler when there is
   * one (acknowledged together); whatever it leaves, and anything else, goes one by one.
   */
  private async processEntries(stream: string, entries: Entry[]): Promise<void> {
    let i = 0;
    while (i < entries.length) {
      if (!this.running || !this.owned.has(stream)) return;
      if (this.opts.batchHandler) {
        const run = this.leadingRun(stream, entries.slice(i));
        if (run.length > 1) {
          const done = await this.runBatch(
            run.map((r) => r.event),
            'one by one',
          );
          if (done > 0) {
            await this.ackAll(
              stream,
              run.slice(0, done).map((r) => r.id),
            );
            i += done;
            continue;
          }
        }
      }
      await this.process(stream, entries[i][0], entries[i][1], 1);
      i++;
    }
  }

  /**
   * How many events from the start of `events` the batch handler handled (0 when it threw: the
   * caller then goes on `fallback`, one stream or one event at a time).
   */
  private async runBatch(events: EventEnvelope[], fallback: string): Promise<number> {
    try {
      return Math.max(0, Math.min(events.length, await this.opts.batchHandler!(events)));
    } catch (err) {
      this.log?.warn(
        { err: (err as Error).message, events: events.length },
        `event batch failed; handling its events ${fallback}`,
      );
      return 0;
    }
  }

  /** One XACK for handled entries, tried until it succeeds (stopping: they stay pending for the next owner, who finds them handled). */
  private async ackAll(stream: string, ids: string[]): Promise<void> {
    for (;;) {
      try {
        await this.redis.xack(stream, this.opts.group, ...ids);
        return;
      } catch (err) {
        if (!this.running) throw err;
        this.log?.warn({ err: (err as Error).message }, 'acknowledgement failed; retrying');
        await sleep(200);
      }
    }
  }

  private async process(
    stream: string,
    id: string,
    fields: string[] | null,
    deliveries: number,
  ): Promise<void> {
    const raw = fields ? toMap(fields).e : undefined;
    if (raw === undefined) {
      await this.redis.xack(stream, this.opts.group, id);
      return;
    }
    let event: EventEnvelope;
    try {
      event = acceptEnvelope(raw, this.bus.sourceOfStream(stream));
    } catch (err) {
      const rejected = err as RejectedEventError;
      this.opts.onRejected?.(rejected.reason, rejected.message);
      await this.deadLetter(stream, id, raw, rejected, deliveries);
      return;
    }
    // The acknowledgement is part of the attempt: an XACK that fails is retried with the handler.
    await runWithRetry(
      async (e) => {
        await this.opts.handler(e);
        await this.redis.xack(stream, this.opts.group, id);
      },
      event,
      {
        policy: this.retryPolicy,
        firstAttempt: deliveries,
        deadLetter: (err, attempts) => this.deadLetter(stream, id, raw, err, attempts),
        onRetry: (err, attempt, retryInMs) => {
          this.log?.warn(
            {
              err: (err as Error).message,
              eventId: event.id,
              type: event.type,
              attempt,
              retryInMs,
            },
            'event handler failed; will retry',
          );
          return this.running; // stopping: stays pending; the next owner retries it
        },
        sleep: async (delayMs) => {
          // Never sleep past a third of the lease: the partition stays ours while we retry.
          await sleep(Math.min(delayMs, this.leaseMs / 3));
          if (!this.running) return false;
          await this.renewLeases();
          return this.owned.has(stream);
        },
      },
    );
  }

  /**
   * The admin asked for this group's dead letters to be applied again (requestReplay): the first
   * consumer of the group to see the request takes it (GETDEL) and runs each letter through the
   * handler, as a delivery would (origin checked against the stream it came from, transient errors
   * retried); a letter applied is removed from the dead letter, one that fails again stays there.
   */
  private async replayIfAsked(): Promise<void> {
    const now = Date.now();
    if (now - this.lastReplayCheck < Math.min(this.leaseMs / 3, 1000)) return;
    this.lastReplayCheck = now;
    if (!(await this.redis.getdel(this.bus.replayRequestKey(this.opts.group)))) return;
    const dlq = this.bus.dlqKey(this.opts.group);
    const letters = (await this.redis.xrange(dlq, '-', '+', 'COUNT', 10_000)) as Entry[];
    let applied = 0;
    let failed = 0;
    for (const [id, fields] of letters) {
      if (!this.running) break;
      const f = toMap(fields ?? []);
      // Refused letters (forged, misrouted, invalid) are never replayed: an operator drops them.
      if (f.reason || f.event === undefined) continue;
      let event: EventEnvelope;
      try {
        event = acceptEnvelope(f.event, f.stream ? this.bus.sourceOfStream(f.stream) : undefined);
      } catch {
        continue;
      }
      const outcome = await runWithRetry(this.opts.handler, event, {
        policy: this.retryPolicy,
        deadLetter: async (err) => {
          this.log?.error(
            { err: err.message, eventId: event.id, type: event.type },
            'replayed dead letter failed again; it stays in dead letter',
          );
        },
        onRetry: () => this.running,
        sleep: async (delayMs) => {
          await sleep(Math.min(delayMs, this.leaseMs / 3));
          if (!this.running) return false;
          await this.renewLeases();
          return true;
        },
      });
      if (outcome === 'handled') {
        await this.redis.xdel(dlq, id);
        applied++;
      } else failed++;
    }
    this.log?.info({ applied, failed }, 'dead letters replayed by request');
  }

  private get retryPolicy(): RetryPolicy {
    return {
      maxAttempts: this.maxAttempts,
      baseDelayMs: this.bus.opts.retryBackoffMs,
      ...this.bus.opts.retry,
    };
  }

  private async deadLetter(
    stream: string,
    id: string,
    raw: string,
    err: Error,
    attempts: number,
  ): Promise<void> {
    this.log?.error(
      { err: err.message, stream, entryId: id, attempts },
      'event moved to dead letter',
    );
    await this.redis.xadd(
      this.bus.dlqKey(this.opts.group),
      '*',
      'group',
      this.opts.group,
      'stream',
      stream,
      'error',
      err.message.slice(0, 1000),
      ...(err instanceof RejectedEventError ? ['reason', err.reason] : []),
      'attempts',
      String(attempts),
      'failedAt',
      new Date().toISOString(),
      'event',
      raw,
    );
    await this.redis.xack(stream, this.opts.group, id);
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    // The loop ends after its current blocking read; if Redis is gone that read never returns,
    // so give it a bounded time and then cut the connection (unacked entries stay pending).
    const grace = new Promise<'timeout'>((r) =>
      setTimeout(() => r('timeout'), (this.bus.opts.blockMs ?? 500) + 2000).unref(),
    );
    if ((await Promise.race([this.loop?.catch(() => undefined), grace])) === 'timeout') {
      this.redis.disconnect();
      return;
    }
    for (const s of this.owned) {
      await Promise.race([
        this.redis
          .eval(RELEASE_LUA, 1, this.bus.leaseKey(this.opts.group, s), this.name)
          .catch(() => undefined),
        new Promise((r) => setTimeout(r, 1000).unref()),
      ]);
    }
    this.owned.clear();
    this.redis.disconnect();
  }

  kill(): void {
    this.running = false;
    this.redis.disconnect();
  }
}

function toMap(fields: string[]): Record<string, string> {
  const m: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) m[fields[i]] = fields[i + 1];
  return m;
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}
