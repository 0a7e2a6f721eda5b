import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { integer, pgSchema, text } from 'drizzle-orm/pg-core';
import {
  createTestDatabase,
  testRedisPrefix,
  TEST_REDIS_URL,
  type TestDatabase,
} from '@htm/service-kit/testing';
import { openDatabase, type DbHandle } from '@htm/service-kit';
import { sql } from 'drizzle-orm';
import {
  createEvent,
  handledEventsTable,
  handleOnce,
  insertHandledIds,
  OutboxRelay,
  outboxTable,
  pruneOutbox,
  RedisStreamsBus,
  ServiceEvents,
  writeOutbox,
  type EventEnvelope,
} from '../src/index.js';
import { waitFor } from './bus-contract.js';
import { fileURLToPath } from 'node:url';

// Two "services": A publishes through its outbox, B consumes idempotently into its own schema.
const a = pgSchema('svc_a');
const b = pgSchema('svc_b');
const outboxA = outboxTable(a);
const handledB = handledEventsTable(b);
const leadsA = a.table('leads', { id: text('id').primaryKey() });
const effectsB = b.table('effects', {
  leadId: text('lead_id').primaryKey(),
  applied: integer('applied').notNull(),
});

const DDL = (schema: string) => `
CREATE SCHEMA ${schema};
CREATE TABLE ${schema}.outbox (seq bigserial PRIMARY KEY, id uuid NOT NULL UNIQUE, type text NOT NULL, subject text NOT NULL,
  envelope jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz);
CREATE TABLE ${schema}.handled_events (event_id uuid PRIMARY KEY, type text NOT NULL, handled_at timestamptz NOT NULL DEFAULT now());`;

let tdb: TestDatabase;
let h: DbHandle;
const buses: RedisStreamsBus[] = [];
const relays: OutboxRelay[] = [];
const mkBus = (prefix: string) => {
  const bus = new RedisStreamsBus({
    url: TEST_REDIS_URL,
    prefix,
    partitions: 2,
    leaseMs: 1000,
    blockMs: 200,
  });
  buses.push(bus);
  return bus;
};
const mkRelay = (
  bus: RedisStreamsBus,
  extra: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {},
) => {
  const r = new OutboxRelay({
    db: h.db,
    table: outboxA,
    bus,
    lockName: 'svc_a',
    pollMs: 50,
    ...extra,
  });
  relays.push(r);
  return r;
};

beforeAll(async () => {
  tdb = await createTestDatabase('outbox');
  h = await openDatabase({
    schema: 'none',
    migrationsFolder: fileURLToPath(new URL('./fixtures/empty-migrations', import.meta.url)),
    databaseUrl: tdb.url,
  });
  await h.query(DDL('svc_a'));
  await h.query(DDL('svc_b'));
  await h.query(
    'CREATE TABLE svc_a.leads (id text PRIMARY KEY); CREATE TABLE svc_b.effects (lead_id text PRIMARY KEY, applied int NOT NULL)',
  );
});
// A relay left polling would take the advisory lock (and the rows) in the next test.
afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.stop()));
});
afterAll(async () => {
  await Promise.all(buses.map((x) => x.close()));
  await h?.close();
  await tdb?.drop();
});

/** Service A's use case: store a lead and its event in one transaction. */
async function createLead(id: string, opts: { fail?: boolean } = {}): Promise<EventEnvelope> {
  const e = createEvent('LeadReceived', id, { leadId: id, email: `${id}@gmail.com` });
  await h.db.transaction(async (tx) => {
    await tx.insert(leadsA).values({ id });
    await writeOutbox(tx, outboxA, [e]);
    if (opts.fail) throw new Error('rolled back');
  });
  return e;
}

/** Service B's consumer: counts applications per lead, idempotently. */
const consumer = (bus: RedisStreamsBus, seen: string[], name?: string) =>
  bus.subscribe({
    group: 'svc_b',
    sources: ['admin'],
    consumerName: name,
    handler: async (e) => {
      seen.push(e.id);
      await handleOnce(h.db, handledB, e, async (tx) => {
        const leadId = (e.data as { leadId: string }).leadId;
        await tx
          .insert(effectsB)
          .values({ leadId, applied: 1 })
          .onConflictDoUpdate({
            target: effectsB.leadId,
            set: { applied: sql`${effectsB.applied} + 1` },
          });
      });
    },
  });

const applied = async (leadId: string) =>
  (
    await h.query<{ applied: number }>('SELECT applied FROM svc_b.effects WHERE lead_id = $1', [
      leadId,
    ])
  )[0]?.applied ?? 0;

describe('transactional outbox and idempotent consumer', () => {
  it('delivers an event committed in one service to a consumer in another', async () => {
    const bus = mkBus(testRedisPrefix('ob1'));
    const seen: string[] = [];
    await consumer(bus, seen);
    mkRelay(bus).start();
    const e = await createLead('committed-1');
    await waitFor(async () => (await applied('committed-1')) === 1, 'the effect in svc_b');
    expect(seen).toContain(e.id);
    // The relay marks the row after the publish, so the consumer may finish first: wait for the mark.
    const published = async () =>
      (
        await h.query<{ published: boolean }>(
          'SELECT published_at IS NOT NULL AS published FROM svc_a.outbox WHERE id = $1',
          [e.id],
        )
      )[0]?.published;
    await waitFor(
      async () => (await published()) === true,
      'the outbox row marked published',
    ).catch(() => undefined);
    expect(await published()).toBe(true);
  });

  it('publishes nothing for a rolled-back transaction', async () => {
    const bus = mkBus(testRedisPrefix('ob2'));
    const relay = mkRelay(bus);
    await expect(createLead('rolled-back-1', { fail: true })).rejects.toThrow('rolled back');
    await relay.flush();
    const rows = await h.query("SELECT 1 FROM svc_a.outbox WHERE subject = 'rolled-back-1'");
    expect(rows).toEqual([]);
    const streams = await bus.redis.keys(`${bus.prefix}events:admin:*`);
    const entries = (await Promise.all(streams.map((s) => bus.redis.xrange(s, '-', '+')))).flat();
    expect(entries.filter(([, f]) => f[1].includes('rolled-back-1'))).toEqual([]);
  });

  it('applies once an event redelivered after its consumer died before acknowledging', async () => {
    const prefix = testRedisPrefix('ob3');
    const bus1 = mkBus(prefix);
    const bus2 = mkBus(prefix);
    // The first consumer applies the effect and commits, then dies before XACK.
    let died = false;
    const sub1 = (await bus1.subscribe({
      group: 'svc_b',
      sources: ['admin'],
      consumerName: 'dies',
      handler: async (e) => {
        await handleOnce(h.db, handledB, e, async (tx) => {
          await tx.insert(effectsB).values({ leadId: 'redelivered-1', applied: 1 });
        });
        died = true;
        await new Promise<void>(() => undefined);
      },
    })) as unknown as { kill(): Promise<void> };
    const relay = mkRelay(bus1);
    const e = await createLead('redelivered-1');
    await relay.flush();
    await waitFor(() => died, 'the first consumer to apply and die');
    await sub1.kill();
    const seen: string[] = [];
    await consumer(bus2, seen, 'survivor');
    await waitFor(() => seen.includes(e.id), 'redelivery to the survivor');
    expect(await applied('redelivered-1')).toBe(1);
  });

  it('ignores the duplicate a relay causes when it dies between publishing and marking', async () => {
    const prefix = testRedisPrefix('ob4');
    const bus = mkBus(prefix);
    const seen: string[] = [];
    await consumer(bus, seen);
    const crashing = mkRelay(bus, {
      afterPublish: () => {
        throw new Error('relay killed after publish');
      },
    });
    const e = await createLead('dup-1');
    await expect(crashing.runOnce()).rejects.toThrow('relay killed after publish');
    const [row] = await h.query<{ published: boolean }>(
      'SELECT published_at IS NOT NULL AS published FROM svc_a.outbox WHERE id = $1',
      [e.id],
    );
    expect(row.published).toBe(false);
    await mkRelay(bus).flush(); // a healthy relay publishes the same row again
    await waitFor(() => seen.filter((id) => id === e.id).length >= 2, 'the duplicate delivery');
    expect(await applied('dup-1')).toBe(1);
  });

  it('lets several relays run at once without publishing a row twice', async () => {
    const prefix = testRedisPrefix('ob5');
    const bus = mkBus(prefix);
    const seen: string[] = [];
    await consumer(bus, seen);
    const events: EventEnvelope[] = [];
    for (let i = 0; i < 40; i++) events.push(await createLead(`multi-${i}`));
    const rs = [mkRelay(bus), mkRelay(bus), mkRelay(bus)];
    await Promise.all(rs.map((r) => r.flush()));
    await waitFor(() => events.every((e) => seen.includes(e.id)), 'all 40 events');
    await new Promise((r) => setTimeout(r, 300));
    for (const e of events) expect(seen.filter((id) => id === e.id)).toHaveLength(1);
  });
});

describe('ServiceEvents.inTransaction', () => {
  it('sends the events of a committed transaction at once, and none of a rolled-back one', async () => {
    const bus = mkBus(testRedisPrefix('ob-intx'));
    const seen: string[] = [];
    await consumer(bus, seen);
    // The relay polls once a minute: only the wake-up after the commit can deliver within the wait.
    const events = new ServiceEvents({
      service: 'admin',
      db: h.db,
      outbox: outboxA,
      handled: handledB,
      bus,
      pollMs: 60_000,
    });
    await events.start({ consumers: false });
    try {
      await new Promise((r) => setTimeout(r, 200)); // the relay's first pass is over; it now sleeps
      const e = createEvent('LeadReceived', 'intx-1', {
        leadId: 'intx-1',
        email: 'intx-1@gmail.com',
      });
      const id = await events.inTransaction(async (tx) => {
        await tx.insert(leadsA).values({ id: 'intx-1' });
        await events.record(tx, e);
        return 'intx-1';
      });
      expect(id).toBe('intx-1');
      await waitFor(
        async () => (await applied('intx-1')) === 1,
        'the effect of the committed event',
        5_000,
      );

      const bad = createEvent('LeadReceived', 'intx-2', {
        leadId: 'intx-2',
        email: 'intx-2@gmail.com',
      });
      await expect(
        events.inTransaction(async (tx) => {
          await tx.insert(leadsA).values({ id: 'intx-2' });
          await events.record(tx, bad);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      const rows = await h.query('SELECT 1 FROM svc_a.outbox WHERE id = $1', [bad.id]);
      expect(rows).toHaveLength(0);
      expect(await h.query('SELECT 1 FROM svc_a.leads WHERE id = $1', ['intx-2'])).toHaveLength(0);
    } finally {
      await events.stop();
    }
  });
});

describe('ServiceEvents consumer: a backlog handled in batches', () => {
  it('handles each event once and in order per subject, one transaction per batch; an effect that fails mid-batch keeps the ones before it and is retried alone', async () => {
    const prefix = testRedisPrefix('ob-batch');
    const bus = mkBus(prefix);
    await h.query(
      'CREATE TABLE IF NOT EXISTS svc_b.batch_log (n serial PRIMARY KEY, lead_id text NOT NULL)',
    );
    // 30 events of one subject (one partition, one ordered run) and 10 of another, all published before the consumer starts.
    const events = [
      ...Array.from({ length: 30 }, (_, i) =>
        createEvent('LeadReceived', 'batch-subject-a', {
          leadId: `batch-a-${i}`,
          email: 'a@gmail.com',
        }),
      ),
      ...Array.from({ length: 10 }, (_, i) =>
        createEvent('LeadReceived', 'batch-subject-b', {
          leadId: `batch-b-${i}`,
          email: 'b@gmail.com',
        }),
      ),
    ];
    await h.db.transaction((tx) => writeOutbox(tx, outboxA, events));
    await mkRelay(bus).flush();
    let failures = 1;
    const logs: string[] = [];
    const logger = {
      debug: (_o: unknown, msg: string) => logs.push(msg),
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
      child: () => logger,
    } as unknown as ConstructorParameters<typeof ServiceEvents>[0]['logger'];
    const consumerEvents = new ServiceEvents({
      service: 'notifications',
      db: h.db,
      outbox: outboxTable(b),
      handled: handledB,
      bus,
      logger,
      handlers: {
        LeadReceived: async (e, tx) => {
          if (e.data.leadId === 'batch-a-17' && failures > 0) {
            failures--;
            throw new Error('effect failed once');
          }
          await tx.execute(sql`INSERT INTO svc_b.batch_log (lead_id) VALUES (${e.data.leadId})`);
          await tx
            .insert(effectsB)
            .values({ leadId: e.data.leadId, applied: 1 })
            .onConflictDoUpdate({
              target: effectsB.leadId,
              set: { applied: sql`${effectsB.applied} + 1` },
            });
        },
      },
    });
    await consumerEvents.start({ relay: false });
    try {
      await waitFor(
        async () =>
          (
            await h.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM svc_b.effects WHERE lead_id LIKE 'batch-%'",
            )
          )[0].n === 40,
        'all 40 effects',
        20_000,
      );
      const rows = await h.query<{ lead_id: string; applied: number }>(
        "SELECT lead_id, applied FROM svc_b.effects WHERE lead_id LIKE 'batch-%'",
      );
      expect(rows.filter((r) => r.applied !== 1)).toEqual([]);
      const log = (
        await h.query<{ lead_id: string }>(
          "SELECT lead_id FROM svc_b.batch_log WHERE lead_id LIKE 'batch-%' ORDER BY n",
        )
      ).map((r) => r.lead_id);
      expect(log).toHaveLength(40);
      for (const s of ['a', 'b']) {
        const mine = log
          .filter((l) => l.startsWith(`batch-${s}-`))
          .map((l) => Number(l.split('-')[2]));
        expect(mine).toEqual([...mine].sort((x, y) => x - y));
      }
      expect(failures).toBe(0);
      expect(logs).toContain('event batch handled');
      // Every entry acknowledged.
      await waitFor(
        async () => {
          const pending = await Promise.all(
            [0, 1].map(
              (p) =>
                bus.redis.xpending(bus.streamKey('admin', p), 'notifications') as Promise<[number]>,
            ),
          );
          return pending.every((x) => Number(x[0]) === 0);
        },
        'every entry acknowledged',
        10_000,
      );
    } finally {
      await consumerEvents.stop();
    }
  });
});

describe('pruneOutbox', () => {
  it('deletes the published rows older than the cutoff from the oldest on, and stops at the first row it must keep', async () => {
    await h.query(DDL('svc_p'));
    const table = outboxTable(pgSchema('svc_p'));
    const now = Date.now();
    const ago = (min: number) => new Date(now - min * 60_000);
    // seq order: six published long ago, one published a minute ago, one old one behind it, one never published.
    const published = [ago(90), ago(80), ago(70), ago(65), ago(62), ago(61), ago(1), ago(70), null];
    for (const [i, at] of published.entries()) {
      const e = createEvent('LeadReceived', `p${i}`, { leadId: `p${i}`, email: 'p@gmail.com' });
      await h.db.transaction(async (tx) => writeOutbox(tx, table, [e]));
      if (at) await h.query(`UPDATE svc_p.outbox SET published_at = $1 WHERE id = $2`, [at, e.id]);
    }
    const subjects = async () =>
      (await h.db.select({ s: table.subject }).from(table).orderBy(table.seq)).map((r) => r.s);

    // Two rows a round: the six old ones go in three rounds, then the recent row stops it.
    expect(await pruneOutbox(h.db, table, ago(60), 2)).toBe(6);
    expect(await subjects()).toEqual(['p6', 'p7', 'p8']);
    // Nothing older than the cutoff at the head: nothing more goes, and nothing after it is read.
    expect(await pruneOutbox(h.db, table, ago(60), 2)).toBe(0);
    expect(await subjects()).toEqual(['p6', 'p7', 'p8']);
    // Once the recent row is old enough too, the rows behind it follow; the unpublished one stays.
    expect(await pruneOutbox(h.db, table, new Date(now + 1000))).toBe(2);
    expect(await subjects()).toEqual(['p8']);
  });
});

describe('the same service code on PGlite and on Postgres', () => {
  const migrationsFolder = fileURLToPath(
    new URL('../../../services/admin/src/db/migrations', import.meta.url),
  );
  it.each(['pglite', 'postgres'] as const)(
    'runs migrations, an outbox round trip, the relay marking what it published and a consumer recording handled ids on %s',
    async (kind) => {
      const other = kind === 'postgres' ? await createTestDatabase('roundtrip') : undefined;
      const db = await openDatabase({
        schema: 'admin',
        migrationsFolder,
        databaseUrl: other?.url,
        dataDir: 'memory://',
      });
      try {
        expect(db.kind).toBe(kind);
        const table = outboxTable(pgSchema('admin'));
        const e = createEvent('LeadReceived', 'rt', { leadId: 'rt', email: 'rt@gmail.com' });
        await db.db.transaction(async (tx) => writeOutbox(tx, table, [e]));
        const rows = await db.db.select().from(table);
        expect(rows.map((r) => r.envelope)).toEqual([e]);
        // The relay marks what it published (one array parameter), on this driver too.
        const relay = new OutboxRelay({
          db: db.db,
          table,
          bus: mkBus(testRedisPrefix(`rt-${kind}`)),
          lockName: `rt-${kind}`,
        });
        expect(await relay.runOnce()).toBe(1);
        expect(await relay.runOnce()).toBe(0);
        const [marked] = await db.db.select().from(table);
        expect(marked.publishedAt).toBeInstanceOf(Date);
        // The prune's walk from the oldest row and its delete, on this driver too.
        expect(await pruneOutbox(db.db, table, new Date(Date.now() + 1000))).toBe(1);
        expect(await db.db.select().from(table)).toEqual([]);
        // A consumer's handled ids (two array parameters): new the first time, known the second.
        const handled = handledEventsTable(pgSchema('admin'));
        const f = createEvent('LeadReceived', 'rt2', { leadId: 'rt2', email: 'rt@gmail.com' });
        expect(await insertHandledIds(db.db, handled, [e, f])).toEqual([e.id, f.id]);
        expect(await insertHandledIds(db.db, handled, [f])).toEqual([]);
        const ids = await db.db.select().from(handled);
        expect(ids.map((r) => [r.eventId, r.type]).sort()).toEqual(
          [
            [e.id, 'LeadReceived'],
            [f.id, 'LeadReceived'],
          ].sort(),
        );
        // Migrations are idempotent on a second start.
        const again = await openDatabase({
          schema: 'admin',
          migrationsFolder,
          databaseUrl: other?.url,
          dataDir: 'memory://',
        });
        await again.close();
      } finally {
        await db.close();
        await other?.drop();
      }
    },
  );
});
