import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import express from 'express';
import { SignJWT } from 'jose';
import {
  ConfigError,
  errorMiddleware,
  createLogger,
  listen,
  mintServiceToken,
  requireServiceToken,
  ServiceKeyring,
  devServiceKey,
  type RunningServer,
} from '../src/index.js';

const CURRENT = 'current-secret-current-secret-current-secret';
const PREVIOUS = 'previous-secret-previous-secret-previous-secr';
let server: RunningServer;
let prodServer: RunningServer;

/** Production keys: one pair per service, configured as PEMs. */
const pair = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jobsKeys = pair();
const adminKeys = pair();
const pem = (k: import('node:crypto').KeyObject) =>
  k.export({ format: 'pem', type: k.type === 'private' ? 'pkcs8' : 'spki' }).toString();
const prodEnv = (self: string, priv: import('node:crypto').KeyObject) => ({
  NODE_ENV: 'production',
  SERVICE_TOKEN_SECRET: CURRENT,
  SERVICE_TOKEN_PRIVATE_KEY: pem(priv),
  SERVICE_TOKEN_PUBLIC_KEYS: JSON.stringify({
    jobs: pem(jobsKeys.publicKey),
    admin: pem(adminKeys.publicKey),
  }),
  self,
});

beforeAll(async () => {
  const app = express();
  app.post(
    '/internal/x',
    requireServiceToken([CURRENT, PREVIOUS], ['jobs']),
    (_req, res) => void res.json({ ok: true }),
  );
  app.use(errorMiddleware(createLogger('t', 'silent')));
  server = await listen(app);
  const prod = express();
  const payments = ServiceKeyring.fromConfig('payments', prodEnv('payments', pair().privateKey), {
    acceptsFrom: ['jobs'],
  });
  prod.post(
    '/internal/x',
    requireServiceToken(payments, ['jobs']),
    (_req, res) => void res.json({ ok: true }),
  );
  prod.use(errorMiddleware(createLogger('t', 'silent')));
  prodServer = await listen(prod);
});
afterAll(async () => {
  await server?.close();
  await prodServer?.close();
});

const call = async (token?: string, url = server.url) => {
  const res = await fetch(`${url}/internal/x`, {
    method: 'POST',
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: res.status, body: (await res.json()) as { detail?: string; code?: string } };
};

describe('internal service tokens (ES256, one key per service)', () => {
  it('admits the named caller signed with its own key (development keys: current or previous secret)', async () => {
    expect((await call(await mintServiceToken(CURRENT, 'jobs'))).status).toBe(200);
    expect((await call(await mintServiceToken(PREVIOUS, 'jobs'))).status).toBe(200);
  });

  it('refuses a missing token, an unknown key and a caller not on the list', async () => {
    expect(await call()).toEqual({
      status: 401,
      body: { detail: 'Service token required.', code: 'service_token_required' },
    });
    expect(
      (await call(await mintServiceToken('some-other-secret-some-other-secret-1234', 'jobs'))).body
        .code,
    ).toBe('invalid_service_token');
    expect((await call(await mintServiceToken(CURRENT, 'admin'))).status).toBe(403);
  });

  it('refuses the old shared-secret HS256 token and one service speaking as another', async () => {
    const hs256 = await new SignJWT({ svc: 'jobs' })
      .setProtectedHeader({ alg: 'HS256', kid: 'jobs' })
      .setSubject('jobs')
      .setAudience('htm-internal')
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(new TextEncoder().encode(CURRENT));
    expect((await call(hs256)).body.code).toBe('invalid_service_token');
    // payments' key signing a token that claims to be jobs.
    const forged = await new SignJWT({ svc: 'jobs' })
      .setProtectedHeader({ alg: 'ES256', kid: 'jobs' })
      .setSubject('jobs')
      .setAudience('htm-internal')
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(devServiceKey(CURRENT, 'payments'));
    expect((await call(forged)).body.code).toBe('invalid_service_token');
    // jobs' own key, but a sub that is not its key id.
    const otherSub = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'jobs' })
      .setSubject('admin')
      .setAudience('htm-internal')
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(devServiceKey(CURRENT, 'jobs'));
    expect((await call(otherSub)).body.code).toBe('invalid_service_token');
  });

  it('requires exp and iat and refuses long-lived or old tokens', async () => {
    const jobsKey = devServiceKey(CURRENT, 'jobs');
    const base = () =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: 'jobs' })
        .setSubject('jobs')
        .setAudience('htm-internal');
    const now = Math.floor(Date.now() / 1000);
    expect((await call(await base().setIssuedAt().sign(jobsKey))).body.code).toBe(
      'invalid_service_token',
    ); // no exp
    expect((await call(await base().setExpirationTime('60s').sign(jobsKey))).body.code).toBe(
      'invalid_service_token',
    ); // no iat
    expect(
      (await call(await base().setIssuedAt().setExpirationTime('1h').sign(jobsKey))).body.code,
    ).toBe('invalid_service_token'); // claims an hour
    expect(
      (
        await call(
          await base()
            .setIssuedAt(now - 600)
            .setExpirationTime(now + 60)
            .sign(jobsKey),
        )
      ).body.code,
    ).toBe('invalid_service_token'); // minted 10 minutes ago
  });

  it('in production verifies with the configured public keys and refuses to start without keys', async () => {
    const jobs = ServiceKeyring.fromConfig('jobs', prodEnv('jobs', jobsKeys.privateKey), {
      signs: true,
      acceptsFrom: ['admin'],
    });
    expect((await call(await jobs.mint(), prodServer.url)).status).toBe(200);
    // The development derivation does not work in production: the secret is not a key.
    expect((await call(await mintServiceToken(CURRENT, 'jobs'), prodServer.url)).body.code).toBe(
      'invalid_service_token',
    );

    expect(() =>
      ServiceKeyring.fromConfig(
        'jobs',
        { NODE_ENV: 'production', SERVICE_TOKEN_SECRET: CURRENT },
        { signs: true, acceptsFrom: ['admin'] },
      ),
    ).toThrow(ConfigError);
    try {
      ServiceKeyring.fromConfig(
        'jobs',
        { NODE_ENV: 'production', SERVICE_TOKEN_SECRET: CURRENT },
        { signs: true, acceptsFrom: ['admin'] },
      );
    } catch (err) {
      expect((err as ConfigError).problems).toEqual([
        expect.stringMatching(/^SERVICE_TOKEN_PRIVATE_KEY: must be set/),
        expect.stringMatching(/^SERVICE_TOKEN_PUBLIC_KEYS: must name the public key of "admin"/),
      ]);
    }
  });
});
