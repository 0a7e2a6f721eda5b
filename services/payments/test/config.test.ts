import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@htm/service-kit';
import { loadPaymentsConfig } from '../src/config.js';

const jobsPublicKey = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .publicKey.export({ format: 'pem', type: 'spki' })
  .toString();
const prodBase = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://db/x',
  SERVICE_TOKEN_PUBLIC_KEYS: JSON.stringify({ jobs: jobsPublicKey, identity: jobsPublicKey }),
};

function problems(env: Record<string, string>): string[] {
  try {
    loadPaymentsConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

describe('payments configuration', () => {
  it('defaults to the local provider with a development webhook secret', () => {
    const cfg = loadPaymentsConfig({});
    expect(cfg.PAYMENTS_PROVIDER).toBe('local');
    expect(cfg.PORT).toBe(8083);
    if (cfg.PAYMENTS_PROVIDER === 'local') expect(cfg.LOCAL_WEBHOOK_SECRET).toMatch(/^whsec_dev/);
  });

  it('requires both Stripe keys in stripe mode, naming each', () => {
    const p = problems({ PAYMENTS_PROVIDER: 'stripe' });
    expect(p.some((x) => x.startsWith('STRIPE_SECRET_KEY'))).toBe(true);
    expect(p.some((x) => x.startsWith('STRIPE_WEBHOOK_SECRET'))).toBe(true);
    expect(
      problems({
        PAYMENTS_PROVIDER: 'stripe',
        STRIPE_SECRET_KEY: 'sk_test_1',
        STRIPE_WEBHOOK_SECRET: 'whsec_1',
      }),
    ).toEqual([]);
    expect(problems({ PAYMENTS_PROVIDER: 'paypal' }).length).toBeGreaterThan(0);
  });

  it('refuses the local provider in production unless explicitly allowed with a real secret', () => {
    expect(problems(prodBase)[0]).toMatch(/^PAYMENTS_PROVIDER: the local \(simulated\) provider/);
    expect(problems({ ...prodBase, PAYMENTS_ALLOW_LOCAL_IN_PRODUCTION: 'true' })[0]).toMatch(
      /^LOCAL_WEBHOOK_SECRET/,
    );
    expect(
      problems({
        ...prodBase,
        PAYMENTS_ALLOW_LOCAL_IN_PRODUCTION: 'true',
        LOCAL_WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64url')}`,
      }),
    ).toEqual([]);
    expect(
      problems({
        ...prodBase,
        PAYMENTS_ALLOW_LOCAL_IN_PRODUCTION: 'true',
        LOCAL_WEBHOOK_SECRET: 'whsec_demo_secret_1234567890',
      })[0],
    ).toMatch(/^LOCAL_WEBHOOK_SECRET: too weak/);
    expect(
      problems({
        ...prodBase,
        PAYMENTS_PROVIDER: 'stripe',
        STRIPE_SECRET_KEY: 'sk_live_1',
        STRIPE_WEBHOOK_SECRET: 'whsec_1',
      }),
    ).toEqual([]);
  });
});
