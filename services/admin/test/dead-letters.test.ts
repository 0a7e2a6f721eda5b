/**
 * The admin's Overview counts events no consumer could apply, across every consumer group, and
 * its Replay has each group's own consumers apply them again: the (now fixed) consumer applies each once.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '@htm/service-kit/testing';
import { createEvent, PermanentEventError, RedisStreamsBus } from '@htm/events';
import { adminToken, call, startHarness, type AdminHarness } from './support.js';

let h: AdminHarness;
let token: string;
let consumerBus: RedisStreamsBus;
beforeAll(async () => {
  h = await startHarness('admin_dead_letters');
  token = await adminToken(h);
  const bus = h.svc.ctx.bus as RedisStreamsBus;
  consumerBus = new RedisStreamsBus({
    url: bus.opts.url,
    prefix: bus.prefix,
    blockMs: 200,
    leaseMs: 3000,
  });
});
afterAll(async () => {
  await consumerBus?.close();
  await h?.close();
});

describe('dead letters on the admin Overview', () => {
  it('counts the dead letters of every group and replays them to a consumer that applies each once', async () => {
    expect((await call(h, 'GET', '/api/admin/dead-letters', { token })).body).toEqual({
      total: 0,
      groups: [],
    });

    let broken = true;
    const applied: string[] = [];
    await consumerBus.subscribe({
      group: 'payments',
      sources: ['admin'],
      handler: async (e) => {
        if (broken) throw new PermanentEventError('payload refused by a bug since fixed');
        applied.push(e.id);
      },
    });
    const events = [1, 2, 3].map((i) =>
      createEvent('LeadReceived', `lead-${i}`, { leadId: `lead-${i}`, email: `dl${i}@gmail.com` }),
    );
    await consumerBus.publish(events);
    await waitFor(
      async () => (await consumerBus.deadLetterCount('payments')) === 3,
      'three dead letters',
    );

    const seen = await call(h, 'GET', '/api/admin/dead-letters', { token });
    expect(seen.status).toBe(200);
    expect(seen.body).toEqual({ total: 3, groups: [{ group: 'payments', count: 3 }] });
    const metrics = await (await fetch(`${h.url}/metrics`)).text();
    expect(metrics).toMatch(/event_dead_letters_all_groups\S* 3/);

    broken = false;
    const replay = await call(h, 'POST', '/api/admin/dead-letters/replay', { token });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ replayed: 3, groups: [{ group: 'payments', count: 3 }] });
    // The group's own consumer takes the request and applies each letter (no write on another service's stream).
    await waitFor(() => applied.length === 3, 'the replayed events applied');
    expect(applied.sort()).toEqual(events.map((e) => e.id).sort());
    await waitFor(
      async () => (await call(h, 'GET', '/api/admin/dead-letters', { token })).body.total === 0,
      'the dead letter emptied',
    );
    expect((await call(h, 'GET', '/api/admin/dead-letters', { token })).body).toEqual({
      total: 0,
      groups: [],
    });
  });
});
