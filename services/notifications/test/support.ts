/** The notifications service against real Postgres and Redis; the SMTP server (startInbox) lives in src/testing.ts. */
import { randomUUID } from 'node:crypto';
import { RedisStreamsBus, type EventData, type EventEnvelope, type EventType } from '@htm/events';
import { startServiceHarness, testEvent } from '@htm/events/testing';
import {
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
  const { svc, db, issuer, prefix, sql, close } = await startServiceHarness(
    label,
    (e) => startNotifications(e, { port: 0 }),
    {
      PUBLIC_URL: 'http://app.example',
      MAIL_POLL_MS: '50',
      // A results e-mail no summary follows (most tests publish none) goes after this.
      MAIL_SUMMARY_WAIT_MS: '2000',
      MAIL_RETRY_BASE_MS: '50',
      MAIL_RETRY_MAX_MS: '400',
      ...env,
    },
  );
  const bus = new RedisStreamsBus({ url: TEST_REDIS_URL, prefix });
  return {
    svc,
    db,
    issuer,
    bus,
    url: svc.url,
    sql,
    async publish(type, subject, data, opts = {}) {
      const e = testEvent(type, subject, data, { id: opts.id, at: opts.occurredAt });
      await bus.publish([e]);
      return e;
    },
    close: () => close(() => bus.close()),
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
