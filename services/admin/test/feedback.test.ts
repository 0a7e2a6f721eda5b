import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createTestDatabase,
  testRedisPrefix,
  TEST_REDIS_URL,
  type TestDatabase,
} from '@htm/service-kit/testing';
import type { HostedService } from '@htm/events';
import { RedisStreamsBus } from '@htm/events';
import { startAdmin } from '../src/main.js';

let db: TestDatabase;
let svc: HostedService;
const prefix = testRedisPrefix('admin-feedback');

beforeAll(async () => {
  db = await createTestDatabase('admin');
  svc = await startAdmin(
    { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix, LOG_LEVEL: 'silent' },
    { port: 0 },
  );
});
afterAll(async () => {
  await svc?.stop();
  await db?.drop();
});

describe('POST /api/feedback', () => {
  it('stores the message and publishes FeedbackReceived', async () => {
    const res = await fetch(`${svc.url}/api/feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-correlation-id': 'corr-feedback-1' },
      body: JSON.stringify({
        email: '  Someone@Gmail.com ',
        message: 'The signup button is hard to find',
        page_url: '/x',
      }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-correlation-id')).toBe('corr-feedback-1');
    const body = (await res.json()) as { success: boolean; id: string };
    expect(body.success).toBe(true);

    const rows = await svc.ctx.dbHandle.query<{ email: string }>(
      'SELECT email FROM admin.feedback WHERE id = $1',
      [body.id],
    );
    expect(rows).toEqual([{ email: 'someone@gmail.com' }]);

    const bus = svc.ctx.bus as RedisStreamsBus;
    let found: unknown;
    for (let i = 0; i < 50 && !found; i++) {
      const entries = (await bus.redis.xrange(bus.streamKey('admin', 0), '-', '+')).concat(
        ...(await Promise.all(
          [1, 2, 3].map((p) => bus.redis.xrange(bus.streamKey('admin', p), '-', '+')),
        )),
      );
      found = entries.map(([, f]) => JSON.parse(f[1])).find((e) => e.subject === body.id);
      if (!found) await new Promise((r) => setTimeout(r, 100));
    }
    expect(found).toMatchObject({
      type: 'FeedbackReceived',
      source: 'admin',
      correlationId: 'corr-feedback-1',
      data: { email: 'someone@gmail.com' },
    });
  });

  it('answers 400 with per-field messages and stores nothing for a bad body', async () => {
    const before = await svc.ctx.dbHandle.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM admin.feedback',
    );
    const res = await fetch(`${svc.url}/api/feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'not-an-email', message: '   ' }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as {
      detail: string;
      code: string;
      errors: Record<string, string[]>;
    };
    expect(body.code).toBe('validation_error');
    expect(body.errors.email).toEqual(['Please enter a valid email address']);
    expect(body.errors.message).toEqual(['Feedback is required']);
    const after = await svc.ctx.dbHandle.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM admin.feedback',
    );
    expect(after).toEqual(before);
  });

  it('answers malformed JSON and unknown routes with the JSON error shape', async () => {
    const bad = await fetch(`${svc.url}/api/feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      detail: 'Request body is not valid JSON.',
      code: 'invalid_json',
    });
    const missing = await fetch(`${svc.url}/api/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'route_not_found' });
  });
});
