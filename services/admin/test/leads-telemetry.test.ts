import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LEAD_MESSAGES, TELEMETRY_EVENT_NAMES } from '@htm/contracts';
import {
  call,
  outboxDrained,
  publishedEvents,
  startHarness,
  waitForEvent,
  type AdminHarness,
} from './support.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startHarness('admin_leads_telemetry');
});
afterAll(async () => {
  await h?.close();
});

describe('POST /api/leads', () => {
  it('stores the lead and announces LeadReceived', async () => {
    const res = await call(h, 'POST', '/api/leads', {
      body: { email: ' Founder@Startup.io ', message: '  We need a developer for our MVP  ' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ success: true });
    const rows = await h.svc.ctx.dbHandle.query<{ id: string; email: string; message: string }>(
      'SELECT id, email, message FROM admin.leads',
    );
    expect(rows).toEqual([
      {
        id: expect.any(String),
        email: 'founder@startup.io',
        message: 'We need a developer for our MVP',
      },
    ]);
    const event = await waitForEvent(h, (e) => e.type === 'LeadReceived');
    expect(event).toMatchObject({
      subject: rows[0].id,
      data: { leadId: rows[0].id, email: 'founder@startup.io' },
    });
  });

  it('requires the thoughts and a valid e-mail, storing nothing', async () => {
    const res = await call(h, 'POST', '/api/leads', { body: { email: 'x@y.com', message: '   ' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({ message: [LEAD_MESSAGES.thoughtsRequired] });
    const noEmail = await call(h, 'POST', '/api/leads', {
      body: { email: 'nope', message: 'hello' },
    });
    expect(noEmail.status).toBe(400);
    expect(noEmail.body.errors).toEqual({ email: ['Please enter a valid email address'] });
    const [{ n }] = await h.svc.ctx.dbHandle.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM admin.leads',
    );
    expect(n).toBe(1);
  });
});

describe('POST /api/telemetry', () => {
  it('republishes allow-listed events as one ClientTelemetry event with the signed-in user, dropping unknown names', async () => {
    const userId = '0d9f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
    const token = await h.issuer.mint({ type: 'poster', id: userId });
    const res = await call(h, 'POST', '/api/telemetry', {
      token,
      headers: { 'x-correlation-id': 'corr-telemetry-1' },
      body: {
        events: [
          {
            name: 'post_job_attempt',
            at: '2026-01-02T03:04:05.000Z',
            props: { geo_rule: 'us_pr', attempt: 1 },
          },
          { name: 'keylogger', props: { keys: 'secret' } },
          { name: 'post_job_failure', props: { status: 500, reason: null } },
        ],
      },
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ accepted: 2 });
    const event = await waitForEvent(
      h,
      (e) => e.type === 'ClientTelemetry' && e.correlationId === 'corr-telemetry-1',
    );
    expect(event).toMatchObject({ subject: userId, data: { userId } });
    const data = event!.data as { events: { name: string; at: string; props?: unknown }[] };
    expect(data.events.map((e) => e.name)).toEqual(['post_job_attempt', 'post_job_failure']);
    expect(data.events[0]).toEqual({
      name: 'post_job_attempt',
      at: '2026-01-02T03:04:05.000Z',
      props: { geo_rule: 'us_pr', attempt: 1 },
    });
    expect(Date.parse(data.events[1].at)).not.toBeNaN();
  });

  it('accepts every allow-listed name anonymously, and an expired token makes the batch anonymous', async () => {
    const expired = await h.issuer.mint({
      type: 'poster',
      exp: Math.floor(Date.now() / 1000) - 60,
    });
    const res = await call(h, 'POST', '/api/telemetry', {
      token: expired,
      headers: { 'x-correlation-id': 'corr-telemetry-2' },
      body: { events: TELEMETRY_EVENT_NAMES.map((name) => ({ name })) },
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ accepted: 6 });
    const event = await waitForEvent(
      h,
      (e) => e.type === 'ClientTelemetry' && e.correlationId === 'corr-telemetry-2',
    );
    expect(event!.data).toMatchObject({ userId: null });
  });

  it('answers accepted 0 and publishes nothing when no name is allow-listed', async () => {
    const res = await call(h, 'POST', '/api/telemetry', {
      headers: { 'x-correlation-id': 'corr-telemetry-3' },
      body: { events: [{ name: 'page_view' }] },
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ accepted: 0 });
    await outboxDrained(h);
    expect(
      (await publishedEvents(h)).filter((e) => e.correlationId === 'corr-telemetry-3'),
    ).toEqual([]);
  });

  it('answers 400 for oversized batches, large or nested props and bad times, publishing nothing', async () => {
    const [{ n: before }] = await h.svc.ctx.dbHandle.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM admin.outbox WHERE type = 'ClientTelemetry'",
    );
    const cases: [unknown, string][] = [
      [{ events: Array.from({ length: 51 }, () => ({ name: 'post_job_attempt' })) }, 'events'],
      [{ events: [] }, 'events'],
      [{}, 'events'],
      [
        {
          events: [
            {
              name: 'post_job_attempt',
              props: Object.fromEntries(
                Array.from({ length: 30 }, (_, i) => [`k${i}`, 'x'.repeat(90)]),
              ),
            },
          ],
        },
        'events.0.props',
      ],
      [
        { events: [{ name: 'post_job_attempt', props: { nested: { deep: 1 } } }] },
        'events.0.props.nested',
      ],
      [{ events: [{ name: 'post_job_attempt', at: 'yesterday' }] }, 'events.0.at'],
      [{ events: [{ props: {} }] }, 'events.0.name'],
    ];
    for (const [body, field] of cases) {
      const res = await call(h, 'POST', '/api/telemetry', { body });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors)).toContain(field);
    }
    const fifty = await call(h, 'POST', '/api/telemetry', {
      body: { events: Array.from({ length: 50 }, () => ({ name: 'api_refresh_attempt' })) },
    });
    expect(fifty.body).toEqual({ accepted: 50 });
    const [{ n: after }] = await h.svc.ctx.dbHandle.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM admin.outbox WHERE type = 'ClientTelemetry'",
    );
    expect(after).toBe(before + 1);
  });
});
