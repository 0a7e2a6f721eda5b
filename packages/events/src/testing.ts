/**
 * Test helpers for a service that speaks events: start one service against a fresh PostgreSQL
 * database, a private Redis prefix and a JWKS-serving token issuer (its harness), and build
 * events as another service would. Each service's test/support.ts adds what is its own.
 */
import { randomUUID } from 'node:crypto';
import {
  createTestDatabase,
  createTestIssuer,
  testRedisPrefix,
  TEST_REDIS_URL,
  type TestDatabase,
  type TestIssuer,
} from '@htm/service-kit/testing';
import type { EventData, EventType } from './catalogue.js';
import { createEvent, type EventEnvelope } from './envelope.js';

/** What a harness needs of a started service (every service's `start*` answers this). */
export interface StartedService {
  url: string;
  ctx: {
    dbHandle: { query<T>(text: string, params?: unknown[]): Promise<T[]> };
  };
  stop(): Promise<void>;
}

export interface ServiceHarness<S extends StartedService> {
  svc: S;
  db: TestDatabase;
  issuer: TestIssuer;
  /** The environment the service started with (the base below, then the test's own). */
  env: Record<string, string>;
  /** The Redis prefix of this harness: a bus on it reaches the service. */
  prefix: string;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Stops the service, then runs `also` (a bus to close...), then drops the issuer and database. */
  close(also?: () => Promise<void>): Promise<void>;
}

/**
 * Starts a service with `start(env)` on a fresh database named after `label`: NODE_ENV test,
 * silent logs, the test issuer as IDENTITY_URL, then `env` (the test's settings win).
 */
export async function startServiceHarness<S extends StartedService>(
  label: string,
  start: (env: Record<string, string>) => Promise<S>,
  env: Record<string, string> = {},
): Promise<ServiceHarness<S>> {
  const db = await createTestDatabase(label);
  const issuer = await createTestIssuer();
  const prefix = testRedisPrefix(label);
  const fullEnv: Record<string, string> = {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    IDENTITY_URL: issuer.url,
    ...env,
  };
  let svc: S;
  try {
    svc = await start(fullEnv);
  } catch (err) {
    await issuer.close();
    await db.drop();
    throw err;
  }
  return {
    svc,
    db,
    issuer,
    env: fullEnv,
    prefix,
    sql: (text, params) => svc.ctx.dbHandle.query(text, params),
    async close(also) {
      await svc.stop();
      await also?.();
      await issuer.close();
      await db.drop();
    },
  };
}

/**
 * An event as another service would publish it: a new id (or the given one, as a redelivery
 * reuses it), `test-<type>` as its correlation id, and `at` as when it happened (default now).
 */
export function testEvent<T extends EventType>(
  type: T,
  subject: string,
  data: EventData<T>,
  opts: { at?: string | Date; id?: string } = {},
): EventEnvelope<T> {
  return createEvent(type, subject, data, {
    id: opts.id ?? randomUUID(),
    correlationId: `test-${type}`,
    occurredAt: opts.at === undefined ? undefined : new Date(opts.at),
  });
}
