import { and, asc, eq, gte, isNotNull, isNull, lt, lte, sql } from 'drizzle-orm';
import { bigserial, index, jsonb, text, timestamp, uuid, type PgSchema } from 'drizzle-orm/pg-core';
import type { Logger } from 'pino';
import { rowsOf, tryAdvisoryLock, type Db, type Tx } from '@htm/service-kit/db';
import type { EventBus } from './bus.js';
import type { EventEnvelope } from './envelope.js';
import type { EventSource } from './catalogue.js';

/** The outbox table, declared in each service's own schema (add it to the service's schema.ts). */
export function outboxTable(schema: PgSchema) {
  return schema.table(
    'outbox',
    {
      seq: bigserial('seq', { mode: 'number' }).primaryKey(),
      id: uuid('id').notNull().unique(),
      type: text('type').notNull(),
      subject: text('subject').notNull(),
      envelope: jsonb('envelope').$type<EventEnvelope>().notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
      publishedAt: timestamp('published_at', { withTimezone: true }),
    },
    (t) => [
      index('outbox_unpublished_idx')
        .on(t.seq)
        .where(sql`published_at IS NULL`),
    ],
  );
}
export type OutboxTable = ReturnType<typeof outboxTable>;

/** Event ids a consumer has applied, in the consumer's own schema. */
export function handledEventsTable(schema: PgSchema) {
  return schema.table('handled_events', {
    eventId: uuid('event_id').primaryKey(),
    type: text('type').notNull(),
    handledAt: timestamp('handled_at', { withTimezone: true }).notNull().defaultNow(),
  });
}
export type HandledEventsTable = ReturnType<typeof handledEventsTable>;

/** Writes events to the outbox inside the caller's transaction (same commit as the state change). */
export async function writeOutbox(
  tx: Tx | Db,
  table: OutboxTable,
  events: readonly EventEnvelope[],
): Promise<void> {
  if (!events.length) return;
  await tx
    .insert(table)
    .values(events.map((e) => ({ id: e.id, type: e.type, subject: e.subject, envelope: e })));
}

export interface OutboxRelayOptions {
  db: Db;
  table: OutboxTable;
  bus: EventBus;
  /** Names the advisory lock: one active relay per service schema at a time keeps order. */
  lockName: string;
  logger?: Logger;
  pollMs?: number;
  batchSize?: number;
  /** Published rows older than this are deleted (default 7 days), never rows the consumers have not confirmed yet. */
  retentionMs?: number;
  /**
   * The source whose streams this relay fills: with a transport that can lose its history (Redis
   * Streams), every `historyCheckMs` the relay checks the marker written with the streams; gone
   * (Redis wiped, or restarted without its data) means events consumers had not confirmed may
   * be lost, so every row published since the last confirmed point is published again.
   */
  source?: EventSource;
  /** How often the relay looks at the streams' history marker (default 5 s). */
  historyCheckMs?: number;
  /** Published rows counted (the published side of the published/consumed gap metric). */
  onPublished?: (n: number) => void;
  /** Rows published again after a lost history. */
  onRepublished?: (n: number) => void;
  /** Test hook: runs after publishing, before marking rows (throw to simulate a crash there). */
  afterPublish?: (events: EventEnvelope[]) => void | Promise<void>;
  /**
   * The service's own effects of the events it recorded (jobs: its timers), told of each batch once
   * it is published and marked. Not awaited and never holding the events back: at least once per
   * pass (a relay that dies before marking publishes and tells again), and what it loses (a crash
   * right after the mark, its own failure) the service must be able to rebuild (jobs' timer reconciler).
   */
  relayed?: (events: EventEnvelope[]) => void;
}

/**
 * Deletes the published rows older than `cutoff`, oldest first along the primary key, `batch`
 * rows a round: each round reads the rows it drops and stops at the first one it must keep (not
 * yet published, or published since). A plain `published_at < cutoff` has no index to use and
 * would read the whole retention's outbox (a week of events) every minute. Rows are published
 * in seq order, so the ones to drop are the oldest. Resolves with the number deleted.
 */
export async function pruneOutbox(
  db: Db,
  table: OutboxTable,
  cutoff: Date,
  batch = 2000,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const head = await db
      .select({ seq: table.seq, publishedAt: table.publishedAt })
      .from(table)
      .orderBy(asc(table.seq))
      .limit(batch);
    const keep = head.findIndex((r) => !r.publishedAt || r.publishedAt >= cutoff);
    const drop = keep === -1 ? head : head.slice(0, keep);
    if (!drop.length) return deleted;
    const gone = await db
      .delete(table)
      .where(and(lte(table.seq, drop[drop.length - 1].seq), lt(table.publishedAt, cutoff)))
      .returning({ seq: table.seq });
    deleted += gone.length;
    if (keep !== -1 || head.length < batch) return deleted;
  }
}

/** Stream ids (Redis clock) and published_at (this process's clock) may differ by this much. */
const CLOCK_SLACK_MS = 60_000;

/**
 * Publishes committed outbox rows in order and marks them. Safe with several instances: a
 * transaction-scoped advisory lock lets one relay work at a time; a relay that dies between
 * publish and mark leaves rows unmarked, so they are published again (consumers are idempotent).
 */
export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private running = false;
  private active?: Promise<number>;
  private wake?: () => void;
  private loopDone?: Promise<void>;
  private lastCleanup = 0;
  private lastHistoryCheck = 0;
  /** This process has seen the history marker (so its absence now means a wipe). */
  private historySeen = false;
  /** Up to when every consumer group had confirmed everything, at the last look. */
  private confirmedThrough?: Date;

  constructor(private readonly opts: OutboxRelayOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** Wakes the relay now (call after a commit that wrote events). */
  kick(): void {
    this.wake?.();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let published = 0;
      try {
        published = await this.runOnce();
      } catch (err) {
        this.opts.logger?.warn(
          { err: (err as Error).message },
          'outbox relay pass failed; will retry',
        );
      }
      if (published > 0) continue;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(resolve, this.opts.pollMs ?? 200);
      });
      clearTimeout(this.timer);
      this.wake = undefined;
    }
  }

  /** One pass: publishes up to batchSize pending rows. Returns how many were published. */
  runOnce(): Promise<number> {
    const p = (this.active ?? Promise.resolve(0)).catch(() => 0).then(() => this.pass());
    this.active = p;
    return p;
  }

  private async pass(): Promise<number> {
    const { db, table, bus } = this.opts;
    // One relay per service at a time (keeps order). The lock is a session-level advisory lock:
    // no transaction stays open while the events go to Redis/Kafka, so a Postgres restart or a
    // slow broker never leaves a backend idle in transaction. A crash between publish and mark
    // leaves rows unmarked: they are published again (consumers are idempotent).
    const lock = await tryAdvisoryLock(db, `outbox:${this.opts.lockName}`);
    if (!lock) return 0;
    let n = 0;
    try {
      if (Date.now() - this.lastHistoryCheck >= (this.opts.historyCheckMs ?? 5000)) {
        this.lastHistoryCheck = Date.now();
        await this.checkHistory();
      }
      const rows = await db
        .select({ seq: table.seq, envelope: table.envelope })
        .from(table)
        .where(isNull(table.publishedAt))
        .orderBy(asc(table.seq))
        .limit(this.opts.batchSize ?? 500);
      if (rows.length) {
        const events = rows.map((r) => r.envelope);
        await bus.publish(events);
        await this.opts.afterPublish?.(events);
        // The seqs as one array parameter: building a 500-parameter IN list cost more CPU than the rest of the pass.
        await db
          .update(table)
          .set({ publishedAt: new Date() })
          .where(sql`${table.seq} = ANY(${sql.param(rows.map((r) => r.seq))}::bigint[])`);
        n = rows.length;
        this.opts.onPublished?.(n);
        try {
          this.opts.relayed?.(events);
        } catch (err) {
          this.opts.logger?.warn({ err: (err as Error).message }, 'outbox relayed hook failed');
        }
      }
    } finally {
      await lock.release();
    }
    if (Date.now() - this.lastCleanup > 60_000) {
      this.lastCleanup = Date.now();
      // Never rows published after the last point every consumer confirmed: a wipe would need them again.
      const retained = Date.now() - (this.opts.retentionMs ?? 7 * 24 * 3600_000);
      const cutoff = new Date(
        this.confirmedThrough
          ? Math.min(retained, this.confirmedThrough.getTime() - CLOCK_SLACK_MS)
          : retained,
      );
      await pruneOutbox(db, table, cutoff).catch((err: unknown) =>
        this.opts.logger?.warn({ err: (err as Error).message }, 'outbox prune failed; next minute'),
      );
    }
    return n;
  }

  /**
   * The streams lost their history when their marker is gone and either this process saw it
   * before, or the streams are empty (a fresh Redis; a first start of this release finds its
   * streams full and only writes the marker). Then every row published since the last point the
   * consumers confirmed (or within the retention, when this process never looked) is marked
   * unpublished, and this relay publishes it again in order: consumers skip what they had handled.
   */
  private async checkHistory(): Promise<void> {
    const { bus, source, db, table } = this.opts;
    if (!source || !bus.streamHistory || !bus.markHistory) return;
    const h = await bus.streamHistory(source);
    if (h.marked) {
      this.historySeen = true;
      if (h.confirmedThrough) this.confirmedThrough = h.confirmedThrough;
      return;
    }
    if (this.historySeen || h.entries === 0) {
      const from =
        this.confirmedThrough?.getTime() ??
        Date.now() - (this.opts.retentionMs ?? 7 * 24 * 3600_000);
      const since = new Date(from - CLOCK_SLACK_MS);
      const again = await db
        .update(table)
        .set({ publishedAt: null })
        .where(and(isNotNull(table.publishedAt), gte(table.publishedAt, since)))
        .returning({ seq: table.seq });
      if (again.length || this.historySeen)
        this.opts.logger?.warn(
          { source, republished: again.length, since: since.toISOString() },
          'event streams lost their history (Redis wiped or restarted without its data): publishing again every event since the consumers last confirmed',
        );
      if (again.length) this.opts.onRepublished?.(again.length);
    }
    await bus.markHistory(source);
    this.historySeen = true;
  }

  /** Publishes everything pending now (used at shutdown and in tests). */
  async flush(): Promise<void> {
    for (let i = 0; i < 1000; i++) {
      if ((await this.runOnce()) === 0) return;
    }
  }

  /** Up to when the consumers had confirmed everything at the relay's last look (undefined: not looked yet). */
  get historyConfirmedThrough(): Date | undefined {
    return this.confirmedThrough;
  }

  /** Unpublished rows (the outbox backlog metric). */
  async backlog(): Promise<number> {
    const r = await this.opts.db
      .select({ n: sql<number>`count(*)::int` })
      .from(this.opts.table)
      .where(isNull(this.opts.table.publishedAt));
    return Number(r[0]?.n ?? 0);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.kick();
    await this.loopDone;
    await this.active?.catch(() => undefined);
  }
}

/**
 * Records the handled ids of `events` in one statement and answers the ids that were new (an id
 * already there was handled before). The ids go as two array parameters: drizzle's multi-row
 * insert builds its SQL parameter by parameter, which cost more CPU than the rest of a batch.
 */
export async function insertHandledIds(
  tx: Tx | Db,
  table: HandledEventsTable,
  events: ReadonlyArray<Pick<EventEnvelope, 'id' | 'type'>>,
): Promise<string[]> {
  const r = await tx.execute(
    sql`INSERT INTO ${table} (event_id, type)
        SELECT * FROM unnest(${sql.param(events.map((e) => e.id))}::uuid[], ${sql.param(events.map((e) => e.type))}::text[])
        ON CONFLICT DO NOTHING RETURNING event_id`,
  );
  return rowsOf<{ event_id: string }>(r).map((row) => row.event_id);
}

/** Whether the consumer applied this event (its id is recorded: e.g. a UserDeleted's erasure committed). */
export async function wasHandled(
  db: Db | Tx,
  table: HandledEventsTable,
  eventId: string,
): Promise<boolean> {
  const [row] = await db
    .select({ id: table.eventId })
    .from(table)
    .where(eq(table.eventId, eventId))
    .limit(1);
  return Boolean(row);
}

/**
 * Applies an event's effect once: records the event id in the consumer's schema in the same
 * transaction as the effect. A redelivered event finds its id and does nothing.
 * Returns false when the event had already been handled.
 */
export async function handleOnce(
  db: Db,
  table: HandledEventsTable,
  event: Pick<EventEnvelope, 'id' | 'type'>,
  effect: (tx: Tx) => Promise<void>,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(table)
      .values({ eventId: event.id, type: event.type })
      .onConflictDoNothing()
      .returning({ id: table.eventId });
    if (!inserted.length) return false;
    await effect(tx);
    return true;
  });
}
