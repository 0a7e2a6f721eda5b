import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { testRedisPrefix, TEST_REDIS_URL } from '@htm/service-kit/testing';
import {
  createEvent,
  PermanentEventError,
  RedisStreamsBus,
  partitionOf,
  type EventSource,
} from '../src/index.js';
import { runBusContract, waitFor } from './bus-contract.js';

runBusContract(
  'Redis Streams',
  async () =>
    new RedisStreamsBus({
      url: TEST_REDIS_URL,
      prefix: testRedisPrefix('bus'),
      partitions: 2,
      leaseMs: 1500,
      blockMs: 200,
    }),
  async (bus, source, subject, value) => {
    const b = bus as RedisStreamsBus;
    await b.redis.xadd(
      b.streamKey(source as EventSource, partitionOf(subject, b.partitions)),
      '*',
      'e',
      value,
    );
  },
);

describe('Redis Streams transport specifics', () => {
  const redis = new Redis(TEST_REDIS_URL);
  const buses: RedisStreamsBus[] = [];
  const mk = (prefix: string) => {
    const b = new RedisStreamsBus({
      url: TEST_REDIS_URL,
      prefix,
      partitions: 2,
      leaseMs: 1000,
      blockMs: 200,
    });
    buses.push(b);
    return b;
  };
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.close()));
    redis.disconnect();
  });

  it('sends a malformed stream entry straight to dead letter', async () => {
    const prefix = testRedisPrefix('poison');
    const b = mk(prefix);
    const seen: string[] = [];
    await b.subscribe({
      group: 'g',
      sources: ['admin'],
      handler: async (e) => void seen.push(e.id),
    });
    await redis.xadd(b.streamKey('admin', 0), '*', 'e', '{"not":"an envelope"}');
    const good = createEvent('LeadReceived', 'x', { leadId: 'x', email: 'x@gmail.com' });
    await b.publish([good]);
    await waitFor(() => seen.includes(good.id), 'the good event');
    const letters = await waitFor(async () => {
      const l = await b.deadLetters('g');
      return l.length ? l : undefined;
    }, 'the poison entry in dead letter');
    expect(letters[0].error).toMatch(/invalid envelope/);
    expect(seen).toEqual([good.id]);
  });

  it("requestReplay: the group's own consumer applies its letters (no stream write by the asker), one failing again stays, a refused one is never replayed", async () => {
    const prefix = testRedisPrefix('replayreq');
    const b = mk(prefix);
    const broken = new Set(['r1', 'r2']);
    const applied: string[] = [];
    await b.subscribe({
      group: 'g',
      sources: ['admin'],
      maxAttempts: 1,
      handler: async (e) => {
        if (broken.has(e.subject)) throw new PermanentEventError(`bug on ${e.subject}`);
        applied.push(e.subject);
      },
    });
    await b.publish(
      ['r1', 'r2'].map((id) =>
        createEvent('LeadReceived', id, { leadId: id, email: `${id}@gmail.com` }),
      ),
    );
    // A forged letter (LeadReceived under payments' name) is refused at once, with a reason.
    await redis.xadd(
      b.streamKey('admin', 0),
      '*',
      'e',
      JSON.stringify({
        ...createEvent('LeadReceived', 'r3', { leadId: 'r3', email: 'r3@gmail.com' }),
        source: 'payments',
      }),
    );
    await waitFor(async () => (await b.deadLetterCount('g')) === 3, 'three dead letters');
    broken.delete('r1'); // r1's bug is fixed, r2's is not
    expect(await b.requestReplay('g')).toBe(2); // the refused letter is not asked for
    await waitFor(
      async () => applied.includes('r1') && (await b.deadLetterCount('g')) === 2,
      'r1 applied and removed',
    );
    await waitFor(async () => !(await redis.exists(b.replayRequestKey('g'))), 'the request taken');
    const left = await b.deadLetters('g');
    expect(left.map((l) => (l.event as { subject: string }).subject).sort()).toEqual(['r2', 'r3']);
    expect(applied).toEqual(['r1']);
  });

  it('hands the unacknowledged event of a consumer that died to another consumer of the group', async () => {
    const prefix = testRedisPrefix('die');
    const b1 = mk(prefix);
    const b2 = mk(prefix);
    const e = createEvent('LeadReceived', 'dying', { leadId: 'd', email: 'd@gmail.com' });
    let firstGotIt = false;
    const sub1 = (await b1.subscribe({
      group: 'g',
      sources: ['admin'],
      consumerName: 'first',
      handler: () => {
        firstGotIt = true;
        return new Promise<void>(() => undefined); // hangs: the process "dies" before acking
      },
    })) as unknown as { kill(): Promise<void> };
    await b1.publish([e]);
    await waitFor(() => firstGotIt, 'the first consumer to receive it');
    await sub1.kill();

    const seen: string[] = [];
    await b2.subscribe({
      group: 'g',
      sources: ['admin'],
      consumerName: 'second',
      handler: async (ev) => void seen.push(ev.id),
    });
    await waitFor(() => seen.includes(e.id), 'redelivery to the second consumer');
    const pending = (await redis.xpending(b2.streamKey('admin', partitionOf('dying', 2)), 'g')) as [
      number,
      ...unknown[],
    ];
    expect(pending[0]).toBe(0);
  });
});
