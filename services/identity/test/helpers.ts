/** Shared helpers for identity's tests: start the service on real Postgres + Redis, drive it like a browser. */
import type { TesterDto, UserDto } from '@htm/contracts';
import { createEvent, type EventEnvelope, type EventType } from '@htm/events';
import {
  createTestDatabase,
  testRedisPrefix,
  TEST_REDIS_URL,
  type TestDatabase,
} from '@htm/service-kit/testing';
import { startIdentity, type IdentityService } from '../src/main.js';
import { CookieJar, signIn } from '../src/testing.js';

export {
  CookieJar,
  devLogin,
  exchange,
  forgedTokens,
  sessionIdOf,
  signIn,
} from '../src/testing.js';

export interface TestIdentity {
  svc: IdentityService;
  url: string;
  db: TestDatabase;
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startTestIdentity(
  label: string,
  env: Record<string, string> = {},
  existing?: TestDatabase,
  port = 0,
): Promise<TestIdentity> {
  const db = existing ?? (await createTestDatabase(`identity_${label}`));
  const fullEnv = {
    NODE_ENV: 'test',
    DEV_SIGN_IN: 'true',
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: testRedisPrefix(`identity-${label}`),
    LOG_LEVEL: 'silent',
    ...env,
  };
  const svc = await startIdentity(fullEnv, { port });
  return {
    svc,
    url: svc.url,
    db,
    env: fullEnv,
    async stop() {
      await svc.stop();
    },
  };
}

/**
 * The body `call()` is typed as unless the caller names another: every field an identity answer
 * can carry (the user of GET /api/me, `{user, access_token}`, the testers lists, the JWKS, the
 * error shape), typed as the service sends it. Nothing is checked at run time: a test reads the
 * fields of the route it calls.
 */
export interface IdentityAnswer extends UserDto {
  access_token: string;
  user: UserDto;
  tester: TesterDto;
  testers: TesterDto[];
  keys: Array<{ kid: string; [field: string]: unknown }>;
  success: boolean;
  detail: string;
  code: string;
  errors: Record<string, string[]>;
}

export async function call<T = IdentityAnswer>(
  url: string,
  path: string,
  opts: {
    method?: string;
    token?: string;
    body?: unknown;
    jar?: CookieJar;
    headers?: Record<string, string>;
  } = {},
): Promise<{ status: number; body: T; res: Response }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.jar) headers.cookie = opts.jar.header();
  const res = await fetch(`${url}${path}`, {
    method: opts.method ?? 'GET',
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  opts.jar?.take(res);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* html */
  }
  return { status: res.status, body: body as T, res };
}

/** Signs in and chooses a role in one go. */
export async function signUpAs(
  url: string,
  email: string,
  body: Record<string, unknown>,
): Promise<{ token: string; jar: CookieJar; user: UserDto }> {
  const s = await signIn(url, email);
  const r = await call(url, '/api/users/init', { method: 'POST', token: s.token, body });
  if (r.status !== 200) throw new Error(`init answered ${r.status}: ${JSON.stringify(r.body)}`);
  return { token: r.body.access_token, jar: s.jar, user: r.body.user };
}

export { waitFor } from '@htm/service-kit/testing';

/** Events identity wrote to its outbox (the same transaction as the change). */
export async function outboxEvents<T extends EventType>(
  t: TestIdentity,
  type: T,
  subject?: string,
): Promise<Array<EventEnvelope<T>>> {
  const rows = await t.svc.ctx.dbHandle.query<{ envelope: EventEnvelope<T> }>(
    `SELECT envelope FROM identity.outbox WHERE type = $1 ${subject ? 'AND subject = $2' : ''} ORDER BY seq`,
    subject ? [type, subject] : [type],
  );
  return rows.map((r) => r.envelope);
}

/** Publishes an event as another service would (through the bus). */
export async function publish<T extends EventType>(
  t: TestIdentity,
  type: T,
  subject: string,
  data: Parameters<typeof createEvent<T>>[2],
) {
  const e = createEvent(type, subject, data);
  await t.svc.ctx.bus.publish([e]);
  return e;
}

export { freePort } from '@htm/service-kit';
