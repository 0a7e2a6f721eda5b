/**
 * A scripted history on each transport gives the expected insights; the rebuild gives the same;
 * admin only; bad ranges 400. Kafka runs against librdkafka's mock broker (test/support/kafka-mock.ts):
 * a broker that cannot start fails the suite, as in test/tracing.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { handleOnce, type EventEnvelope } from '@htm/events';
import type { Tx } from '@htm/service-kit/db';
import { rebuildAnalytics } from '../src/rebuild.js';
import { analyticsEventHandlers } from '../src/events/handlers.js';
import { handledEvents } from '../src/db/schema.js';
import { startKafkaMock, type KafkaMock } from '../../../test/support/kafka-mock.js';
import { ev, startHarness, waitFor, type Harness } from './support.js';
import { EXPECTED, scriptedHistory } from './history.js';

const RANGE = 'from=2026-03-01&to=2026-03-03';
let kafka: KafkaMock | undefined;

const transports: Array<{ bus: string; env: () => Promise<Record<string, string>> }> = [
  { bus: 'Redis Streams', env: async () => ({ EVENT_BUS: 'redis' }) },
  {
    bus: 'Kafka',
    env: async () => {
      kafka = await startKafkaMock();
      return {
        EVENT_BUS: 'kafka',
        KAFKA_BROKERS: kafka.brokers,
        KAFKA_MAX_WAIT_MS: '250',
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        KAFKA_HEARTBEAT_INTERVAL_MS: '500',
      };
    },
  },
];

function expectWithin5Percent(
  actual: { p50: number | null; p90: number | null },
  expected: { p50: number; p90: number },
) {
  for (const k of ['p50', 'p90'] as const) {
    expect(actual[k]).not.toBeNull();
    expect(actual[k]!).toBeGreaterThanOrEqual(expected[k]);
    expect(actual[k]!).toBeLessThanOrEqual(expected[k] * 1.05);
  }
}

function expectHistory(body: Awaited<ReturnType<Harness['insights']>>['body']) {
  expect(body.days).toEqual(EXPECTED.days);
  expect(body.funnel).toEqual(EXPECTED.funnel);
  expect(body.acceptance_rate).toBe(EXPECTED.acceptance_rate);
  expect(body.revision_rate).toBe(EXPECTED.revision_rate);
  expect(body.waiting_jobs).toEqual(EXPECTED.waiting_jobs);
  expect(body.testers).toEqual(EXPECTED.testers);
  expect(body.demand_by_country).toEqual(EXPECTED.demand_by_country);
  expect(body.totals).toEqual(EXPECTED.totals);
  expect(body.packs).toEqual(EXPECTED.packs);
  expect(body.session_checks).toEqual(EXPECTED.session_checks);
  expectWithin5Percent(body.time_to_claim_ms, EXPECTED.time_to_claim_ms);
  expectWithin5Percent(body.time_to_result_ms, EXPECTED.time_to_result_ms);
  expectWithin5Percent(body.time_to_summary_ms, EXPECTED.time_to_summary_ms);
  // 6 h falls in the "up to 8 h" bin, 28 h in "up to 48 h"
  expect(body.time_to_result_histogram.map((b) => b.count)).toEqual([0, 0, 0, 1, 0, 0, 1, 0]);
}

describe.each(transports)('insights from a scripted history, events on $bus', ({ env }) => {
  let h: Harness;
  let history: ReturnType<typeof scriptedHistory>;

  beforeAll(async () => {
    h = await startHarness('analytics', await env());
    history = scriptedHistory();
    await h.publish(...history.events);
    await waitFor(
      async () => (await h.handled()) === history.distinct,
      'every distinct event handled',
      60_000,
    );
  }, 600_000); // the Kafka run may first build librdkafka (test/support/kafka-mock.ts)
  afterAll(async () => {
    await h?.close();
    await kafka?.stop();
    kafka = undefined;
  });

  it('answers the known numbers: a redelivered event counted once, an out-of-order one placed right', async () => {
    const res = await h.insights(RANGE);
    expect(res.status).toBe(200);
    expectHistory(res.body);
  });

  it('npm run analytics:rebuild drops the projection, replays the streams from the start and ends with the same numbers', async () => {
    // Something the rebuild must wipe: a fact no event supports.
    await h.sql(`UPDATE analytics.daily SET posted = posted + 40 WHERE day = '2026-03-01'`);
    expect((await h.insights(RANGE)).body.funnel.posted).toBe(44);
    const r = await rebuildAnalytics(h.env);
    expect(r.events).toBe(history.events.length);
    expect(r.applied).toBe(history.distinct);
    expectHistory((await h.insights(RANGE)).body);
  }, 120_000);
});

describe('who may read insights, and which ranges', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('analytics_http');
  });
  afterAll(async () => h?.close());

  it('answers only the admin: 401 without a token, 403 for posters and testers', async () => {
    expect((await h.insights(RANGE, null)).status).toBe(401);
    for (const role of ['poster', 'tester'] as const) {
      const res = await h.insights(RANGE, role);
      expect(res.status).toBe(403);
      expect(res.body.code).toBeDefined();
    }
    const ok = await h.insights(RANGE);
    expect(ok.status).toBe(200);
    expect(ok.body.days.map((d) => d.date)).toEqual(['2026-03-01', '2026-03-02', '2026-03-03']);
    expect(ok.body.funnel).toEqual({ posted: 0, paid: 0, claimed: 0, submitted: 0, completed: 0 });
    expect(ok.body.time_to_claim_ms).toEqual({ p50: null, p90: null });
    expect(ok.body.acceptance_rate).toBeNull();
  });

  it.each([
    ['from=2026-3-1&to=2026-03-03', 'from'],
    ['from=2026-02-30&to=2026-03-03', 'from'],
    ['from=2026-03-01', 'to'],
    ['from=2026-03-05&to=2026-03-01', 'to'],
    ['from=2025-01-01&to=2026-01-02', 'to'],
    ['from=2026-03-01&to=2026-03-02&from=2026-03-03', 'from'],
  ])('refuses %s with 400 in the JSON error shape, naming %s', async (query, field) => {
    const res = await h.insights(query);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(Object.keys(res.body.errors ?? {})).toContain(field);
  });

  it('takes a full 366-day range (a leap year)', async () => {
    const res = await h.insights('from=2024-01-01&to=2024-12-31');
    expect(res.status).toBe(200);
    expect(res.body.days).toHaveLength(366);
  });
});

describe('one job told in any order', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('analytics_order');
  });
  afterAll(async () => h?.close());

  it('gives the same facts whichever of paid, claimed and submitted arrives first, and nothing twice', async () => {
    const handlers = analyticsEventHandlers();
    const apply = (e: EventEnvelope) => {
      const fn = handlers[e.type] as (e: EventEnvelope, tx: Tx) => Promise<void>;
      return handleOnce(h.svc.ctx.db, handledEvents, e, (tx) => fn(e, tx));
    };
    const H = 3600_000;
    const paidAt = Date.parse('2026-04-01T10:00:00Z');
    const iso = (ms: number) => new Date(ms).toISOString();
    // Six jobs, each paid at 10:00, claimed 3 h later, first result 8 h after payment: every order of the three events.
    const orders = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ];
    for (const order of orders) {
      const jobId = randomUUID();
      const tester = randomUUID();
      const events = [
        ev(
          'JobPaid',
          jobId,
          { jobId, sessionId: `cs_${jobId}`, posterId: 'p', amountCents: 100, paidAt: iso(paidAt) },
          iso(paidAt),
        ),
        ev(
          'JobClaimed',
          jobId,
          {
            jobId,
            testerId: tester,
            claimedAt: iso(paidAt + 3 * H),
            deadlineAt: iso(paidAt + 50 * H),
            by: 'tester',
          },
          iso(paidAt + 3 * H),
        ),
        ev(
          'WorkSubmitted',
          jobId,
          {
            jobId,
            testerId: tester,
            submissionId: randomUUID(),
            revision: 0,
            submittedAt: iso(paidAt + 8 * H),
            autoAcceptAt: iso(paidAt + 104 * H),
          },
          iso(paidAt + 8 * H),
        ),
      ];
      for (const i of order) expect(await apply(events[i])).toBe(true);
      for (const e of events) expect(await apply(e)).toBe(false); // redelivered: already handled
    }
    const res = await h.insights('from=2026-04-01&to=2026-04-01');
    expect(res.body.funnel).toEqual({ posted: 0, paid: 6, claimed: 6, submitted: 6, completed: 0 });
    expect(res.body.days[0].revenue_cents).toBe(600);
    expectWithin5Percent(res.body.time_to_claim_ms, { p50: 3 * H, p90: 3 * H });
    expectWithin5Percent(res.body.time_to_result_ms, { p50: 8 * H, p90: 8 * H });
    const [durations] = await h.sql<{ n: number }>(
      `SELECT SUM(count)::int AS n FROM analytics.durations`,
    );
    expect(durations.n).toBe(6 * 3);
  });
});
