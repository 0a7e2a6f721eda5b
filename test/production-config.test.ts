/**
 * Production configuration (issue #15, findings 1, 4 and 12): the config loaders refuse every
 * secret written down in this repository, weak secrets, a missing FILE_URL_SECRET or
 * JWT_PRIVATE_KEY, the placeholder ADMIN_EMAIL and the dev sign-in; `npm start` switches the dev
 * sign-in on for the embedded default only and binds loopback.
 */
import { describe, expect, it } from '@jest/globals';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, PUBLIC_SECRETS, productionSecretProblems } from '@htm/service-kit';
import { loadIdentityConfig } from '@htm/identity';
import { loadJobsConfig } from '@htm/jobs';
import { loadPaymentsConfig } from '@htm/payments';
import { loadAdminConfig } from '@htm/admin';
import { loadNotificationsConfig } from '@htm/notifications';
import { embeddedEnv, gatewayEnv } from '../scripts/start-env.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const strong = () => randomBytes(48).toString('base64');
const jwtKey = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString();
const serviceKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const servicePublic = serviceKey.publicKey.export({ format: 'pem', type: 'spki' }).toString();

/** A production environment every loader accepts. */
const prod = () => ({
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://svc@db.internal/app',
  SERVICE_TOKEN_PRIVATE_KEY: serviceKey.privateKey
    .export({ format: 'pem', type: 'pkcs8' })
    .toString(),
  SERVICE_TOKEN_PUBLIC_KEYS: JSON.stringify({
    jobs: servicePublic,
    admin: servicePublic,
    identity: servicePublic,
  }),
  AUTH_SECRET: strong(),
  FILE_URL_SECRET: strong(),
  JWT_PRIVATE_KEY: jwtKey,
  ADMIN_EMAIL: 'owner@example.com',
  GOOGLE_CLIENT_ID: 'client-id',
  GOOGLE_CLIENT_SECRET: 'client-secret',
  PAYMENTS_PROVIDER: 'stripe',
  STRIPE_SECRET_KEY: 'sk_live_x',
  STRIPE_WEBHOOK_SECRET: 'whsec_x',
  UNSUBSCRIBE_SECRET: strong(),
  SMTP_URL: 'smtps://mailer:pw@smtp.example.com:465',
});

function problemsOf(load: () => unknown): string[] {
  try {
    load();
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

/** Every `*SECRET*` value written in docker-compose, the k8s manifests and .env.example. */
function secretsInRepository(): string[] {
  const files = ['docker-compose.yml', '.env.example'];
  const walk = (dir: string) => {
    for (const name of readdirSync(path.join(root, dir))) {
      const rel = path.join(dir, name);
      if (statSync(path.join(root, rel)).isDirectory()) walk(rel);
      else if (/\.ya?ml$/.test(name)) files.push(rel);
    }
  };
  walk('deploy/k8s');
  const found = new Set<string>();
  for (const f of files) {
    for (const m of readFileSync(path.join(root, f), 'utf8').matchAll(
      /[A-Z_]*SECRET[A-Z_]*\s*[:=]\s*['"]?(?:\$\{[A-Z_]+:-)?([^\s'"}]{8,})/g,
    )) {
      if (!/^(\$|secretKeyRef)/.test(m[1])) found.add(m[1]);
    }
  }
  return [...found];
}

describe('production secrets (finding 4)', () => {
  it('accepts a complete production configuration', () => {
    for (const load of [
      loadIdentityConfig,
      loadJobsConfig,
      loadPaymentsConfig,
      loadAdminConfig,
      loadNotificationsConfig,
    ])
      expect(problemsOf(() => load(prod()))).toEqual([]);
  });

  it('refuses every secret value written down in the repository, in every service', () => {
    const published = secretsInRepository();
    expect(published).toEqual(
      expect.arrayContaining([
        'compose-only-service-token-secret-0123456789',
        'dev-cluster-identity-auth-secret-0123456789',
      ]),
    );
    for (const value of published) {
      expect([
        value,
        PUBLIC_SECRETS.includes(value) || /^(dev-only|compose-only|dev-cluster)/.test(value),
      ]).toEqual([value, true]);
      expect(problemsOf(() => loadIdentityConfig({ ...prod(), AUTH_SECRET: value }))).toEqual([
        expect.stringMatching(/^AUTH_SECRET: /),
      ]);
      expect(problemsOf(() => loadJobsConfig({ ...prod(), FILE_URL_SECRET: value }))).toEqual([
        expect.stringMatching(/^FILE_URL_SECRET: /),
      ]);
    }
    // Long enough to pass the length rule, they are refused for being public.
    expect(
      problemsOf(() =>
        loadIdentityConfig({
          ...prod(),
          AUTH_SECRET: 'compose-only-identity-auth-secret-0123456789',
        }),
      ),
    ).toEqual([expect.stringMatching(/^AUTH_SECRET: this value is published/)]);
    expect(
      problemsOf(() =>
        loadPaymentsConfig({
          ...prod(),
          PAYMENTS_PROVIDER: 'local',
          PAYMENTS_ALLOW_LOCAL_IN_PRODUCTION: 'true',
          LOCAL_WEBHOOK_SECRET: 'whsec_dev_only_local_payments_secret',
        }),
      ),
    ).toEqual([expect.stringMatching(/^LOCAL_WEBHOOK_SECRET: this value is published/)]);
  });

  it('requires UNSUBSCRIBE_SECRET itself (never derived), not a repository value, with enough entropy', () => {
    const { UNSUBSCRIBE_SECRET: _omit, ...env } = prod();
    expect(problemsOf(() => loadNotificationsConfig(env))).toEqual([
      'UNSUBSCRIBE_SECRET: must be set in production',
    ]);
    for (const value of secretsInRepository().filter((v) => v.length >= 32)) {
      expect(
        problemsOf(() => loadNotificationsConfig({ ...prod(), UNSUBSCRIBE_SECRET: value })),
      ).toEqual([expect.stringMatching(/^UNSUBSCRIBE_SECRET: this value is published/)]);
    }
    expect(
      problemsOf(() => loadNotificationsConfig({ ...prod(), UNSUBSCRIBE_SECRET: 'x'.repeat(64) })),
    ).toEqual([expect.stringMatching(/^UNSUBSCRIBE_SECRET: too weak/)]);
    // Outside production the derived default stays.
    expect(problemsOf(() => loadNotificationsConfig({ ...env, NODE_ENV: 'development' }))).toEqual(
      [],
    );
  });

  it("refuses the repository's development webhook secret as STRIPE_WEBHOOK_SECRET", () => {
    for (const value of ['whsec_dev_only_local_payments_secret', 'whsec_dev_only_anything_else']) {
      expect(
        problemsOf(() => loadPaymentsConfig({ ...prod(), STRIPE_WEBHOOK_SECRET: value })),
      ).toEqual([expect.stringMatching(/^STRIPE_WEBHOOK_SECRET: this value is published/)]);
    }
    expect(
      problemsOf(() =>
        loadPaymentsConfig({ ...prod(), STRIPE_WEBHOOK_SECRET: 'whsec_live_signing_secret' }),
      ),
    ).toEqual([]);
    // Outside production the local secret is the embedded default.
    expect(
      problemsOf(() =>
        loadPaymentsConfig({
          ...prod(),
          NODE_ENV: 'development',
          STRIPE_WEBHOOK_SECRET: 'whsec_dev_only_local_payments_secret',
        }),
      ),
    ).toEqual([]);
  });

  it('refuses secrets with less than 32 bytes of entropy', () => {
    for (const weak of [
      'x'.repeat(64),
      'a-production-secret-that-is-long-enough-1234',
      randomBytes(16).toString('hex'),
    ]) {
      expect(productionSecretProblems('AUTH_SECRET', weak)).toEqual([
        expect.stringMatching(/too weak/),
      ]);
      expect(problemsOf(() => loadIdentityConfig({ ...prod(), AUTH_SECRET: weak }))).toEqual([
        expect.stringMatching(/^AUTH_SECRET: too weak/),
      ]);
    }
    for (let i = 0; i < 20; i++) {
      expect(productionSecretProblems('X', randomBytes(32).toString('hex'))).toEqual([]);
      expect(productionSecretProblems('X', randomBytes(36).toString('base64url'))).toEqual([]);
    }
  });

  it('requires FILE_URL_SECRET itself (never derived from the service token secret)', () => {
    const { FILE_URL_SECRET: _omit, ...env } = prod();
    expect(problemsOf(() => loadJobsConfig(env))).toEqual([
      'FILE_URL_SECRET: must be set in production',
    ]);
  });

  it('refuses the placeholder ADMIN_EMAIL of the prod overlay', () => {
    const overlay = readFileSync(
      path.join(root, 'deploy/k8s/overlays/prod/kustomization.yaml'),
      'utf8',
    );
    const placeholder = /ADMIN_EMAIL=(\S+)/.exec(overlay)?.[1];
    expect(placeholder).toBeTruthy();
    expect(problemsOf(() => loadIdentityConfig({ ...prod(), ADMIN_EMAIL: placeholder }))).toEqual([
      expect.stringMatching(/^ADMIN_EMAIL: .*placeholder/),
    ]);
  });
});

describe('service-token keys (finding 7)', () => {
  it('refuses production without per-service keys: the development secret is no key', () => {
    const { SERVICE_TOKEN_PRIVATE_KEY: _p, SERVICE_TOKEN_PUBLIC_KEYS: _k, ...env } = prod();
    const withSecret = { ...env, SERVICE_TOKEN_SECRET: strong() };
    expect(problemsOf(() => loadAdminConfig(withSecret))).toEqual([
      expect.stringMatching(/^SERVICE_TOKEN_PRIVATE_KEY: must be set/),
    ]);
    expect(problemsOf(() => loadPaymentsConfig(withSecret))).toEqual([
      expect.stringMatching(/^SERVICE_TOKEN_PUBLIC_KEYS: must name the public key of "jobs"/),
    ]);
    expect(problemsOf(() => loadJobsConfig(withSecret))).toHaveLength(2);
  });
});

describe('webhooks to private addresses (issue 32)', () => {
  it('are refused in production and allowed by npm start only', () => {
    expect(problemsOf(() => loadJobsConfig({ ...prod(), WEBHOOKS_ALLOW_PRIVATE: 'true' }))).toEqual(
      [expect.stringMatching(/^WEBHOOKS_ALLOW_PRIVATE: must not be true in production/)],
    );
    expect(loadJobsConfig(prod()).WEBHOOKS_ALLOW_PRIVATE).toBe(false);
    expect(loadJobsConfig({}).WEBHOOKS_ALLOW_PRIVATE).toBe(false);
    expect(embeddedEnv({}).WEBHOOKS_ALLOW_PRIVATE).toBe('true');
    expect(embeddedEnv({ NODE_ENV: 'production' }).WEBHOOKS_ALLOW_PRIVATE).toBeUndefined();
  });
});

describe('jobs naming local addresses for the health check (issue 53)', () => {
  it('is refused in production and never switched on by npm start', () => {
    expect(
      problemsOf(() => loadJobsConfig({ ...prod(), SITE_CHECK_ALLOW_PRIVATE: 'true' })),
    ).toEqual([expect.stringMatching(/^SITE_CHECK_ALLOW_PRIVATE: must not be true in production/)]);
    expect(loadJobsConfig(prod()).SITE_CHECK_ALLOW_PRIVATE).toBe(false);
    expect(loadJobsConfig({}).SITE_CHECK_ALLOW_PRIVATE).toBe(false);
    expect(embeddedEnv({}).SITE_CHECK_ALLOW_PRIVATE).toBeUndefined();
  });
});

describe('managed signing key (finding 12)', () => {
  it('refuses production without JWT_PRIVATE_KEY (no plaintext key generated into the database)', () => {
    const { JWT_PRIVATE_KEY: _omit, ...env } = prod();
    expect(problemsOf(() => loadIdentityConfig(env))).toEqual([
      expect.stringMatching(/^JWT_PRIVATE_KEY: must be set in production/),
    ]);
  });
});

describe('the development sign-in switch (finding 1)', () => {
  it('is never allowed in production', () => {
    const { GOOGLE_CLIENT_ID: _a, GOOGLE_CLIENT_SECRET: _b, ...noGoogle } = prod();
    expect(problemsOf(() => loadIdentityConfig({ ...noGoogle, DEV_SIGN_IN: 'true' }))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^DEV_SIGN_IN:/)]),
    );
  });

  it('is off unless switched on; npm start switches it on for the embedded default only and binds loopback', () => {
    expect(loadIdentityConfig({}).DEV_SIGN_IN).toBe(false);
    const base = embeddedEnv({});
    expect(base.DEV_SIGN_IN).toBe('true');
    expect(embeddedEnv({ GOOGLE_CLIENT_ID: 'id' }).DEV_SIGN_IN).toBeUndefined();
    expect(embeddedEnv({ DEV_SIGN_IN: 'false' }).DEV_SIGN_IN).toBe('false');
    expect(gatewayEnv(base, {})).toMatchObject({ HOST: '127.0.0.1', TRUST_PROXY: 'false' });
    expect(gatewayEnv(base, { HOST: '0.0.0.0', TRUST_PROXY: '10.0.0.0/8' })).toMatchObject({
      HOST: '0.0.0.0',
      TRUST_PROXY: '10.0.0.0/8',
    });
    // docker-compose leaves it off.
    expect(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')).not.toMatch(
      /DEV_SIGN_IN:\s*['"]?true/,
    );
  });
});
