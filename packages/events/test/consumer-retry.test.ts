/**
 * A database blip of a few seconds must not dead-letter events: the consumer retries transient
 * errors (connection refused or cut, serialization failures, timeouts) with backoff for minutes,
 * and keeps dead letters for errors a retry cannot fix. The blip is real: the handler talks to
 * the real Postgres through a TCP proxy that drops and refuses every connection for 2 s.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import {
  testRedisPrefix,
  TcpProxy,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
} from '@htm/service-kit/testing';
import {
  createEvent,
  isTransientError,
  PermanentEventError,
  RedisStreamsBus,
} from '../src/index.js';
import { waitFor } from './bus-contract.js';

const target = new URL(TEST_DATABASE_URL);
const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
let pool: pg.Pool;
const buses: RedisStreamsBus[] = [];
beforeAll(async () => {
  await proxy.start();
  const u = new URL(TEST_DATABASE_URL);
  u.port = String(proxy.port);
  pool = new pg.Pool({ connectionString: u.toString(), max: 2, connectionTimeoutMillis: 1000 });
  pool.on('error', () => undefined);
  pool.on('connect', (c) => c.on('error', () => undefined));
});
afterAll(async () => {
  await Promise.all(buses.map((b) => b.close()));
  await pool.end().catch(() => undefined);
  await proxy.close();
});

const mkBus = (extra: Partial<ConstructorParameters<typeof RedisStreamsBus>[0]> = {}) => {
  const b = new RedisStreamsBus({
    url: TEST_REDIS_URL,
    prefix: testRedisPrefix('retry'),
    partitions: 1,
    leaseMs: 3000,
    blockMs: 200,
    ...extra,
  });
  buses.push(b);
  return b;
};
const lead = (i: number) =>
  createEvent('LeadReceived', `lead-${i}`, { leadId: `lead-${i}`, email: `lead${i}@gmail.com` });

describe('consumer retries', () => {
  it('handles every event of a 2 s database blip once it is over, with no dead letter', async () => {
    const b = mkBus();
    const handled: string[] = [];
    const errors: string[] = [];
    await b.subscribe({
      group: 'blip',
      sources: ['admin'],
      handler: async (e) => {
        try {
          await pool.query('SELECT $1::text AS id', [e.id]);
        } catch (err) {
          errors.push((err as Error).message);
          throw err;
        }
        handled.push(e.id);
      },
    });
    const events = [1, 2, 3, 4, 5].map(lead);
    proxy.cut();
    await b.publish(events);
    await waitFor(
      () => errors.length >= 6,
      'the handler to fail more often than the old budget allowed (5 attempts)',
      10_000,
    );
    await new Promise((r) => setTimeout(r, 2000));
    proxy.down = false;
    await waitFor(
      () => handled.length === events.length,
      'every event handled after the blip',
      30_000,
    );
    expect(handled).toEqual(events.map((e) => e.id));
    expect(await b.deadLetters('blip')).toEqual([]);
    expect(await b.deadLetterCount('blip')).toBe(0);
  }, 40_000);

  it('handles an event whose handler hits a full disk (53100) more often than maxAttempts, with no dead letter', async () => {
    const b = mkBus({ retry: { baseDelayMs: 10, maxDelayMs: 40 } });
    const failures = 12; // more than maxAttempts (5): a full disk is a resource error, retried until it clears
    let calls = 0;
    const handled: string[] = [];
    await b.subscribe({
      group: 'diskfull',
      sources: ['admin'],
      handler: async (e) => {
        if (++calls <= failures)
          throw new Error('Failed query: insert into "payments"."handled_events"', {
            cause: Object.assign(
              new Error('could not extend file "base/16384/16500": No space left on device'),
              { code: '53100', severity: 'ERROR' },
            ),
          });
        handled.push(e.id);
      },
    });
    const e = lead(53);
    const started = Date.now();
    await b.publish([e]);
    await waitFor(
      () => handled.length === 1,
      'the event handled once the disk has room again',
      20_000,
    );
    console.log(
      `disk full for ${failures} attempts: attempted 1, handled ${handled.length}, dead letters ${await b.deadLetterCount('diskfull')}, time to heal ${Date.now() - started} ms`,
    );
    expect(handled).toEqual([e.id]);
    expect(calls).toBe(failures + 1);
    expect(await b.deadLetterCount('diskfull')).toBe(0);
  });

  it('still dead-letters an event a retry cannot fix, at once, and counts it', async () => {
    const b = mkBus();
    let calls = 0;
    await b.subscribe({
      group: 'poison',
      sources: ['admin'],
      handler: async () => {
        calls++;
        throw new PermanentEventError('this payload can never be applied');
      },
    });
    await b.publish([lead(9)]);
    const letters = await waitFor(async () => {
      const l = await b.deadLetters('poison');
      return l.length ? l : undefined;
    }, 'the dead letter');
    expect(letters[0]).toMatchObject({ attempts: 1, error: 'this payload can never be applied' });
    expect(calls).toBe(1);
    expect(await b.deadLetterCount('poison')).toBe(1);
  });

  it('tells transient errors (real connection failures, serialization) from the rest', async () => {
    const refused = await new pg.Client({
      host: '127.0.0.1',
      port: 1,
      connectionTimeoutMillis: 1000,
    })
      .connect()
      .catch((e: unknown) => e);
    expect(isTransientError(refused)).toBe(true);
    expect(
      isTransientError(Object.assign(new Error('could not serialize access'), { code: '40001' })),
    ).toBe(true);
    expect(
      isTransientError(
        new Error('Failed query: insert', {
          cause: Object.assign(new Error('terminating connection due to administrator command'), {
            code: '57P01',
          }),
        }),
      ),
    ).toBe(true);
    expect(
      isTransientError(Object.assign(new Error('duplicate key value'), { code: '23505' })),
    ).toBe(false);
    expect(
      isTransientError(new TypeError("Cannot read properties of undefined (reading 'id')")),
    ).toBe(false);
  });
});
