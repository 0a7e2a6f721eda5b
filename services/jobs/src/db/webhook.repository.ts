import { and, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import { rowsOf, type Db, type Tx } from '@htm/service-kit/db';
import {
  webhookDeliveries,
  webhookEndpoints,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from './schema.js';
import { isUuid } from './job.repository.js';

type Q = Db | Tx;

export async function insertEndpoint(
  db: Q,
  e: { ownerId: string; url: string; events: string[]; secret: string },
): Promise<WebhookEndpointRow> {
  const [row] = await db.insert(webhookEndpoints).values(e).returning();
  return row;
}

export function listEndpoints(db: Q, ownerId: string): Promise<WebhookEndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.ownerId, ownerId))
    .orderBy(webhookEndpoints.createdAt);
}

/** Live endpoints of an owner that want an event type. */
export function endpointsFor(db: Q, ownerId: string, type: string): Promise<WebhookEndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.ownerId, ownerId),
        sql`${webhookEndpoints.disabledAt} IS NULL`,
        sql`${webhookEndpoints.events} @> ${JSON.stringify([type])}::jsonb`,
      ),
    );
}

export async function findEndpoint(db: Q, id: string): Promise<WebhookEndpointRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.id, id))
    .limit(1);
  return row;
}

export async function deleteEndpoint(db: Q, id: string): Promise<void> {
  await db.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id));
  await db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
}

/** Takes turns per endpoint until the transaction ends (test sends counted against their limit). */
export async function lockEndpoint(tx: Tx, endpointId: string): Promise<void> {
  await tx.execute(
    sql`SELECT pg_advisory_xact_lock(hashtext(${`jobs:webhook-endpoint:${endpointId}`}))`,
  );
}

/** How many deliveries of `eventType` the endpoint got since `since`. */
export async function countDeliveriesSince(
  db: Q,
  endpointId: string,
  eventType: string,
  since: Date,
): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointId),
        eq(webhookDeliveries.eventType, eventType),
        gte(webhookDeliveries.createdAt, since),
      ),
    );
  return row?.n ?? 0;
}

/** A delivery per (endpoint, event): a redelivered event adds nothing (the unique index). */
export async function enqueueDelivery(
  db: Q,
  d: {
    endpointId: string;
    eventId: string;
    eventType: string;
    payload: Record<string, unknown>;
    at?: Date;
  },
): Promise<WebhookDeliveryRow | undefined> {
  const [row] = await db
    .insert(webhookDeliveries)
    .values({
      endpointId: d.endpointId,
      eventId: d.eventId,
      eventType: d.eventType,
      payload: d.payload,
      nextAttemptAt: d.at ?? new Date(),
    })
    .onConflictDoNothing()
    .returning();
  return row;
}

export function listDeliveries(
  db: Q,
  endpointId: string,
  limit = 50,
): Promise<WebhookDeliveryRow[]> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(desc(webhookDeliveries.createdAt))
    .limit(limit);
}

export async function findDelivery(db: Q, id: string): Promise<WebhookDeliveryRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.id, id))
    .limit(1);
  return row;
}

/** Redeliver: the delivery is due again now, whatever became of it (same id, so the same webhook-id). */
export async function requeueDelivery(db: Q, id: string): Promise<WebhookDeliveryRow | undefined> {
  const [row] = await db
    .update(webhookDeliveries)
    .set({ status: 'pending', nextAttemptAt: new Date(), lockedUntil: null })
    .where(eq(webhookDeliveries.id, id))
    .returning();
  return row;
}

/**
 * Takes up to `limit` due deliveries of live endpoints for `leaseMs` (one statement with SKIP
 * LOCKED, so several workers never take the same one), in the order their events happened: of one
 * endpoint, only the head of its pending deliveries in event order, up to its first one not due
 * yet (a delivery waiting for its retry holds back every later event of its endpoint, also ones
 * queued after it failed), at most `perEndpoint` of them, and none of an endpoint that still has a
 * leased delivery (one sender per endpoint at a time, in any process, so its deliveries arrive one
 * after the other). A worker that dies mid-attempt leaves a lease that runs out: the delivery is
 * taken again, with the same id.
 */
export async function leaseDueDeliveries(
  db: Q,
  limit: number,
  leaseMs: number,
  perEndpoint: number,
): Promise<Array<WebhookDeliveryRow & { url: string; secret: string }>> {
  const eventOrder = sql`(payload->>'timestamp')`;
  const due = sql`d2.status = 'pending' AND d2.next_attempt_at <= now() AND (d2.locked_until IS NULL OR d2.locked_until < now())`;
  const rows = await db.execute<{ id: string }>(sql`
    UPDATE jobs.webhook_deliveries d SET locked_until = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE d.id IN (
      SELECT d2.id FROM jobs.webhook_deliveries d2
      WHERE ${due} AND d2.id IN (
        SELECT ranked.id FROM (
          SELECT d2.id, row_number() OVER w AS n, bool_and(${due}) OVER w AS head_due
          FROM jobs.webhook_deliveries d2 JOIN jobs.webhook_endpoints e ON e.id = d2.endpoint_id
          WHERE d2.status = 'pending' AND e.disabled_at IS NULL AND NOT EXISTS (
            SELECT 1 FROM jobs.webhook_deliveries busy
            WHERE busy.endpoint_id = d2.endpoint_id AND busy.status = 'pending' AND busy.locked_until >= now()
          )
          WINDOW w AS (PARTITION BY d2.endpoint_id ORDER BY ${eventOrder}, d2.created_at, d2.id
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
        ) ranked WHERE ranked.head_due AND ranked.n <= ${perEndpoint}
      )
      ORDER BY d2.next_attempt_at LIMIT ${limit} FOR UPDATE OF d2 SKIP LOCKED
    ) RETURNING d.id`);
  const ids = rowsOf<{ id: string }>(rows).map((r) => r.id);
  if (!ids.length) return [];
  const found = await db
    .select({ d: webhookDeliveries, url: webhookEndpoints.url, secret: webhookEndpoints.secret })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(inArray(webhookDeliveries.id, ids))
    .orderBy(eventOrder, webhookDeliveries.createdAt, webhookDeliveries.id);
  return found.map((r) => ({ ...r.d, url: r.url, secret: r.secret }));
}

/**
 * An endpoint's delivery failed: the rest of its leased run is not tried now but after the failed
 * one's retry (`after`; at once when it will not be retried), so its events still arrive in order.
 */
export async function deferDeliveries(db: Q, ids: string[], after: Date | null): Promise<void> {
  if (!ids.length) return;
  await db
    .update(webhookDeliveries)
    .set({
      lockedUntil: null,
      ...(after
        ? { nextAttemptAt: sql`greatest(${webhookDeliveries.nextAttemptAt}, ${after})` }
        : {}),
    })
    .where(and(inArray(webhookDeliveries.id, ids), eq(webhookDeliveries.status, 'pending')));
}

export async function recordAttempt(
  db: Q,
  id: string,
  a: {
    ok: boolean;
    code: number | null;
    error: string | null;
    nextAttemptAt: Date | null;
    at: Date;
  },
): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({
      attempts: sql`${webhookDeliveries.attempts} + 1`,
      lastResponseCode: a.code,
      lastError: a.error,
      status: a.ok ? 'delivered' : a.nextAttemptAt ? 'pending' : 'failed',
      nextAttemptAt: a.ok ? null : a.nextAttemptAt,
      deliveredAt: a.ok ? a.at : null,
      lockedUntil: null,
    })
    .where(eq(webhookDeliveries.id, id));
}

/** A success clears the endpoint's run of failures; a failure starts one (when none runs). Returns failing_since. */
export async function noteEndpointOutcome(
  db: Q,
  endpointId: string,
  ok: boolean,
  at: Date,
): Promise<Date | null> {
  if (ok) {
    await db
      .update(webhookEndpoints)
      .set({ failingSince: null })
      .where(eq(webhookEndpoints.id, endpointId));
    return null;
  }
  const [row] = await db
    .update(webhookEndpoints)
    .set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${at})` })
    .where(eq(webhookEndpoints.id, endpointId))
    .returning({ failingSince: webhookEndpoints.failingSince });
  return row?.failingSince ?? null;
}

/** Disables the endpoint once: its owner and address for the call that did it, else undefined. */
export async function disableEndpoint(
  db: Q,
  endpointId: string,
  at: Date,
): Promise<{ ownerId: string; url: string } | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ disabledAt: at })
    .where(and(eq(webhookEndpoints.id, endpointId), sql`${webhookEndpoints.disabledAt} IS NULL`))
    .returning({ ownerId: webhookEndpoints.ownerId, url: webhookEndpoints.url });
  return row;
}
