import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Stripe from 'stripe';
import {
  createTestDatabase,
  createTestIssuer,
  testRedisPrefix,
  TEST_REDIS_URL,
  type TestDatabase,
  type TestIssuer,
} from '@htm/service-kit/testing';
import { mintServiceToken } from '@htm/service-kit';
import { startPayments, type PaymentsService } from '../../src/main.js';
import { StripeStandIn } from './stripe-stand-in.js';

export const SERVICE_SECRET = 'test-service-token-secret-0123456789abcdef';
export const STRIPE_WEBHOOK_SECRET = 'whsec_test_standin_secret';

export interface Harness {
  svc: PaymentsService;
  db: TestDatabase;
  issuer: TestIssuer;
  stripe?: StripeStandIn;
  env: Record<string, string>;
  /** A fresh process-like instance on the same database (after a stop or a "crash"). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts payments against a fresh Postgres database, a Redis prefix, a token issuer and (stripe
 * mode) the stand-in. `pglite`: `npm start`'s embedded database instead, PGlite in a fresh
 * DATA_DIR (a restart reopens the same files).
 */
export async function startHarness(
  label: string,
  mode: 'local' | 'stripe',
  extraEnv: Record<string, string> = {},
  opts: { pglite?: boolean } = {},
): Promise<Harness> {
  const db = await createTestDatabase(`payments_${label}`);
  const dataDir = opts.pglite ? mkdtempSync(path.join(tmpdir(), `payments-${label}-`)) : undefined;
  const issuer = await createTestIssuer();
  const stripe = mode === 'stripe' ? await new StripeStandIn().start() : undefined;
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: testRedisPrefix(`payments-${label}`),
    LOG_LEVEL: 'silent',
    IDENTITY_URL: issuer.url,
    SERVICE_TOKEN_SECRET: SERVICE_SECRET,
    PUBLIC_URL: 'http://localhost:8080',
    PAYMENTS_PROVIDER: mode,
    // These tests change the stand-in Stripe's answers between calls: no reuse of look-ups.
    PROVIDER_CACHE_MS: '0',
    ...(stripe
      ? {
          STRIPE_SECRET_KEY: 'sk_test_standin',
          STRIPE_WEBHOOK_SECRET,
          STRIPE_API_HOST: '127.0.0.1',
          STRIPE_API_PORT: String(stripe.port),
          STRIPE_API_PROTOCOL: 'http',
          STRIPE_MAX_NETWORK_RETRIES: '1',
        }
      : {}),
    ...extraEnv,
  };
  if (dataDir) {
    delete env.DATABASE_URL;
    env.DATA_DIR = dataDir;
  }
  const h: Harness = {
    svc: await startPayments(env, { port: 0 }),
    db,
    issuer,
    stripe,
    env,
    async restart() {
      await h.svc.stop();
      h.svc = await startPayments(env, { port: 0 });
    },
    async close() {
      await h.svc.stop();
      await stripe?.close();
      await issuer.close();
      await db.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}

/** jobs asking payments for a checkout (service token). */
export async function createCheckout(
  h: Harness,
  body: Record<string, unknown>,
  from = 'jobs',
): Promise<Response> {
  const token = await mintServiceToken(SERVICE_SECRET, from);
  return fetch(`${h.svc.url}/internal/checkout-sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** A webhook body and Stripe-Signature header, signed as Stripe signs. */
export function signedWebhook(
  secret: string,
  type: string,
  object: Record<string, unknown>,
  opts: { id?: string; timestamp?: number } = {},
): { payload: string; header: string; id: string } {
  const id = opts.id ?? `evt_${Math.random().toString(36).slice(2)}${Date.now()}`;
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const payload = JSON.stringify({
    id,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: timestamp,
    type,
    livemode: false,
    pending_webhooks: 1,
    data: { object },
  });
  return {
    payload,
    header: Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }),
    id,
  };
}

export function postWebhook(h: Harness, payload: string, header: string): Promise<Response> {
  return fetch(`${h.svc.url}/api/payments/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header },
    body: payload,
  });
}

export async function bearer(
  h: Harness,
  claims: Parameters<TestIssuer['mint']>[0],
): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await h.issuer.mint(claims)}` };
}

/** Rows of raw SQL against the service's database. */
export function q<T = Record<string, unknown>>(
  h: Harness,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  return h.svc.ctx.dbHandle.query<T>(text, params);
}

/** Polls until check() returns a truthy value (events travel through Redis). */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  tries = 100,
): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}
