import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { currentTraceparent } from '@htm/service-kit/tracing';
import {
  catalogue,
  definitionOf,
  EVENT_SOURCES,
  isEventType,
  type EventData,
  type EventType,
} from './catalogue.js';

export const envelopeSchema = z.object({
  id: z.string().uuid(),
  type: z.string().min(1),
  version: z.number().int().positive(),
  occurredAt: z.string().datetime({ offset: true }),
  source: z.enum(EVENT_SOURCES),
  subject: z.string().min(1),
  correlationId: z.string().nullable(),
  /**
   * W3C trace context of the span that produced the event (present only while tracing is on).
   * Never a reason to refuse an event: a malformed value is dropped, and one the propagator
   * cannot read just starts a new trace.
   */
  traceparent: z.string().max(512).optional().catch(undefined),
  data: z.unknown(),
});

export type AnyEnvelope = z.infer<typeof envelopeSchema>;
export interface EventEnvelope<T extends EventType = EventType> extends Omit<
  AnyEnvelope,
  'type' | 'data'
> {
  type: T;
  data: EventData<T>;
}

/** An error that retrying will not fix (bad payload): goes straight to dead letter. */
export class PermanentEventError extends Error {
  override name = 'PermanentEventError';
}

/** Why the shared consumer loop refused an event without running its handler. */
export type RejectReason = 'invalid' | 'source_not_owner' | 'wrong_stream';

/**
 * An event the consumer refuses to act on: malformed, written under another service's name, or
 * read from a stream/topic its source does not own (a forgery, or a misrouted write). Dead-lettered
 * at once with its reason and counted in `events_rejected_total{reason}`.
 */
export class RejectedEventError extends PermanentEventError {
  override name = 'RejectedEventError';
  constructor(
    readonly reason: RejectReason,
    message: string,
  ) {
    super(`rejected (${reason}): ${message}`);
  }
}

/**
 * Checks who wrote an event: a known type must carry its owner's `source` (the catalogue's), and
 * any event must arrive on its source's own stream/topic (`arrivedOn`), the only one that service
 * may write to. Throws RejectedEventError otherwise.
 */
export function checkOrigin(
  event: Pick<EventEnvelope, 'type' | 'source'>,
  arrivedOn: string | undefined,
): void {
  if (isEventType(event.type) && catalogue[event.type].source !== event.source) {
    throw new RejectedEventError(
      'source_not_owner',
      `${event.type} is published by ${catalogue[event.type].source}, not ${event.source}`,
    );
  }
  if (arrivedOn !== event.source) {
    throw new RejectedEventError(
      'wrong_stream',
      `${event.type} from ${event.source} arrived on ${arrivedOn ?? 'an unknown'} stream`,
    );
  }
}

/**
 * Reads and checks an event taken from the stream/topic of `arrivedOn`: a valid envelope whose
 * type, source and stream agree. Anything else throws RejectedEventError.
 */
export function acceptEnvelope(raw: string, arrivedOn: string | undefined): EventEnvelope {
  let event: EventEnvelope;
  try {
    event = parseEnvelope(JSON.parse(raw));
  } catch (err) {
    throw new RejectedEventError('invalid', (err as Error).message);
  }
  checkOrigin(event, arrivedOn);
  return event;
}

/** Builds a valid envelope; the data is checked against the catalogue. */
export function createEvent<T extends EventType>(
  type: T,
  subject: string,
  data: EventData<T>,
  opts: {
    correlationId?: string | null;
    id?: string;
    occurredAt?: Date;
    traceparent?: string;
  } = {},
): EventEnvelope<T> {
  const def = catalogue[type];
  const parsed = def.data.parse(data) as EventData<T>;
  const traceparent = opts.traceparent ?? currentTraceparent();
  return {
    id: opts.id ?? randomUUID(),
    type,
    version: def.version,
    occurredAt: (opts.occurredAt ?? new Date()).toISOString(),
    source: def.source,
    subject,
    correlationId: opts.correlationId ?? null,
    ...(traceparent && { traceparent }),
    data: parsed,
  };
}

/** Validates an envelope read from the bus. Unknown types pass through with raw data. */
export function parseEnvelope(raw: unknown): EventEnvelope {
  const env = envelopeSchema.safeParse(raw);
  if (!env.success)
    throw new PermanentEventError(`invalid envelope: ${env.error.issues[0]?.message}`);
  const e = env.data;
  if (isEventType(e.type)) {
    const def = definitionOf(e.type);
    // An older version still read (its deprecation window): checked against its own schema, then
    // upgraded to the current shape. Any other version is read with the current schema.
    const prev =
      e.version !== def.version ? def.previous?.find((p) => p.version === e.version) : undefined;
    if (prev) {
      const old = prev.data.safeParse(e.data);
      if (!old.success)
        throw new PermanentEventError(
          `invalid ${e.type} v${e.version} data: ${old.error.issues[0]?.path.join('.')} ${old.error.issues[0]?.message}`,
        );
      const up = def.data.safeParse(prev.upgrade(old.data as never));
      if (!up.success)
        throw new PermanentEventError(
          `invalid ${e.type} v${e.version} data after upgrade: ${up.error.issues[0]?.path.join('.')} ${up.error.issues[0]?.message}`,
        );
      return { ...e, type: e.type, data: up.data } as EventEnvelope;
    }
    const d = catalogue[e.type].data.safeParse(e.data);
    if (!d.success)
      throw new PermanentEventError(
        `invalid ${e.type} data: ${d.error.issues[0]?.path.join('.')} ${d.error.issues[0]?.message}`,
      );
    return { ...e, type: e.type, data: d.data } as EventEnvelope;
  }
  return e as unknown as EventEnvelope;
}
