import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type {
  WebhookDeliveryView,
  WebhookEndpointCreatedView,
  WebhookEndpointView,
  WebhookPayload,
} from '@htm/contracts';
import { startJobs } from '../src/main.js';
import { isPrivateAddress, sendWebhook } from '../src/providers/webhook-sender.js';
import { nextAttemptAfter } from '../src/domain/webhooks.js';
import {
  api,
  outboxEvents,
  paidJob,
  poster,
  startHarness,
  tester,
  waitFor,
  type Harness,
  type Person,
} from './helpers.js';

/** A local receiver that verifies every delivery with the standardwebhooks library. */
interface Received {
  id: string;
  verified: boolean;
  payload: WebhookPayload;
}
async function receiver(secretOf: () => string, answer: (n: number) => number = () => 200) {
  const got: Received[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      try {
        new Webhook(secretOf()).verify(body, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      got.push({
        id: String(req.headers['webhook-id']),
        verified,
        payload: JSON.parse(body) as WebhookPayload,
      });
      res.statusCode = answer(n++);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const ENV = {
  WEBHOOK_RETRY_BASE_MS: '300',
  WEBHOOK_POLL_MS: '50',
  WEBHOOKS_ALLOW_PRIVATE: 'true',
  PUBLIC_URL: 'https://humantest.example',
};

let h: Harness;
beforeAll(async () => {
  h = await startHarness('webhooks', ENV, { withWorker: true });
});
afterAll(async () => {
  await h?.close();
});

type Created = WebhookEndpointCreatedView & { code: string; errors: Record<string, string[]> };

async function addEndpoint(p: Person, url: string, events?: string[]): Promise<Created> {
  const r = await api<Created>(h, 'POST', '/api/webhook-endpoints', p.token, {
    url,
    ...(events ? { events } : {}),
  });
  expect(r.status).toBe(201);
  return r.body;
}

/** How many of the endpoint's deliveries were delivered (answered 2xx). */
async function deliveredCount(endpointId: string): Promise<number> {
  const [r] = await h.svc.ctx.dbHandle.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM jobs.webhook_deliveries WHERE endpoint_id = $1 AND status = 'delivered'",
    [endpointId],
  );
  return r.n;
}

/**
 * Queues one delivery per type to the endpoint, newest event first and not yet due, then makes them
 * all due at the same moment (one poll takes them together). Event times are a second apart, in
 * the order of `types`.
 */
async function queueDueAtOnce(endpointId: string, types: string[]): Promise<void> {
  const q = h.svc.ctx.dbHandle;
  const tag = Math.random().toString(36).slice(2);
  for (const [i, type] of [...types.entries()].reverse())
    await q.query(
      `INSERT INTO jobs.webhook_deliveries (endpoint_id, event_id, event_type, payload, next_attempt_at)
       VALUES ($1, $2, $3, $4, now() + interval '1 hour')`,
      [
        endpointId,
        `${tag}-${i}`,
        type,
        JSON.stringify({
          type,
          timestamp: new Date(Date.UTC(2026, 10, 1, 12, 0, i)).toISOString(),
          data: {},
        }),
      ],
    );
  await q.query(
    'UPDATE jobs.webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1',
    [endpointId],
  );
}

describe('webhook endpoints', () => {
  it('delivers job.paid, claimed, submitted and completed, each verified with standardwebhooks', async () => {
    const p = await poster(h);
    let secret = '';
    const rx = await receiver(() => secret);
    try {
      const ep = await addEndpoint(p, rx.url);
      secret = ep.secret;
      expect(ep.secret).toMatch(/^whsec_/);
      expect(ep.events).toEqual([
        'job.paid',
        'job.claimed',
        'job.submitted',
        'job.revision_requested',
        'job.completed',
      ]);
      const list = await api<{ endpoints: WebhookEndpointView[] }>(
        h,
        'GET',
        '/api/webhook-endpoints',
        p.token,
      );
      expect(list.body.endpoints).toEqual([
        { id: ep.id, url: rx.url, events: ep.events, created_at: ep.created_at, disabled_at: null },
      ]);
      expect(JSON.stringify(list.body)).not.toContain('whsec_');
      // Another poster sees none of it.
      const other = await poster(h);
      expect(
        (await api<{ endpoints: unknown[] }>(h, 'GET', '/api/webhook-endpoints', other.token)).body
          .endpoints,
      ).toEqual([]);
      expect(
        (await api(h, 'GET', `/api/webhook-endpoints/${ep.id}/deliveries`, other.token)).status,
      ).toBe(404);
      expect((await api(h, 'DELETE', `/api/webhook-endpoints/${ep.id}`, other.token)).status).toBe(
        404,
      );

      const t = await tester(h);
      const job = await paidJob(h, p);
      expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)).status).toBe(200);
      const f = new FormData();
      f.append('feedback_text', 'The signup button is hidden below the fold on mobile.');
      f.append('key_finding_1', 'Signup button hard to find');
      expect((await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, f)).status).toBe(
        201,
      );
      expect(
        (await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, { decision: 'accept' }))
          .status,
      ).toBe(200);
      await waitFor(() => rx.got.length >= 4, 'four webhooks');
      expect(rx.got.map((g) => g.payload.type)).toEqual([
        'job.paid',
        'job.claimed',
        'job.submitted',
        'job.completed',
      ]);
      expect(rx.got.every((g) => g.verified)).toBe(true);
      expect(new Set(rx.got.map((g) => g.id)).size).toBe(4);
      expect(rx.got[3].payload.data).toEqual({
        job_id: job.id,
        title: job.title,
        status: 'completed',
        report_url: `https://humantest.example/dashboard?job=${job.id}`,
      });
      // Signed with another secret, the same delivery is refused by the library.
      expect(() =>
        new Webhook('whsec_' + Buffer.from('another secret of 24 bytes').toString('base64')).verify(
          JSON.stringify(rx.got[0].payload),
          { 'webhook-id': rx.got[0].id, 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' },
        ),
      ).toThrow();

      const deliveries = await api<{ deliveries: WebhookDeliveryView[] }>(
        h,
        'GET',
        `/api/webhook-endpoints/${ep.id}/deliveries`,
        p.token,
      );
      await waitFor(
        async () =>
          (
            await api<{ deliveries: WebhookDeliveryView[] }>(
              h,
              'GET',
              `/api/webhook-endpoints/${ep.id}/deliveries`,
              p.token,
            )
          ).body.deliveries.every((d) => d.status === 'delivered'),
        'recorded',
      );
      expect(deliveries.body.deliveries).toHaveLength(4);

      // Send test, then Redeliver: the same webhook-id again.
      const test = await api<{ delivery: WebhookDeliveryView }>(
        h,
        'POST',
        `/api/webhook-endpoints/${ep.id}/test`,
        p.token,
      );
      expect(test.status).toBe(202);
      await waitFor(() => rx.got.some((g) => g.payload.type === 'webhook.test'), 'test webhook');
      const first = rx.got.find((g) => g.payload.type === 'job.paid')!;
      const paidDelivery = (
        await api<{ deliveries: WebhookDeliveryView[] }>(
          h,
          'GET',
          `/api/webhook-endpoints/${ep.id}/deliveries`,
          p.token,
        )
      ).body.deliveries.find((d) => d.event === 'job.paid')!;
      expect(paidDelivery.webhook_id).toBe(first.id);
      expect(
        (
          await api(
            h,
            'POST',
            `/api/webhook-endpoints/${ep.id}/deliveries/${paidDelivery.id}/redeliver`,
            p.token,
          )
        ).status,
      ).toBe(202);
      await waitFor(
        () => rx.got.filter((g) => g.id === first.id).length === 2,
        'redelivered with the same id',
      );

      expect((await api(h, 'DELETE', `/api/webhook-endpoints/${ep.id}`, p.token)).status).toBe(204);
      expect(
        (await api<{ endpoints: unknown[] }>(h, 'GET', '/api/webhook-endpoints', p.token)).body
          .endpoints,
      ).toEqual([]);
    } finally {
      await rx.close();
    }
  });

  it("sends one endpoint's due deliveries one at a time, in the order their events happened", async () => {
    const p = await poster(h);
    // A receiver that holds each request a while and notes how many it held at once.
    const order: string[] = [];
    let inFlight = 0;
    let most = 0;
    const server = http.createServer((req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () =>
        setTimeout(() => {
          order.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as WebhookPayload).type);
          inFlight--;
          res.end('ok');
        }, 100),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const ep = await addEndpoint(
        p,
        `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
      );
      // Five deliveries queued newest event first, then all due at the same moment (one poll takes them all).
      const types = [
        'job.paid',
        'job.claimed',
        'job.submitted',
        'job.revision_requested',
        'job.completed',
      ];
      await queueDueAtOnce(ep.id, types);
      await waitFor(() => order.length >= 5, 'five deliveries');
      expect(order).toEqual(types);
      expect(most).toBe(1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("does not let a slow endpoint hold up other endpoints' deliveries", async () => {
    const p = await poster(h);
    // Endpoint A keeps every request open until the test lets it answer; B answers at once.
    const release: Array<() => void> = [];
    let aOpen = 0;
    const slow = http.createServer((req, res) => {
      aOpen++;
      res.on('close', () => aOpen--);
      req.resume();
      req.on('end', () => release.push(() => res.end('ok')));
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    let aOpenWhenBArrived: number | undefined;
    const rxB = await receiver(() => '');
    const fast = rxB.got;
    try {
      const a = await addEndpoint(
        p,
        `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hook`,
      );
      const b = await addEndpoint(p, rxB.url);
      const q = h.svc.ctx.dbHandle;
      const queue = (endpoint: string, id: string, type: string) =>
        q.query(
          `INSERT INTO jobs.webhook_deliveries (endpoint_id, event_id, event_type, payload, next_attempt_at)
           VALUES ($1, $2, $3, $4, now())`,
          [
            endpoint,
            id,
            type,
            JSON.stringify({ type, timestamp: new Date().toISOString(), data: {} }),
          ],
        );
      await queue(a.id, 'slow-1', 'job.claimed');
      await queue(a.id, 'slow-2', 'job.submitted');
      await waitFor(() => release.length === 1, "A's first delivery being sent");
      // While A still holds its first request, a delivery to B falls due: the next poll sends it.
      await queue(b.id, 'fast-1', 'job.claimed');
      await waitFor(() => {
        if (fast.length) aOpenWhenBArrived ??= aOpen;
        return fast.length;
      }, "B's delivery");
      expect(aOpenWhenBArrived).toBe(1);
      // A's second delivery is sent only after its first is answered.
      expect(release).toHaveLength(1);
      release[0]();
      await waitFor(() => release.length === 2, "A's second delivery");
      release[1]();
      await waitFor(async () => (await deliveredCount(a.id)) === 2, "A's two deliveries recorded");
    } finally {
      for (const r of release) r();
      await new Promise<void>((r) => slow.close(() => r()));
      await rxB.close();
    }
  });

  it("holds an endpoint's later deliveries behind a failed one, so its events still arrive in order", async () => {
    const p = await poster(h);
    const rx = await receiver(
      () => '',
      (n) => (n === 0 ? 503 : 200),
    );
    try {
      const ep = await addEndpoint(p, rx.url);
      const types = ['job.claimed', 'job.submitted', 'job.completed'];
      const q = h.svc.ctx.dbHandle;
      await queueDueAtOnce(ep.id, types);
      // The first answer is a 503: claimed is retried after WEBHOOK_RETRY_BASE_MS, and submitted
      // and completed wait for it instead of overtaking it.
      await waitFor(() => rx.got.length >= 4, 'the retry and the two held deliveries');
      expect(rx.got.map((g) => g.payload.type)).toEqual(['job.claimed', ...types]);
      expect(rx.got[1].id).toBe(rx.got[0].id);
      await waitFor(async () => (await deliveredCount(ep.id)) === 3, 'all three delivered');
      // The held ones were tried once each, when they could arrive in order.
      const rows = await q.query<{ event_type: string; attempts: number }>(
        'SELECT event_type, attempts FROM jobs.webhook_deliveries WHERE endpoint_id = $1 ORDER BY event_id',
        [ep.id],
      );
      expect(rows).toEqual([
        { event_type: 'job.claimed', attempts: 2 },
        { event_type: 'job.submitted', attempts: 1 },
        { event_type: 'job.completed', attempts: 1 },
      ]);
      expect(rx.got).toHaveLength(4);
    } finally {
      await rx.close();
    }
  });

  it('keeps the events in order while the endpoint is down for several retries and new events keep coming, with two worker replicas sending', async () => {
    const p = await poster(h);
    let down = true;
    const answered: number[] = [];
    const rx = await receiver(
      () => '',
      (n) => (answered[n] = down ? 503 : 200),
    );
    // A second replica of the API and its worker on the same database: both lease deliveries.
    const replica = await startJobs(h.env, { port: 0, withWorker: true });
    try {
      const ep = await addEndpoint(p, rx.url);
      const q = h.svc.ctx.dbHandle;
      const t0 = Date.now();
      // One job's events, each queued when it happens (due at once), as the fan-out does.
      const happen = (i: number, type: string) =>
        q.query(
          `INSERT INTO jobs.webhook_deliveries (endpoint_id, event_id, event_type, payload, next_attempt_at)
           VALUES ($1, $2, $3, $4, now())`,
          [
            ep.id,
            `outage-${ep.id}-${i}`,
            type,
            JSON.stringify({ type, timestamp: new Date(t0 + i * 1000).toISOString(), data: {} }),
          ],
        );
      const attemptsOf = async (type: string) =>
        (
          await q.query<{ attempts: number }>(
            'SELECT attempts FROM jobs.webhook_deliveries WHERE endpoint_id = $1 AND event_type = $2',
            [ep.id, type],
          )
        )[0]?.attempts ?? 0;
      await happen(0, 'job.paid');
      await waitFor(async () => (await attemptsOf('job.paid')) >= 1, 'job.paid tried once');
      await happen(1, 'job.claimed');
      // Several backoff rounds of job.paid (300 ms, 600 ms, ...) while the endpoint is down.
      await waitFor(async () => (await attemptsOf('job.paid')) >= 3, 'job.paid tried 3 times');
      // The endpoint is back; the job's next events happen just now, due at once, while
      // job.paid and job.claimed still wait for their next retry.
      down = false;
      await happen(2, 'job.submitted');
      await happen(3, 'job.completed');
      await waitFor(
        () => rx.got.filter((g) => g.payload.type === 'job.completed').length > 0,
        'job.completed delivered',
        20_000,
      );
      await waitFor(async () => (await deliveredCount(ep.id)) === 4, 'all four delivered');
      // What the endpoint accepted (its 200s), in the order the events happened, each once.
      const accepted = rx.got.filter((_, i) => answered[i] === 200);
      expect(accepted.map((g) => g.payload.type)).toEqual([
        'job.paid',
        'job.claimed',
        'job.submitted',
        'job.completed',
      ]);
      expect(new Set(accepted.map((g) => g.id)).size).toBe(4);
      // While job.paid failed, the later events were held back, not sent out of turn.
      expect(
        new Set(rx.got.filter((_, i) => answered[i] === 503).map((g) => g.payload.type)),
      ).toEqual(new Set(['job.paid']));
    } finally {
      await replica.stop();
      await rx.close();
    }
  });

  it('answers a 500 with a retry under the same webhook-id, surviving a restart in between', async () => {
    let secret = '';
    const rx = await receiver(
      () => secret,
      (n) => (n === 0 ? 500 : 204),
    );
    const h2 = await startHarness(
      'webhooks_restart',
      { ...ENV, WEBHOOK_RETRY_BASE_MS: '3000' },
      { withWorker: true },
    );
    const p = await poster(h2);
    try {
      const ep = (
        await api<Created>(h2, 'POST', '/api/webhook-endpoints', p.token, {
          url: rx.url,
          events: ['job.paid'],
        })
      ).body;
      secret = ep.secret;
      await paidJob(h2, p);
      await waitFor(() => rx.got.length === 1, 'first attempt');
      const deliveries = async (svcUrl: string) => {
        const r = await fetch(`${svcUrl}/api/webhook-endpoints/${ep.id}/deliveries`, {
          headers: { authorization: `Bearer ${p.token}` },
        });
        return ((await r.json()) as { deliveries: WebhookDeliveryView[] }).deliveries;
      };
      await waitFor(
        async () => (await deliveries(h2.svc.url))[0]?.attempts === 1,
        'first attempt recorded',
      );
      const [pending] = await deliveries(h2.svc.url);
      expect(pending).toMatchObject({ status: 'pending', attempts: 1, last_response_code: 500 });
      // The retry is due WEBHOOK_RETRY_BASE_MS after the failed attempt.
      expect(
        Date.parse(pending.next_attempt_at!) - Date.parse(pending.created_at),
      ).toBeGreaterThanOrEqual(3000);
      // The process stops before the retry is due; a new one takes over from the database.
      await h2.svc.stop();
      const again = await startJobs(h2.env, { port: 0, withWorker: true });
      try {
        await waitFor(() => rx.got.length === 2, 'retry after the restart');
        expect(rx.got[1].id).toBe(rx.got[0].id);
        expect(rx.got.every((g) => g.verified)).toBe(true);
        await waitFor(
          async () => (await deliveries(again.url))[0]?.status === 'delivered',
          'delivered',
        );
        expect((await deliveries(again.url))[0]).toMatchObject({
          attempts: 2,
          last_response_code: 204,
          next_attempt_at: null,
        });
      } finally {
        await again.stop();
      }
    } finally {
      await h2.close();
      await rx.close();
    }
  });

  it('disables an endpoint that failed for 3 days and announces it (its owner is e-mailed)', async () => {
    const p = await poster(h);
    const rx = await receiver(
      () => '',
      () => 503,
    );
    try {
      const ep = await addEndpoint(p, rx.url);
      // It has been failing for just over 3 days when this delivery fails too.
      await h.svc.ctx.dbHandle.query(
        "UPDATE jobs.webhook_endpoints SET failing_since = now() - interval '72 hours 1 minute' WHERE id = $1",
        [ep.id],
      );
      expect((await api(h, 'POST', `/api/webhook-endpoints/${ep.id}/test`, p.token)).status).toBe(
        202,
      );
      await waitFor(
        async () =>
          (
            await api<{ endpoints: WebhookEndpointView[] }>(
              h,
              'GET',
              '/api/webhook-endpoints',
              p.token,
            )
          ).body.endpoints[0]?.disabled_at,
        'disabled',
      );
      // On a busy machine the first send can outlast the send timeout and be retried once
      // before the endpoint is disabled; from then on nothing more reaches it.
      const sentBeforeDisabled = rx.got.length;
      expect(sentBeforeDisabled).toBeGreaterThanOrEqual(1);
      const events = await outboxEvents(h, 'WebhookEndpointDisabled', ep.id);
      expect(events).toHaveLength(1);
      expect(events[0].data).toMatchObject({ endpointId: ep.id, ownerId: p.id, url: rx.url });
      // Nothing more is sent to it, and Redeliver says why.
      const [d] = (
        await api<{ deliveries: WebhookDeliveryView[] }>(
          h,
          'GET',
          `/api/webhook-endpoints/${ep.id}/deliveries`,
          p.token,
        )
      ).body.deliveries;
      const again = await api<{ code: string }>(
        h,
        'POST',
        `/api/webhook-endpoints/${ep.id}/deliveries/${d.id}/redeliver`,
        p.token,
      );
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('endpoint_disabled');
      expect(rx.got).toHaveLength(sentBeforeDisabled);
    } finally {
      await rx.close();
    }
  });

  it('retries with doubling delays for at least 24 hours, then gives up', () => {
    const created = new Date('2026-01-01T00:00:00Z');
    const base = 30_000;
    let at = created;
    const delays: number[] = [];
    for (let n = 1; ; n++) {
      const next = nextAttemptAfter(n, created, at, base);
      if (!next) break;
      delays.push(next.getTime() - at.getTime());
      at = next;
    }
    expect(delays.slice(0, 4)).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(at.getTime() - created.getTime()).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(delays.length).toBeLessThan(20);
  });

  it('limits test sends to 5 a minute per endpoint (429 webhook_test_rate_limited), other endpoints unaffected', async () => {
    const p = await poster(h);
    const ep = await addEndpoint(p, 'https://hooks.example/one');
    const other = await addEndpoint(p, 'https://hooks.example/two');
    const test = (id: string) => api(h, 'POST', `/api/webhook-endpoints/${id}/test`, p.token);
    // Sent together, as a burst of clicks or a script would: exactly five are queued.
    const burst = await Promise.all(Array.from({ length: 8 }, () => test(ep.id)));
    expect(burst.map((r) => r.status).sort()).toEqual([202, 202, 202, 202, 202, 429, 429, 429]);
    const refused = burst.find((r) => r.status === 429)!;
    expect(refused.body).toEqual({
      code: 'webhook_test_rate_limited',
      detail:
        'Test webhooks to this endpoint are limited to 5 a minute. Please wait a minute and try again.',
    });
    expect(refused.headers.get('retry-after')).toBe('60');
    const [row] = await h.svc.ctx.dbHandle.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs.webhook_deliveries WHERE endpoint_id = $1 AND event_type = 'webhook.test'",
      [ep.id],
    );
    expect(row.n).toBe(5);
    expect((await test(other.id)).status).toBe(202);
  });

  it('refuses bad endpoints with field messages', async () => {
    const p = await poster(h);
    for (const [body, field] of [
      [{ url: 'ftp://example.com/x' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'https://example.com/x', events: ['job.deleted'] }, 'events'],
    ] as const) {
      const r = await api<Created>(h, 'POST', '/api/webhook-endpoints', p.token, body);
      expect(r.status).toBe(400);
      expect(Object.keys(r.body.errors).some((k) => k === field || k.startsWith(`${field}.`))).toBe(
        true,
      );
    }
    const t = await tester(h);
    expect(
      (await api(h, 'POST', '/api/webhook-endpoints', t.token, { url: 'https://example.com/x' }))
        .status,
    ).toBe(403);
  });
});

describe('SSRF guard', () => {
  it('refuses loopback, private, link-local and metadata addresses unless allowed', async () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fd00:ec2::254',
      'fe80::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
      // IPv4-compatible (::/96) and 6to4 (2002::/16) forms of loopback and private addresses.
      '::7f00:1',
      '::127.0.0.1',
      '::a01:203',
      '2002:7f00:1::1',
      '2002:a9fe:a9fe::1',
      '2002:c0a8:101::',
    ])
      expect([a, isPrivateAddress(a)]).toEqual([a, true]);
    for (const a of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'])
      expect(isPrivateAddress(a)).toBe(false);
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const target = (url: string) => ({
      url,
      secret: 'whsec_' + Buffer.from('0123456789abcdef01234567').toString('base64'),
      msgId: 'msg_1',
      body: '{}',
    });
    const opts = { allowPrivate: false, timeoutMs: 5000, maxBodyBytes: 65536 };
    try {
      // A literal address, a name that resolves to loopback (checked on the resolved address),
      // IPv4-mapped, IPv4-compatible and 6to4 forms: the poster reads only that the address was
      // refused, never which internal address it was.
      for (const url of [
        `http://127.0.0.1:${port}/`,
        `http://localhost:${port}/`,
        `http://[::ffff:127.0.0.1]:${port}/`,
        `http://[::7f00:1]:${port}/`,
        `http://[2002:7f00:1::1]:${port}/`,
        `http://169.254.169.254/latest/meta-data/`,
      ])
        expect([url, await sendWebhook(target(url), opts)]).toEqual([
          url,
          { ok: false, code: null, error: 'refused: not a public address' },
        ]);
      expect(hits).toBe(0);
      expect(
        await sendWebhook(target(`http://127.0.0.1:${port}/`), { ...opts, allowPrivate: true }),
      ).toMatchObject({ ok: true, code: 200 });
      expect(hits).toBe(1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('does not follow redirects and stops reading at 64 KB', async () => {
    const server = http.createServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(307, { location: '/elsewhere' });
        res.end();
        return;
      }
      res.writeHead(200);
      // 10 MB, never read beyond 64 KB
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      const write = () => {
        while (sent < 160 && res.write(chunk)) sent++;
        if (sent < 160) res.once('drain', write);
        else res.end();
      };
      write();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const target = (path: string) => ({
      url: `http://127.0.0.1:${port}${path}`,
      secret: 'whsec_' + Buffer.from('0123456789abcdef01234567').toString('base64'),
      msgId: 'msg_2',
      body: '{}',
    });
    try {
      expect(
        await sendWebhook(target('/redirect'), {
          allowPrivate: true,
          timeoutMs: 5000,
          maxBodyBytes: 65536,
        }),
      ).toMatchObject({ ok: false, code: 307, error: 'redirect not followed' });
      expect(
        await sendWebhook(target('/big'), {
          allowPrivate: true,
          timeoutMs: 5000,
          maxBodyBytes: 65536,
        }),
      ).toMatchObject({ ok: true, code: 200 });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
