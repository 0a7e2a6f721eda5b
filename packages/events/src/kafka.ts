import {
  Kafka,
  logLevel,
  Partitioners,
  type Admin,
  type Consumer,
  type KafkaMessage,
  type Producer,
} from 'kafkajs';
import type { Logger } from 'pino';
import type { EventSource } from './catalogue.js';
import { runWithRetry } from './retry.js';
import { acceptEnvelope, RejectedEventError, type EventEnvelope } from './envelope.js';
import type { DeadLetter, EventBus, SubscribeOptions, Subscription } from './bus.js';

export interface KafkaBusOptions {
  brokers: string[];
  clientId?: string;
  /** Topic prefix (Kafka allows [A-Za-z0-9._-]). */
  prefix?: string;
  logger?: Logger;
  retryBackoffMs?: number;
  connectionTimeout?: number;
  /** Consumer-group timing (kafkajs defaults: 5000, 30000, 3000 ms). */
  consumer?: KafkaConsumerTiming;
}

export interface KafkaConsumerTiming {
  /** Longest a fetch waits for data when a partition is idle (KAFKA_MAX_WAIT_MS). */
  maxWaitTimeInMs?: number;
  /** A member silent this long is dropped from its group (KAFKA_SESSION_TIMEOUT_MS). */
  sessionTimeout?: number;
  /** How often a member tells the group it is alive (KAFKA_HEARTBEAT_INTERVAL_MS). */
  heartbeatInterval?: number;
}

/** Consumer timing from the environment; unset keys keep kafkajs' defaults. */
export function kafkaConsumerTimingFromEnv(env: {
  KAFKA_MAX_WAIT_MS?: number;
  KAFKA_SESSION_TIMEOUT_MS?: number;
  KAFKA_HEARTBEAT_INTERVAL_MS?: number;
}): KafkaConsumerTiming {
  return {
    ...(env.KAFKA_MAX_WAIT_MS !== undefined && { maxWaitTimeInMs: env.KAFKA_MAX_WAIT_MS }),
    ...(env.KAFKA_SESSION_TIMEOUT_MS !== undefined && {
      sessionTimeout: env.KAFKA_SESSION_TIMEOUT_MS,
    }),
    ...(env.KAFKA_HEARTBEAT_INTERVAL_MS !== undefined && {
      heartbeatInterval: env.KAFKA_HEARTBEAT_INTERVAL_MS,
    }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Kafka transport: one topic per source, message key = subject (one aggregate stays in one partition, in order). */
export class KafkaBus implements EventBus {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private producer?: Promise<Producer>;
  private readonly consumers = new Set<Consumer>();
  readonly prefix: string;

  constructor(readonly opts: KafkaBusOptions) {
    this.prefix = (opts.prefix ?? 'htm.').replace(/[^A-Za-z0-9._-]/g, '.');
    this.kafka = new Kafka({
      clientId: opts.clientId ?? 'htm',
      brokers: opts.brokers,
      connectionTimeout: opts.connectionTimeout ?? 3000,
      logLevel: logLevel.WARN,
    });
  }

  topic(source: EventSource): string {
    return `${this.prefix}events.${source}`;
  }
  /** The source whose topic this is (`<prefix>events.<source>`), if any. */
  sourceOfTopic(topic: string): string | undefined {
    if (!topic.startsWith(`${this.prefix}events.`)) return undefined;
    const rest = topic.slice(`${this.prefix}events.`.length);
    return /^[a-z]+$/.test(rest) ? rest : undefined;
  }
  dlqTopic(group: string): string {
    return `${this.prefix}events.dlq.${group.replace(/[^A-Za-z0-9._-]/g, '.')}`;
  }

  /**
   * One producer per bus, connected once (callers at the same moment share the attempt). A failed
   * connect() is disconnected before the error is passed on: kafkajs keeps the half-open
   * connection and its timers otherwise, close() never sees the producer, and the process (or
   * jest) never exits. The next call tries again.
   */
  private getProducer(): Promise<Producer> {
    this.producer ??= (async () => {
      // The default partitioner named explicitly (murmur2 of the key, as the Java client): same
      // behaviour, without kafkajs' warning about its v2 default.
      const p = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: true,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      try {
        await p.connect();
        return p;
      } catch (err) {
        await p.disconnect().catch(() => undefined);
        throw err;
      }
    })();
    const attempt = this.producer;
    attempt.catch(() => {
      if (this.producer === attempt) this.producer = undefined;
    });
    return attempt;
  }

  async publish(events: readonly EventEnvelope[]): Promise<void> {
    if (!events.length) return;
    const p = await this.getProducer();
    const byTopic = new Map<
      string,
      Array<{ key: string; value: string; headers: Record<string, string> }>
    >();
    for (const e of events) {
      const t = this.topic(e.source);
      const list = byTopic.get(t) ?? [];
      const headers: Record<string, string> = { type: e.type, id: e.id };
      if (e.traceparent) headers.traceparent = e.traceparent;
      list.push({ key: e.subject, value: JSON.stringify(e), headers });
      byTopic.set(t, list);
    }
    await p.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    });
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    const consumer = this.kafka.consumer({
      groupId: opts.group,
      allowAutoTopicCreation: true,
      ...this.opts.consumer,
    });
    await consumer.connect();
    await consumer.subscribe({
      topics: opts.sources.map((s) => this.topic(s)),
      fromBeginning: true,
    });
    const maxAttempts = opts.maxAttempts ?? 5;
    let running = true;
    /** One message: a refused envelope to dead letter, else the handler with its retries (retry.ts). */
    const handleOne = async (
      topic: string,
      message: KafkaMessage,
      heartbeat: () => Promise<void>,
    ) => {
      const raw = message.value?.toString() ?? '';
      let event: EventEnvelope;
      try {
        event = acceptEnvelope(raw, this.sourceOfTopic(topic));
      } catch (err) {
        const rejected = err as RejectedEventError;
        opts.onRejected?.(rejected.reason, rejected.message);
        await this.deadLetter(opts.group, topic, raw, rejected, 1);
        return;
      }
      // Transient errors are retried until they succeed, others maxAttempts times (retry.ts).
      await runWithRetry(opts.handler, event, {
        policy: { maxAttempts, baseDelayMs: this.opts.retryBackoffMs },
        deadLetter: (err, attempts) => this.deadLetter(opts.group, topic, raw, err, attempts),
        onRetry: (err) => {
          // Stopping: leave the message uncommitted; the group's next owner handles it.
          if (!running) throw err;
        },
        sleep: async (delayMs) => {
          await sleep(delayMs);
          await heartbeat().catch(() => undefined); // a long retry must not cost the group membership
        },
      });
    };
    await consumer.run({
      autoCommit: true,
      // Offsets are resolved here as messages are done: a run of accepted events goes to the batch
      // handler at once (one transaction), whatever it leaves goes one by one, in partition order.
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        const msgs = batch.messages;
        let i = 0;
        while (i < msgs.length) {
          if (!isRunning() || isStale()) return;
          if (opts.batchHandler) {
            const run: EventEnvelope[] = [];
            for (let j = i; j < msgs.length; j++) {
              try {
                run.push(
                  acceptEnvelope(msgs[j].value?.toString() ?? '', this.sourceOfTopic(batch.topic)),
                );
              } catch {
                break; // refused: the one-by-one path dead-letters it
              }
            }
            if (run.length > 1) {
              let done = 0;
              try {
                done = Math.max(0, Math.min(run.length, await opts.batchHandler(run)));
              } catch (err) {
                this.opts.logger?.warn(
                  { err: (err as Error).message, events: run.length },
                  'event batch failed; handling its events one by one',
                );
              }
              if (done > 0) {
                i += done;
                resolveOffset(msgs[i - 1].offset);
                await heartbeat();
                continue;
              }
            }
          }
          await handleOne(batch.topic, msgs[i], heartbeat);
          resolveOffset(msgs[i].offset);
          i++;
          await heartbeat();
        }
      },
    });
    this.consumers.add(consumer);
    return {
      stop: async () => {
        running = false;
        await consumer.disconnect();
        this.consumers.delete(consumer);
      },
    };
  }

  private async deadLetter(
    group: string,
    topic: string,
    raw: string,
    err: Error,
    attempts: number,
  ) {
    this.opts.logger?.error(
      { err: err.message, topic, attempts, group },
      'event moved to dead letter',
    );
    const p = await this.getProducer();
    const letter: DeadLetter = {
      group,
      error: err.message.slice(0, 1000),
      ...(err instanceof RejectedEventError && { reason: err.reason }),
      attempts,
      failedAt: new Date().toISOString(),
      event: safeJson(raw),
    };
    await p.send({
      topic: this.dlqTopic(group),
      messages: [{ key: group, value: JSON.stringify(letter) }],
    });
  }

  /**
   * Dead letters of a group, oldest first. Kafka topics are append-only, so a replay appends a
   * `{replayed: [ids]}` marker to the dead-letter topic and listing leaves those letters out.
   */
  async deadLetters(group: string, limit = 100): Promise<Array<DeadLetter & { id: string }>> {
    const letters: Array<DeadLetter & { id: string }> = [];
    const replayed = new Set<string>();
    const admin = this.kafka.admin();
    await admin.connect();
    let ends: Array<{ partition: number; high: string; low: string }> = [];
    try {
      ends = await admin.fetchTopicOffsets(this.dlqTopic(group)).catch(() => []);
    } finally {
      await admin.disconnect();
    }
    const remaining = new Map(
      ends.filter((e) => BigInt(e.high) > BigInt(e.low)).map((e) => [e.partition, BigInt(e.high)]),
    );
    if (remaining.size) {
      const c = this.kafka.consumer({
        groupId: `dlq-reader-${group}-${Date.now()}`,
        ...this.opts.consumer,
      });
      await c.connect();
      await c.subscribe({ topics: [this.dlqTopic(group)], fromBeginning: true });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 10_000);
        void c.run({
          eachMessage: async ({ partition, message }) => {
            const value = safeJson(message.value?.toString() ?? '{}') as DeadLetter & {
              replayed?: string[];
            };
            if (Array.isArray(value.replayed)) value.replayed.forEach((id) => replayed.add(id));
            else letters.push({ ...value, id: `${partition}:${message.offset}` });
            if (BigInt(message.offset) + 1n >= (remaining.get(partition) ?? 0n))
              remaining.delete(partition);
            if (!remaining.size) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
      await c.disconnect();
    }
    return letters.filter((l) => !replayed.has(l.id)).slice(0, limit);
  }

  async replayDeadLetters(group: string, ids?: string[]): Promise<number> {
    const letters = (await this.deadLetters(group, 10_000)).filter(
      (l) => !ids || ids.includes(l.id),
    );
    const replayable = letters.filter(
      (l) => l.event && typeof l.event === 'object' && 'subject' in (l.event as object),
    );
    if (!replayable.length) return 0;
    await this.publish(replayable.map((l) => l.event as EventEnvelope));
    const p = await this.getProducer();
    await p.send({
      topic: this.dlqTopic(group),
      messages: [{ key: group, value: JSON.stringify({ replayed: replayable.map((l) => l.id) }) }],
    });
    return replayable.length;
  }

  async readAll(
    sources: readonly EventSource[],
    handler: (event: EventEnvelope) => Promise<void>,
  ): Promise<{ events: number; skipped: number }> {
    let events = 0;
    let skipped = 0;
    const topics = sources.map((s) => this.topic(s));
    const admin = this.kafka.admin();
    await admin.connect();
    // The end of every partition as of now (a topic nobody wrote yet has none).
    const remaining = new Map<string, bigint>();
    try {
      const existing = new Set(await admin.listTopics());
      for (const t of topics.filter((x) => existing.has(x))) {
        for (const o of await admin.fetchTopicOffsets(t))
          if (BigInt(o.high) > BigInt(o.low)) remaining.set(`${t}:${o.partition}`, BigInt(o.high));
      }
    } finally {
      await admin.disconnect();
    }
    if (!remaining.size) return { events, skipped };
    const groupId = `${this.prefix}read-all-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    const c = this.kafka.consumer({ groupId, ...this.opts.consumer });
    await c.connect();
    try {
      await c.subscribe({
        topics: [...new Set([...remaining.keys()].map((k) => k.slice(0, k.lastIndexOf(':'))))],
        fromBeginning: true,
      });
      await new Promise<void>((resolve, reject) => {
        void c
          .run({
            autoCommit: false,
            eachMessage: async ({ topic, partition, message }) => {
              const key = `${topic}:${partition}`;
              const end = remaining.get(key);
              if (end === undefined || BigInt(message.offset) >= end) return;
              let event: EventEnvelope | undefined;
              try {
                // Forged or misrouted events are left out of a replay as the consumers refuse them.
                event = acceptEnvelope(message.value?.toString() ?? '', this.sourceOfTopic(topic));
              } catch {
                event = undefined;
              }
              if (event) {
                try {
                  await handler(event);
                } catch (err) {
                  reject(err as Error);
                  throw err;
                }
                events++;
              } else skipped++;
              if (BigInt(message.offset) + 1n >= end) remaining.delete(key);
              if (!remaining.size) resolve();
            },
          })
          .catch(reject);
      });
    } finally {
      await c.disconnect().catch(() => undefined);
      const cleanup = this.kafka.admin();
      await cleanup
        .connect()
        .then(() => cleanup.deleteGroups([groupId]))
        .catch(() => undefined)
        .finally(() => cleanup.disconnect().catch(() => undefined));
    }
    return { events, skipped };
  }

  private lagAdmin?: Promise<Admin>;

  /** Per partition: the end offset minus the group's committed offset (the whole partition when the group committed none). */
  async lag(group: string, sources: readonly EventSource[]): Promise<number> {
    this.lagAdmin ??= (async () => {
      const admin = this.kafka.admin();
      await admin.connect();
      return admin;
    })();
    let admin: Admin;
    try {
      admin = await this.lagAdmin;
    } catch (err) {
      this.lagAdmin = undefined;
      throw err;
    }
    const existing = new Set(await admin.listTopics());
    const topics = sources.map((s) => this.topic(s)).filter((t) => existing.has(t));
    if (!topics.length) return 0;
    const committed = await admin.fetchOffsets({ groupId: group, topics });
    let total = 0n;
    for (const t of topics) {
      const mine = new Map(
        (committed.find((c) => c.topic === t)?.partitions ?? []).map((p) => [
          p.partition,
          BigInt(p.offset),
        ]),
      );
      for (const o of await admin.fetchTopicOffsets(t)) {
        const at = mine.get(o.partition) ?? -1n;
        const from = at >= 0n ? at : BigInt(o.low);
        if (BigInt(o.high) > from) total += BigInt(o.high) - from;
      }
    }
    return Number(total);
  }

  async close(): Promise<void> {
    const admin = this.lagAdmin;
    this.lagAdmin = undefined;
    await admin?.then(
      (a) => a.disconnect(),
      () => undefined,
    );
    await Promise.all([...this.consumers].map((c) => c.disconnect()));
    this.consumers.clear();
    const producer = this.producer;
    this.producer = undefined;
    await producer?.then(
      (p) => p.disconnect(),
      () => undefined,
    );
  }
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}
