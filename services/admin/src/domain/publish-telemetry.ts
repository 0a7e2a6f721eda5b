import { randomUUID } from 'node:crypto';
import { createEvent } from '@htm/events';
import { getCorrelationId } from '@htm/service-kit';
import { isTelemetryEventName, type TelemetryBody } from '@htm/contracts';
import type { AdminDeps } from '../deps.js';

/**
 * Republishes the allow-listed events of a client batch as one ClientTelemetry event. Unknown
 * names are dropped (newer clients must not break older servers). Nothing is kept beyond the
 * outbox row the relay publishes (and deletes after its retention period).
 */
export async function publishTelemetry(
  deps: AdminDeps,
  body: TelemetryBody,
  userId: string | null,
  now = new Date(),
): Promise<{ accepted: number }> {
  const events = body.events
    .filter((e) => isTelemetryEventName(e.name))
    .map((e) => ({
      name: e.name,
      at: e.at ?? now.toISOString(),
      ...(e.props ? { props: e.props } : {}),
    }));
  if (!events.length) return { accepted: 0 };
  await deps.events.inTransaction((tx) =>
    deps.events.record(
      tx,
      createEvent(
        'ClientTelemetry',
        userId ?? randomUUID(),
        { userId, events },
        { correlationId: getCorrelationId() },
      ),
    ),
  );
  return { accepted: events.length };
}
