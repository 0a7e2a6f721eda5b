/**
 * scripts/events-cli.ts against a real Redis (Redis Streams transport): an event whose handler
 * always fails lands in the group's dead letters, `dead-letters` lists it, `replay` puts it back
 * on its stream, and a working consumer of the same group then receives it. `tail` prints events.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createEvent, RedisStreamsBus, type EventEnvelope, type Subscription } from '@htm/events';
import { createTestDatabase, testRedisPrefix, TEST_REDIS_URL } from '@htm/service-kit/testing';
import pg from 'pg';
import { runCli } from '../../scripts/events-cli.js';

const prefix = testRedisPrefix('events-cli');
const env = { EVENT_BUS: 'redis', REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix };
let bus: RedisStreamsBus;

async function cli(
  args: string[],
  e: Record<string, string> = env,
): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  // A tail that never sees its events stops after 20 s (and the test fails) instead of hanging.
  const code = await runCli(args, {
    env: e,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    signal: AbortSignal.timeout(20_000),
  });
  return { code, out, err };
}

async function until<T>(
  what: string,
  f: () => Promise<T | undefined | false>,
  tries = 200,
): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await f();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

beforeAll(() => {
  bus = new RedisStreamsBus({
    url: TEST_REDIS_URL,
    prefix,
    retryBackoffMs: 1,
    leaseMs: 3000,
    blockMs: 100,
  });
});
afterAll(async () => {
  const keys = await bus.redis.keys(`${prefix}*`);
  if (keys.length) await bus.redis.del(...keys);
  await bus.close();
});

describe('events CLI', () => {
  it('lists a dead letter, replays it, and a good handler of the same group then receives it', async () => {
    const event = createEvent(
      'LeadReceived',
      'lead-1',
      { leadId: 'lead-1', email: 'someone@gmail.com' },
      { correlationId: 'cli-test' },
    );
    const failing: Subscription = await bus.subscribe({
      group: 'analytics',
      sources: ['admin'],
      maxAttempts: 1,
      handler: async () => {
        throw new Error('handler is broken');
      },
    });
    await bus.publish([event]);
    const letters = await until('the dead letter', async () => {
      const l = await bus.deadLetters('analytics');
      return l.length ? l : undefined;
    });
    await failing.stop();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      group: 'analytics',
      error: 'handler is broken',
      attempts: 1,
      event: { id: event.id },
    });

    const listed = await cli(['dead-letters', 'analytics']);
    expect(listed.code).toBe(0);
    expect(listed.out[0]).toContain(letters[0].id);
    expect(listed.out[0]).toContain('LeadReceived');
    expect(listed.out[0]).toContain('handler is broken');
    const json = await cli(['dead-letters', 'analytics', '--json']);
    expect(JSON.parse(json.out[0])).toMatchObject({ id: letters[0].id, event: { id: event.id } });

    const unknownId = await cli(['replay', 'analytics', '0-1']);
    expect(unknownId.code).toBe(1);
    expect(unknownId.out).toEqual(['replayed 0 dead letter(s) of group analytics']);
    expect(await bus.deadLetters('analytics')).toHaveLength(1);

    const replayed = await cli(['replay', 'analytics', letters[0].id]);
    expect(replayed).toMatchObject({
      code: 0,
      out: ['replayed 1 dead letter(s) of group analytics'],
    });
    expect(await bus.deadLetters('analytics')).toEqual([]);
    expect((await cli(['dead-letters', 'analytics'])).out).toEqual([
      'no dead letters for group analytics',
    ]);

    const received: EventEnvelope[] = [];
    const good = await bus.subscribe({
      group: 'analytics',
      sources: ['admin'],
      handler: async (e) => void received.push(e),
    });
    try {
      await until('the replayed event', async () => received.length > 0);
    } finally {
      await good.stop();
    }
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      id: event.id,
      type: 'LeadReceived',
      subject: 'lead-1',
      correlationId: 'cli-test',
      data: { email: 'someone@gmail.com' },
    });
  });

  it('tail prints the events of a source', async () => {
    const tailPrefix = testRedisPrefix('events-cli-tail');
    const tailBus = new RedisStreamsBus({ url: TEST_REDIS_URL, prefix: tailPrefix });
    const events = ['a', 'b', 'c', 'd', 'e'].map((s) =>
      createEvent('FeedbackReceived', `fb-${s}`, {
        feedbackId: `fb-${s}`,
        email: `${s}@gmail.com`,
        pageUrl: null,
      }),
    );
    try {
      await tailBus.publish(events);
      await tailBus.publish([
        createEvent('JobsCleared', 'all-jobs', { jobsDeleted: 0, submissionsDeleted: 0 }),
      ]);
      const r = await cli(['tail', 'admin', '--from-start', '--count', '5'], {
        ...env,
        REDIS_PREFIX: tailPrefix,
      });
      expect(r.code).toBe(0);
      const printed = r.out.map((l) => JSON.parse(l) as EventEnvelope);
      expect(printed.map((e) => e.id).sort()).toEqual(events.map((e) => e.id).sort());
      expect(printed.every((e) => e.source === 'admin')).toBe(true);
    } finally {
      const keys = await tailBus.redis.keys(`${tailPrefix}*`);
      if (keys.length) await tailBus.redis.del(...keys);
      await tailBus.close();
    }
  });

  it('tail without --from-start prints only what arrives after it starts', async () => {
    const later = createEvent('FeedbackReceived', 'fb-later', {
      feedbackId: 'fb-later',
      email: 'later@gmail.com',
      pageUrl: '/x',
    });
    const tail = cli(['tail', 'admin', '--count', '1']);
    // Wait until tail has pinned the stream ends (its first XREAD is blocking), then publish.
    await until('tail to block', async () => {
      const clients = String(await bus.redis.client('LIST')).split('\n');
      return clients.some(
        (c) => c.includes(`name=events-cli-tail-${process.pid} `) && c.includes('cmd=xread '),
      );
    });
    await bus.publish([later]);
    const r = await tail;
    expect(r.code).toBe(0);
    expect(r.out.map((l) => (JSON.parse(l) as EventEnvelope).id)).toEqual([later.id]);
  });

  it('answers usage errors with exit code 2', async () => {
    expect((await cli([])).code).toBe(2);
    expect((await cli(['tail', 'nowhere'])).code).toBe(2);
    expect((await cli(['replay'])).code).toBe(2);
    expect((await cli(['frobnicate'])).code).toBe(2);
    const help = await cli(['help']);
    expect(help.code).toBe(0);
    expect(help.out[0]).toContain('dead-letters <group>');
    expect((await cli(['republish'])).code).toBe(2);
    expect((await cli(['republish', '--since', 'yesterday-ish'])).code).toBe(2);
    expect((await cli(['republish', '--since', '2026-01-01T00:00:00Z'])).err[0]).toContain(
      'DATABASE_URL',
    );
  });

  it('republish --since marks the outbox rows published since then to be published again', async () => {
    const db = await createTestDatabase('events_cli');
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      await c.query(`CREATE SCHEMA admin; CREATE TABLE admin.outbox (seq bigserial PRIMARY KEY, id uuid NOT NULL UNIQUE, type text NOT NULL,
        subject text NOT NULL, envelope jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz)`);
      await c.query(`INSERT INTO admin.outbox (id, type, subject, envelope, published_at) VALUES
        (gen_random_uuid(), 'LeadReceived', 'a', '{}', '2026-11-26T01:00:00Z'),
        (gen_random_uuid(), 'LeadReceived', 'b', '{}', '2026-11-26T02:00:00Z'),
        (gen_random_uuid(), 'LeadReceived', 'c', '{}', '2026-11-26T03:00:00Z')`);
      const r = await cli(['republish', '--since', '2026-11-26T01:30:00Z'], {
        ...env,
        DATABASE_URL: db.url,
      });
      expect(r.code).toBe(0);
      expect(r.out).toContain('admin: 2 event(s) marked to publish again');
      expect(r.out).toContain('jobs: no outbox here');
      const left = await c.query<{ subject: string }>(
        'SELECT subject FROM admin.outbox WHERE published_at IS NULL ORDER BY subject',
      );
      expect(left.rows.map((x) => x.subject)).toEqual(['b', 'c']);
    } finally {
      await c.end();
      await db.drop();
    }
  });
});
