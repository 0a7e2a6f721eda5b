/** The analytics service against real Postgres and Redis (or a Kafka broker), fed a scripted history. */
import { randomUUID } from 'node:crypto';
import {
  createEventBus,
  type EventBus,
  type EventData,
  type EventEnvelope,
  type EventType,
} from '@htm/events';
import { startServiceHarness, testEvent } from '@htm/events/testing';
import { waitFor, type TestDatabase, type TestIssuer } from '@htm/service-kit/testing';
import type { InsightsResponse } from '@htm/contracts';
import { startAnalytics, type AnalyticsService } from '../src/main.js';

export { waitFor };

export interface Harness {
  svc: AnalyticsService;
  db: TestDatabase;
  issuer: TestIssuer;
  bus: EventBus;
  env: Record<string, string>;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  publish(...events: EventEnvelope[]): Promise<void>;
  /** GET /api/admin/insights as a caller of that role (answers status and body). */
  insights(
    query: string,
    role?: 'admin' | 'poster' | 'tester' | null,
  ): Promise<{
    status: number;
    body: InsightsResponse & { code?: string; errors?: Record<string, string[]> };
  }>;
  /** How many events the service has handled. */
  handled(): Promise<number>;
  close(): Promise<void>;
}

export async function startHarness(
  label: string,
  env: Record<string, string> = {},
): Promise<Harness> {
  const {
    svc,
    db,
    issuer,
    env: fullEnv,
    sql,
    close,
  } = await startServiceHarness(label, (e) => startAnalytics(e, { port: 0 }), env);
  const bus = createEventBus(svc.ctx.config, undefined, { clientId: 'analytics-test' });
  return {
    svc,
    db,
    issuer,
    bus,
    env: fullEnv,
    sql,
    publish: (...events) => bus.publish(events),
    async insights(query, role = 'admin') {
      const headers: Record<string, string> = {};
      if (role)
        headers.authorization = `Bearer ${await issuer.mint({ id: randomUUID(), type: role, approved: true, email: `${role}@gmail.com` })}`;
      const res = await fetch(`${svc.url}/api/admin/insights?${query}`, { headers });
      return {
        status: res.status,
        body: (await res.json()) as Awaited<ReturnType<Harness['insights']>>['body'],
      };
    },
    async handled() {
      const [row] = await svc.ctx.dbHandle.query<{ n: number }>(
        'SELECT COUNT(*)::int AS n FROM analytics.handled_events',
      );
      return Number(row.n);
    },
    close: () => close(() => bus.close()),
  };
}

/** An event at a given moment (occurredAt), with a fixed id when given (a redelivery reuses one). */
export function ev<T extends EventType>(
  type: T,
  subject: string,
  data: EventData<T>,
  at: string | Date,
  id?: string,
): EventEnvelope<T> {
  return testEvent(type, subject, data, { at, id });
}
