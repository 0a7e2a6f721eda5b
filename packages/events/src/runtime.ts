import type { Logger } from 'pino';
import type { EventBusConfig } from '@htm/service-kit/config';
import type { Metrics } from '@htm/service-kit';
import type { Db, Tx } from '@htm/service-kit/db';
import {
  catalogue,
  EVENT_SOURCES,
  type EventSource,
  type EventType,
  type ServiceName,
} from './catalogue.js';
import type { EventEnvelope } from './envelope.js';
import type { EventBus, SubscribeOptions, Subscription } from './bus.js';
import { RedisStreamsBus } from './redis-streams.js';
import { KafkaBus, kafkaConsumerTimingFromEnv } from './kafka.js';
import { handleTraced, TracedPublishBus } from './tracing.js';
import {
  handleOnce,
  insertHandledIds,
  OutboxRelay,
  wasHandled,
  writeOutbox,
  type HandledEventsTable,
  type OutboxTable,
} from './outbox.js';

/**
 * What the transport needs from a service's config. EVENT_BUS is service-kit's discriminated
 * union: a config parsed at boot names its Kafka brokers (a missing list fails there, in the
 * one list of bad keys), so there is nothing left to check here.
 */
export type BusConfig = EventBusConfig & { REDIS_URL: string; REDIS_PREFIX: string };

/** The configured transport: Redis Streams by default, Kafka when EVENT_BUS=kafka. */
export function createEventBus(
  cfg: BusConfig,
  logger?: Logger,
  opts: { clientId?: string; partitions?: number; leaseMs?: number } = {},
): EventBus {
  if (cfg.EVENT_BUS === 'kafka') {
    return new KafkaBus({
      brokers: cfg.KAFKA_BROKERS.split(',').map((b) => b.trim()),
      clientId: opts.clientId,
      prefix: cfg.REDIS_PREFIX,
      logger,
      consumer: kafkaConsumerTimingFromEnv(cfg),
    });
  }
  return new RedisStreamsBus({
    url: cfg.REDIS_URL,
    prefix: cfg.REDIS_PREFIX,
    logger,
    partitions: opts.partitions,
    leaseMs: opts.leaseMs,
  });
}

export type EventHandlers = {
  [T in EventType]?: (event: EventEnvelope<T>, tx: Tx) => Promise<void>;
};

export interface ServiceEventsOptions {
  /** The service: names its consumer group and relay lock. */
  service: ServiceName;
  db: Db;
  outbox: OutboxTable;
  handled: HandledEventsTable;
  bus: EventBus;
  logger?: Logger;
  /** Effects run once per event id, inside a transaction with the handled-id record. */
  handlers?: EventHandlers;
  pollMs?: number;
  maxAttempts?: number;
  /** Counters of events published, published again after a lost history, and consumed (the gap metric). */
  metrics?: Metrics;
  /** Told of every event the consumer loop refused (forged source, wrong stream, bad envelope). */
  onRejected?: SubscribeOptions['onRejected'];
  /** The service's own effects of its published events (OutboxRelayOptions.relayed). */
  relayed?: (events: EventEnvelope[]) => void;
}

/** A service's event plumbing: its outbox relay and its idempotent consumers. */
export class ServiceEvents {
  readonly relay: OutboxRelay;
  private sub?: Subscription;

  private readonly consumed?: { inc(labels: { source: string }): void };

  constructor(private readonly opts: ServiceEventsOptions) {
    const m = opts.metrics;
    const published = m?.counter(
      'events_published_total',
      'Events this service published from its outbox (compare with events_consumed_total{source=<this service>} of each consumer: a gap that grows means lost events)',
    );
    const republished = m?.counter(
      'events_republished_total',
      'Events published again because the streams lost their history (Redis wiped or restarted without its data)',
    );
    this.consumed = m?.counter(
      'events_consumed_total',
      'Events this service consumed (handled or skipped), by source service',
      ['source'],
    );
    this.relay = new OutboxRelay({
      db: opts.db,
      table: opts.outbox,
      bus: new TracedPublishBus(opts.bus, opts.service),
      lockName: opts.service,
      logger: opts.logger,
      pollMs: opts.pollMs ?? 100,
      source: (EVENT_SOURCES as readonly string[]).includes(opts.service)
        ? (opts.service as EventSource)
        : undefined,
      onPublished: published ? (n) => published.inc(n) : undefined,
      onRepublished: republished ? (n) => republished.inc(n) : undefined,
      relayed: opts.relayed,
    });
  }

  /** Transactions that recorded an event: the relay is woken once each of them commits. */
  private readonly recordedIn = new WeakSet<object>();

  /** Writes events to the outbox in the caller's transaction. */
  async record(tx: Tx | Db, ...events: EventEnvelope[]): Promise<void> {
    await writeOutbox(tx, this.opts.outbox, events);
    if (events.length) this.recordedIn.add(tx);
  }

  /**
   * Write in one transaction with its events, then wake the relay: the one way a use case changes
   * state and announces it. Events recorded with `record(tx, ...)` inside `fn` leave right after
   * the commit (not at the next poll); nothing leaves if `fn` throws (the transaction rolls back).
   */
  async inTransaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    let used: Tx | undefined;
    const result = await this.opts.db.transaction(async (tx) => {
      used = tx;
      return fn(tx);
    });
    if (used && this.recordedIn.has(used)) {
      this.recordedIn.delete(used);
      this.kick();
    }
    return result;
  }

  /**
   * Whether this service handled the event (its id is in the service's handled events): for a
   * UserDeleted, that the erasure committed (GET /internal/privacy/erasures/:eventId).
   */
  handled(eventId: string): Promise<boolean> {
    return wasHandled(this.opts.db, this.opts.handled, eventId);
  }

  /** Wakes the relay after a commit so events leave at once rather than at the next poll. */
  kick(): void {
    this.relay.kick();
  }

  get consumedSources(): EventSource[] {
    const types = Object.keys(this.opts.handlers ?? {}) as EventType[];
    return [...new Set(types.map((t) => catalogue[t].source))];
  }

  async start(opts: { relay?: boolean; consumers?: boolean } = {}): Promise<void> {
    if (opts.relay !== false) this.relay.start();
    const handlers = this.opts.handlers ?? {};
    if (opts.consumers !== false && this.consumedSources.length) {
      this.sub = await this.opts.bus.subscribe({
        group: this.opts.service,
        sources: this.consumedSources,
        maxAttempts: this.opts.maxAttempts,
        onRejected: this.opts.onRejected,
        batchHandler: (events) => this.handleBatch(events),
        handler: async (event) => {
          const h = handlers[event.type] as
            ((e: EventEnvelope, tx: Tx) => Promise<void>) | undefined;
          if (!h) {
            this.consumed?.inc({ source: event.source });
            return;
          }
          const applied = await handleTraced(this.opts.service, event, () =>
            handleOnce(this.opts.db, this.opts.handled, event, (tx) => h(event, tx)),
          );
          this.consumed?.inc({ source: event.source });
          this.opts.logger?.debug(
            { eventId: event.id, type: event.type, applied },
            'event handled',
          );
          if (applied) this.kick();
        },
      });
    }
  }

  /**
   * A run of events in one transaction: their handled ids in one statement, then each new event's
   * effect in order, one commit. The same effect as handling them one by one (the ids and the
   * effects commit together; an id already there skips its event), with one commit instead of one
   * per event. When an effect throws, the transaction rolls back and the events before it are
   * done again in a second one; the one that threw and the rest go one by one (retries, dead letter).
   * Answers how many from the start are handled.
   */
  private async handleBatch(events: EventEnvelope[]): Promise<number> {
    const handlers = this.opts.handlers ?? {};
    const attempt = async (batch: EventEnvelope[]): Promise<{ done: number; applied: number }> => {
      if (!batch.some((e) => handlers[e.type])) return { done: batch.length, applied: 0 }; // nothing of ours: no transaction
      let failedAt = -1;
      let applied = 0;
      try {
        await this.opts.db.transaction(async (tx) => {
          const mine = batch.filter((e) => handlers[e.type]);
          const fresh = new Set(
            mine.length ? await insertHandledIds(tx, this.opts.handled, mine) : [],
          );
          for (let k = 0; k < batch.length; k++) {
            const e = batch[k];
            // Once per id: a redelivered copy in the same read is not new a second time.
            if (!fresh.delete(e.id)) continue;
            const h = handlers[e.type] as (e: EventEnvelope, tx: Tx) => Promise<void>;
            try {
              await handleTraced(this.opts.service, e, () => h(e, tx));
            } catch (err) {
              failedAt = k;
              throw err;
            }
            applied++;
          }
        });
      } catch (err) {
        if (failedAt < 0) throw err; // BEGIN, the ids' insert or COMMIT: the caller goes one by one
        return { done: -failedAt - 1, applied: 0 };
      }
      return { done: batch.length, applied };
    };
    let r = await attempt(events);
    if (r.done < 0) {
      const failedAt = -r.done - 1;
      if (failedAt === 0) return 0;
      r = await attempt(events.slice(0, failedAt));
      if (r.done < 0) return 0;
    }
    for (const e of events.slice(0, r.done)) this.consumed?.inc({ source: e.source });
    this.opts.logger?.debug({ events: r.done, applied: r.applied }, 'event batch handled');
    if (r.applied) this.kick();
    return r.done;
  }

  async stop(): Promise<void> {
    await this.sub?.stop();
    await this.relay.stop();
    await this.relay.flush().catch(() => undefined);
  }
}
