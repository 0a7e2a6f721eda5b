/**
 * The live feed: one consumer group of the gateway's own ('gateway-live', on Redis Streams or
 * Kafka, whichever bus runs) turns events into live messages and appends them to one Redis
 * stream that every gateway replica reads. The stream's entry ids are the messages' SSE ids
 * (one order across replicas), and the stream is the resume history for Last-Event-ID.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { EventBus, SubscribeOptions, Subscription } from '@htm/events';
import { LIVE_SOURCES, toLiveMessages } from './live-messages.js';

/** Consumer group of the feed (one for all gateway replicas: each event is appended once). */
export const LIVE_GROUP = 'gateway-live';

export const LIVE_KEYS = {
  /** Stream of live messages: field `m` = JSON {event, data, to}. */
  messages: (prefix: string) => `${prefix}live:messages`,
  /** Marks an event id as appended (a redelivered event appends nothing twice). */
  seen: (prefix: string, eventId: string) => `${prefix}live:seen:${eventId}`,
  /** Single-use stream ticket: JSON of the caller it was issued to. */
  ticket: (prefix: string, ticket: string) => `${prefix}live:ticket:${ticket}`,
} as const;

// KEYS: seen marker, stream. ARGV: marker ttl ms, oldest id to keep, messages...
const APPEND_LUA = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 0 end
for i = 3, #ARGV do redis.call('XADD', KEYS[2], 'MINID', '~', ARGV[2], '*', 'm', ARGV[i]) end
return 1`;

export interface LiveFeedOptions {
  bus: EventBus;
  redis: Redis;
  prefix: string;
  /** How long messages stay in the stream (the Last-Event-ID resume window). */
  historyMs: number;
  logger: Logger;
  /** Told of every event the consumer loop refused (forged source, wrong stream, bad envelope). */
  onRejected?: SubscribeOptions['onRejected'];
}

export class LiveFeed {
  private sub?: Subscription;

  constructor(private readonly opts: LiveFeedOptions) {}

  /** Appends the live messages of one event (once per event id). Older events than the history are skipped. */
  async append(event: Parameters<typeof toLiveMessages>[0]): Promise<number> {
    const { redis, prefix, historyMs } = this.opts;
    const now = Date.now();
    if (now - Date.parse(event.occurredAt) > historyMs) return 0;
    const messages = toLiveMessages(event);
    if (!messages.length) return 0;
    const appended = await redis.eval(
      APPEND_LUA,
      2,
      LIVE_KEYS.seen(prefix, event.id),
      LIVE_KEYS.messages(prefix),
      String(historyMs),
      `${now - historyMs}-0`,
      ...messages.map((m) => JSON.stringify(m)),
    );
    return Number(appended) === 1 ? messages.length : 0;
  }

  async start(): Promise<void> {
    this.sub = await this.opts.bus.subscribe({
      group: LIVE_GROUP,
      sources: LIVE_SOURCES,
      onRejected: this.opts.onRejected,
      handler: async (event) => {
        const n = await this.append(event);
        if (n)
          this.opts.logger.debug(
            { eventId: event.id, type: event.type, messages: n },
            'live messages appended',
          );
      },
    });
  }

  async stop(): Promise<void> {
    await this.sub?.stop();
  }
}
