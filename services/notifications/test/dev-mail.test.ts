/** The embedded default: no SMTP_URL, each message an .eml under DATA_DIR/mail, readable at GET /api/dev/mail. */
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startNotifications } from '../src/main.js';
import { knownUser, startHarness, waitFor, type Harness } from './support.js';

let h: Harness;
const dataDir = mkdtempSync(path.join(tmpdir(), 'notifications-mail-'));

beforeAll(async () => {
  h = await startHarness('notif_file', { DATA_DIR: dataDir, DEV_SIGN_IN: 'true' });
});
afterAll(async () => {
  await h?.close();
});

describe('without SMTP_URL', () => {
  it('writes each message as an .eml file and lists it, newest first, at GET /api/dev/mail?to=', async () => {
    const tester = await knownUser(h, 'file.tester@gmail.com');
    await h.publish('TesterApprovalChanged', tester.id, {
      userId: tester.id,
      email: tester.email,
      name: 'Sam',
      approved: true,
      country: 'US',
      location: 'USA',
      reason: 'admin',
    });
    await h.publish('TesterPaid', tester.id, {
      testerId: tester.id,
      payoutId: randomUUID(),
      amountCents: 82,
      jobIds: [],
      paidAt: new Date().toISOString(),
    });
    const body = await waitFor(async () => {
      const r = await fetch(
        `${h.url}/api/dev/mail?to=${encodeURIComponent('File.Tester@gmail.com')}`,
      );
      const b = (await r.json()) as {
        messages: Array<{ to: string; subject: string; text: string; created_at: string }>;
      };
      return b.messages.length === 2 ? b : undefined;
    }, 'two messages listed');
    expect(body.messages.map((m) => m.subject)).toEqual([
      'You were paid $0.82',
      "You're approved to test",
    ]);
    expect(body.messages[0]).toMatchObject({
      to: tester.email,
      text: expect.stringContaining('http://app.example/dashboard'),
    });
    expect(Date.parse(body.messages[0].created_at)).toBeGreaterThanOrEqual(
      Date.parse(body.messages[1].created_at),
    );

    const files = readdirSync(path.join(dataDir, 'mail')).filter((f) => f.endsWith('.eml'));
    expect(files).toHaveLength(2);
    const raw = files.map((f) => readFileSync(path.join(dataDir, 'mail', f), 'utf8')).join('\n');
    expect(raw).toContain('Subject: You were paid $0.82');
    expect(raw).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(raw).toContain('text/html');
  });

  it('answers 400 for a missing or bad address', async () => {
    const r = await fetch(`${h.url}/api/dev/mail`);
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({
      code: 'validation_error',
      errors: { to: expect.any(Array) },
    });
  });
});

describe('refused outside the development sign-in without SMTP', () => {
  const start = (env: Record<string, string>) =>
    startNotifications(
      {
        NODE_ENV: 'development',
        DATABASE_URL: h.db.url,
        REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        REDIS_PREFIX: `${h.svc.ctx.config.REDIS_PREFIX}${randomUUID().slice(0, 8)}:`,
        LOG_LEVEL: 'silent',
        IDENTITY_URL: h.issuer.url,
        DATA_DIR: dataDir,
        ...env,
      },
      { port: 0 },
    );
  it.each([
    ['the development sign-in is off (docker-compose default)', {}],
    [
      'Google is configured',
      { DEV_SIGN_IN: 'true', GOOGLE_CLIENT_ID: 'client.apps.googleusercontent.com' },
    ],
    ['an SMTP server is configured', { DEV_SIGN_IN: 'true', SMTP_URL: 'smtp://127.0.0.1:9' }],
  ])('answers 404 when %s', async (_why, env: Record<string, string>) => {
    const svc = await start(env);
    try {
      const r = await fetch(`${svc.url}/api/dev/mail?to=file.tester@gmail.com`);
      expect(r.status).toBe(404);
      expect(await r.json()).toMatchObject({ code: 'not_found' });
    } finally {
      await svc.stop();
    }
  });
});

describe('in production', () => {
  it('has no /api/dev/mail (404)', async () => {
    const svc = await startNotifications(
      {
        NODE_ENV: 'production',
        DATABASE_URL: h.db.url,
        REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        REDIS_PREFIX: `${h.svc.ctx.config.REDIS_PREFIX}prod:`,
        LOG_LEVEL: 'silent',
        IDENTITY_URL: h.issuer.url,
        SERVICE_TOKEN_SECRET: 'production-like-secret-0123456789abcdef0123',
        // identity's /internal/privacy calls are accepted with identity's public key.
        SERVICE_TOKEN_PUBLIC_KEYS: JSON.stringify({
          identity: generateKeyPairSync('ec', { namedCurve: 'P-256' })
            .publicKey.export({ format: 'pem', type: 'spki' })
            .toString(),
        }),
        UNSUBSCRIBE_SECRET: 'Vq3n9T0xR2pLk8ZmY4cW7sJd1HfBgA6eUoN5iQrXtC0vPz',
        SMTP_URL: 'smtp://127.0.0.1:9',
      },
      { port: 0 },
    );
    try {
      const r = await fetch(`${svc.url}/api/dev/mail?to=file.tester@gmail.com`);
      expect(r.status).toBe(404);
    } finally {
      await svc.stop();
    }
  });
});
