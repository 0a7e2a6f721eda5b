/**
 * Traces across the bus: an event created while a span is active carries that span's W3C
 * `traceparent` in its envelope; the outbox relay publishes it inside a PRODUCER span (child of
 * the event's trace) and hands consumers its own traceparent; consumers handle it inside a
 * CONSUMER span that continues the trace. Events without a traceparent (tracing off, or created
 * outside any span) are published and handled exactly as before.
 */
import {
  contextFromTraceparent,
  inSpan,
  traceparentOfSpan,
  SpanKind,
  tracer,
  tracingEnabled,
  SpanStatusCode,
} from '@htm/service-kit/tracing';
import type { EventBus, SubscribeOptions, Subscription, DeadLetter } from './bus.js';
import type { EventEnvelope } from './envelope.js';

/** A bus whose publish() wraps each traced event in a PRODUCER span; everything else is delegated. */
export class TracedPublishBus implements EventBus {
  constructor(
    private readonly bus: EventBus,
    private readonly service: string,
  ) {}

  get kind() {
    return this.bus.kind;
  }

  async publish(events: readonly EventEnvelope[]): Promise<void> {
    if (!tracingEnabled() || !events.some((e) => e.traceparent)) return this.bus.publish(events);
    const t = tracer(this.service);
    const spans = events.map((e) =>
      e.traceparent
        ? t.startSpan(
            `publish ${e.type}`,
            {
              kind: SpanKind.PRODUCER,
              attributes: {
                'messaging.system': this.bus.kind,
                'messaging.operation.type': 'publish',
                'messaging.destination.name': e.source,
                'messaging.message.id': e.id,
                'htm.service': this.service,
                'htm.event.subject': e.subject,
              },
            },
            contextFromTraceparent(e.traceparent),
          )
        : undefined,
    );
    const out = events.map((e, i) => {
      const span = spans[i];
      if (!span) return e;
      const tp = traceparentOfSpan(span);
      return tp ? { ...e, traceparent: tp } : e;
    });
    try {
      await this.bus.publish(out);
    } catch (err) {
      for (const s of spans)
        s?.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      for (const s of spans) s?.end();
    }
  }

  subscribe(opts: SubscribeOptions): Promise<Subscription> {
    return this.bus.subscribe(opts);
  }
  deadLetters(group: string, limit?: number): Promise<Array<DeadLetter & { id: string }>> {
    return this.bus.deadLetters(group, limit);
  }
  replayDeadLetters(group: string, ids?: string[]): Promise<number> {
    return this.bus.replayDeadLetters(group, ids);
  }
  get requestReplay(): EventBus['requestReplay'] {
    return this.bus.requestReplay?.bind(this.bus);
  }
  get streamHistory(): EventBus['streamHistory'] {
    return this.bus.streamHistory?.bind(this.bus);
  }
  get markHistory(): EventBus['markHistory'] {
    return this.bus.markHistory?.bind(this.bus);
  }
  close(): Promise<void> {
    return this.bus.close();
  }
}

/** Runs a consumer's handling of one event inside a CONSUMER span continuing the event's trace. */
export function handleTraced<T>(
  service: string,
  event: EventEnvelope,
  fn: () => Promise<T>,
): Promise<T> {
  if (!event.traceparent || !tracingEnabled()) return fn();
  return inSpan(
    service,
    `handle ${event.type}`,
    {
      kind: SpanKind.CONSUMER,
      parent: contextFromTraceparent(event.traceparent),
      attributes: {
        'messaging.operation.type': 'process',
        'messaging.destination.name': event.source,
        'messaging.message.id': event.id,
        'htm.service': service,
        'htm.event.subject': event.subject,
      },
    },
    fn,
  );
}
