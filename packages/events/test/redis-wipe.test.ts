/**
 * Redis loses its data while a consumer lags (a wipe, a restart without persistence, a failover to
 * an empty replica): the consumer group is re-created on a new, empty stream and the outbox rows
 * were already marked published. The relay notices the streams' history marker is gone and
 * publishes again every row since the point the consumers had confirmed; the idempotent consumer
 * applies every event exactly once. Only this file's Redis keys are deleted (its own prefix:
 * other test files share this Redis).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { integer, pgSchema, text } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import {
  createTestDatabase,
  testRedisPrefix,
  TEST_REDIS_URL,
  type TestDatabase,
} from '@htm/service-kit/testing';
import { openDatabase, type DbHandle } from '@htm/service-kit';
import {
  createEvent,
  handledEventsTable,
  handleOnce,
  OutboxRelay,
  outboxTable,
  RedisStreamsBus,
  writeOutbox,
  type EventEnvelope,
} from '../src/index.js';
import { waitFor } from './bus-contract.js';

const src = pgSchema('wipe_src');
const dst = pgSchema('wipe_dst');
const outbox = outboxTable(src);
const handled = handledEventsTable(dst);
const effects = dst.table('effects', {
  leadId: text('lead_id').primaryKey(),
  applied: integer('applied').notNull(),
});

let tdb: TestDatabase;
let h: DbHandle;
let bus: RedisStreamsBus;
let relay: OutboxRelay;
const prefix = testRedisPrefix('wipe');
beforeAll(async () => {
  tdb = await createTestDatabase('redis_wipe');
  h = await openDatabase({
    schema: 'none',
    migrationsFolder: fileURLToPath(new URL('./fixtures/empty-migrations', import.meta.url)),
    databaseUrl: tdb.url,
  });
  await h.query(`CREATE SCHEMA wipe_src; CREATE SCHEMA wipe_dst;
    CREATE TABLE wipe_src.outbox (seq bigserial PRIMARY KEY, id uuid NOT NULL UNIQUE, type text NOT NULL, subject text NOT NULL,
      envelope jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz);
    CREATE TABLE wipe_dst.handled_events (event_id uuid PRIMARY KEY, type text NOT NULL, handled_at timestamptz NOT NULL DEFAULT now());
    CREATE TABLE wipe_dst.effects (lead_id text PRIMARY KEY, applied int NOT NULL);`);
  bus = new RedisStreamsBus({
    url: TEST_REDIS_URL,
    prefix,
    partitions: 2,
    leaseMs: 1000,
    blockMs: 100,
  });
}, 60_000);
afterAll(async () => {
  await relay?.stop();
  await bus?.close();
  await h?.close();
  await tdb?.drop();
});

/** Deletes every key of this file's prefix (never FLUSHALL: other test files share this Redis). */
async function wipeOwnKeys(): Promise<number> {
  let cursor = '0';
  let n = 0;
  do {
    const [next, keys] = await bus.redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length) n += await bus.redis.del(...keys);
  } while (cursor !== '0');
  return n;
}

const applied = async () =>
  h.query<{ lead_id: string; applied: number }>('SELECT lead_id, applied FROM wipe_dst.effects');

describe('Redis wiped while a consumer lags', () => {
  it('publishes again every event the consumers had not confirmed; each is applied exactly once', async () => {
    const N = 30;
    const CONFIRMED = 10;
    let republished = 0;
    relay = new OutboxRelay({
      db: h.db,
      table: outbox,
      bus,
      lockName: 'wipe_src',
      pollMs: 50,
      source: 'admin',
      historyCheckMs: 100,
      onRepublished: (n) => (republished += n),
    });
    relay.start();

    // The consumer handles the first CONFIRMED events, then stalls (a slow or stuck consumer).
    let gate!: () => void;
    const stalled = new Promise<void>((r) => (gate = r));
    let deliveries = 0;
    await bus.subscribe({
      group: 'wipe_dst',
      sources: ['admin'],
      handler: async (e) => {
        const lead = (e.data as { leadId: string }).leadId;
        if (Number(lead.split('-')[1]) >= CONFIRMED) await stalled;
        deliveries++;
        await handleOnce(h.db, handled, e, async (tx) => {
          await tx
            .insert(effects)
            .values({ leadId: lead, applied: 1 })
            .onConflictDoUpdate({
              target: effects.leadId,
              set: { applied: sql`${effects.applied} + 1` },
            });
        });
      },
    });
    const events: EventEnvelope[] = [];
    for (let i = 0; i < N; i++) {
      // One subject: one partition, so the stall holds everything after it (as a lagging consumer would).
      const e = createEvent('LeadReceived', 'lead-stream', {
        leadId: `lead-${i}`,
        email: `wipe${i}@gmail.com`,
      });
      events.push(e);
      await writeOutbox(h.db, outbox, [e]);
    }
    relay.kick();
    await waitFor(
      async () =>
        (
          await h.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM wipe_src.outbox WHERE published_at IS NULL',
          )
        )[0].n === 0,
      'every row published',
    );
    await waitFor(
      async () => (await applied()).length === CONFIRMED,
      `the first ${CONFIRMED} applied`,
    );
    // The relay has looked at the streams since: it knows how far the consumer confirmed.
    await waitFor(
      async () => (await bus.redis.exists(bus.historyKey('admin'))) === 1,
      'the history marker written',
    );
    await waitFor(
      () => relay.historyConfirmedThrough !== undefined,
      'the relay read how far the consumers confirmed',
    );

    const wipedAt = Date.now();
    const deleted = await wipeOwnKeys();
    gate(); // the consumer goes on: the entries it held are gone with the stream
    await waitFor(
      async () => (await applied()).length === N,
      `all ${N} events applied after the wipe`,
      30_000,
    );
    const healedIn = Date.now() - wipedAt;
    await waitFor(
      async () =>
        (
          await h.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM wipe_src.outbox WHERE published_at IS NULL',
          )
        )[0].n === 0,
      'the republished rows marked again',
    );

    const rows = await applied();
    const duplicates = rows.filter((r) => r.applied > 1).length;
    console.log(
      `redis keys wiped ${deleted} with ${N - CONFIRMED} of ${N} events unconfirmed: published ${N}, republished ${republished}, applied ${rows.length}, duplicates ${duplicates}, deliveries ${deliveries}, time to heal ${healedIn} ms`,
    );
    expect(rows.map((r) => r.lead_id).sort()).toEqual(
      events.map((e) => (e.data as { leadId: string }).leadId).sort(),
    );
    expect(duplicates).toBe(0);
    expect(republished).toBeGreaterThanOrEqual(N - CONFIRMED);
    expect(await bus.deadLetterCount('wipe_dst')).toBe(0);
  }, 60_000);

  it('counts a consumer group that never read as confirmed from its creation, not the epoch: a wipe republishes nothing from before it', async () => {
    await relay.stop();
    await wipeOwnKeys();
    // A week of history, published and consumed before the group below was created.
    await h.query(`DELETE FROM wipe_src.outbox`);
    for (let i = 0; i < 12; i++)
      await writeOutbox(h.db, outbox, [
        createEvent('LeadReceived', `old-${i}`, { leadId: `old-${i}`, email: `old${i}@gmail.com` }),
      ]);
    await h.query(`UPDATE wipe_src.outbox SET published_at = now() - interval '2 days'`);
    // A new consumer group on every partition of the source's streams; nothing new is published, so it never reads.
    let read = 0;
    const sub = await bus.subscribe({
      group: 'wipe_never_read',
      sources: ['admin'],
      handler: async () => void read++,
    });
    let republished = 0;
    relay = new OutboxRelay({
      db: h.db,
      table: outbox,
      bus,
      lockName: 'wipe_src',
      pollMs: 50,
      source: 'admin',
      historyCheckMs: 100,
      onRepublished: (n) => (republished += n),
    });
    try {
      await bus.markHistory('admin'); // the streams' history as an earlier relay left it
      relay.start();
      await waitFor(
        () => relay.historyConfirmedThrough !== undefined,
        'the relay read how far the consumers confirmed',
      );
      expect(relay.historyConfirmedThrough!.getTime()).toBeGreaterThan(Date.now() - 60_000);
      // Redis loses its data: the relay sees the marker gone and publishes again what was not confirmed.
      await wipeOwnKeys();
      await waitFor(
        async () => (await bus.redis.exists(bus.historyKey('admin'))) === 1,
        'the relay to look again and write the marker',
      );
      expect(republished).toBe(0);
      expect(
        (
          await h.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM wipe_src.outbox WHERE published_at IS NULL',
          )
        )[0].n,
      ).toBe(0);
      expect(read).toBe(0);
    } finally {
      await sub.stop();
    }
  }, 60_000);
});
