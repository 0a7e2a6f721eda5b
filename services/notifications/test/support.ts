/** The notifications service against real Postgres and Redis; the SMTP server (startInbox) lives in src/testing.ts. */
import { randomUUID } from 'node:crypto';
import {
  createEvent,
  RedisStreamsBus,
  type EventData,
  type EventEnvelope,
  type EventType,
} from '@htm/events';
import {
  createTestDatabase,
  createTestIssuer,
  testRedisPrefix,
  waitFor,
  TEST_REDIS_URL,
  type TestDatabase,
  type TestIssuer,
} from '@htm/service-kit/testing';
import { startNotifications, type NotificationsService } from '../src/main.js';

export { startInbox, type Inbox } from '../src/testing.js';

export { waitFor };

export interface Harness {
  svc: NotificationsService;
  db: TestDatabase;
  issuer: TestIssuer;
  bus: RedisStreamsBus;
  url: string;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  publish<T extends EventType>(
    type: T,
    subject: string,
    data: EventData<T>,
    opts?: { id?: string; occurredAt?: Date },
  ): Promise<EventEnvelope<T>>;
  close(): Promise<void>;
}

export async function startHarness(
  label: string,
  env: Record<string, string> = {},
): Promise<Harness> {
  const db = await createTestDatabase(label);
  const issuer = await createTestIssuer();
  const prefix = testRedisPrefix(label);
  const svc = await startNotifications(
    {
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      LOG_LEVEL: 'silent',
      IDENTITY_URL: issuer.url,
      PUBLIC_URL: 'http://app.example',
      MAIL_POLL_MS: '50',
      MAIL_RETRY_BASE_MS: '50',
      MAIL_RETRY_MAX_MS: '400',
      ...env,
    },
    { port: 0 },
  );
  const bus = new RedisStreamsBus({ url: TEST_REDIS_URL, prefix });
  return {
    svc,
    db,
    issuer,
    bus,
    url: svc.url,
    sql: (text, params) => svc.ctx.dbHandle.query(text, params),
    async publish(type, subject, data, opts = {}) {
      const e = createEvent(type, subject, data, {
        id: opts.id ?? randomUUID(),
        correlationId: `test-${type}`,
        occurredAt: opts.occurredAt,
      });
      await bus.publish([e]);
      return e;
    },
    async close() {
      await svc.stop();
      await bus.close();
      await issuer.close();
      await db.drop();
    },
  };
}

/** A user identity knows about (UserSignedUp). */
export async function knownUser(
  h: Harness,
  email: string,
  name = 'Sam',
): Promise<{ id: string; email: string }> {
  const id = randomUUID();
  await h.publish('UserSignedUp', id, { userId: id, email, name });
  await waitFor(
    async () => (await h.sql('SELECT 1 FROM notifications.users WHERE id = $1', [id])).length > 0,
    'the user in the projection',
  );
  return { id, email };
}
