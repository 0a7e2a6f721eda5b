import type { EventSource } from './catalogue.js';
import type { EventEnvelope, RejectReason } from './envelope.js';

export type EventHandler = (event: EventEnvelope) => Promise<void>;

export interface SubscribeOptions {
  /** Consumer group: one per consuming service (e.g. 'jobs'); each event is handled once per group. */
  group: string;
  /** The sources whose streams/topics this group reads. */
  sources: readonly EventSource[];
  handler: EventHandler;
  /** Unique per process; defaults to a random name. */
  consumerName?: string;
  /** Attempts before an event goes to the dead-letter stream (default 5). */
  maxAttempts?: number;
  /** Told of every event refused before its handler ran (bad envelope, forged source, wrong stream). */
  onRejected?: (reason: RejectReason, error: string) => void;
  /**
   * Optional: handles a run of accepted events of one stream at once, in stream order (e.g. in one
   * transaction), and answers how many from the start it handled; those are acknowledged with one
   * command. The rest go through `handler` one by one (its retries and dead letter), so a batch
   * that fails changes nothing but speed. Must have the same effect as `handler` on each event in
   * turn. Both transports use it (Redis Streams per read of a stream, Kafka per fetched batch of a partition).
   */
  batchHandler?: (events: EventEnvelope[]) => Promise<number>;
}

export interface Subscription {
  /** Stops reading; in-flight handling finishes first. */
  stop(): Promise<void>;
}

export interface DeadLetter {
  group: string;
  error: string;
  /** Set when the event was refused without running its handler (see RejectedEventError). */
  reason?: RejectReason;
  attempts: number;
  failedAt: string;
  event: unknown;
}

/**
 * What the broker still holds of a source's streams (Redis Streams): whether the history marker
 * written with them is there, how many entries they hold, and up to when every consumer group
 * has confirmed (acknowledged) everything (null: no entry and no group).
 */
export interface StreamHistory {
  marked: boolean;
  entries: number;
  confirmedThrough: Date | null;
}

/** At-least-once, ordered per subject. Redis Streams (default) or Kafka. */
export interface EventBus {
  readonly kind: 'redis' | 'kafka';
  publish(events: readonly EventEnvelope[]): Promise<void>;
  subscribe(opts: SubscribeOptions): Promise<Subscription>;
  /** Dead letters of a group, oldest first (for operators and tests). */
  deadLetters(group: string, limit?: number): Promise<Array<DeadLetter & { id: string }>>;
  /** Puts dead-lettered events back on their source streams and removes them from dead letter. */
  replayDeadLetters(group: string, ids?: string[]): Promise<number>;
  /**
   * Redis Streams only: asks the group's own consumers to apply its dead letters again (one of
   * them takes the request within about a second, runs each letter through its handler and
   * removes the ones it applied). Needs no write on any stream, so it works under per-service
   * Redis users (scripts/redis-acl.ts), where only a stream's own service may write it. Answers
   * how many letters were asked for (refused, forged or misrouted letters are left out).
   */
  requestReplay?(group: string): Promise<number>;
  /** Redis Streams only: see StreamHistory (the outbox relay uses it to notice a wiped Redis). */
  streamHistory?(source: EventSource): Promise<StreamHistory>;
  /** Redis Streams only: writes the history marker of a source's streams. */
  markHistory?(source: EventSource): Promise<void>;
  /**
   * Reads every event of these sources from the beginning of their streams/topics up to their
   * end as of the call, in stream order per partition, without a consumer group (no group's
   * position moves). For projections rebuilt from scratch (`npm run analytics:rebuild`). An entry
   * that is not a valid envelope, or that its stream's source may not have written (see checkOrigin),
   * is skipped (and counted); answers how many events were handed over.
   */
  readAll?(
    sources: readonly EventSource[],
    handler: EventHandler,
  ): Promise<{ events: number; skipped: number }>;
  /**
   * Events of these sources a consumer group has not handled yet (read but unacknowledged, plus
   * not read; a group that does not exist yet counts every event, as it will start from the
   * beginning): the `event_consumer_lag` metric, and what KEDA scales the consumers on.
   */
  lag?(group: string, sources: readonly EventSource[]): Promise<number>;
  close(): Promise<void>;
}

/** Stable partition of a subject: keeps one aggregate's events in one ordered stream. */
export function partitionOf(subject: string, partitions: number): number {
  let h = 2166136261;
  for (let i = 0; i < subject.length; i++) {
    h ^= subject.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return (h >>> 0) % partitions;
}
