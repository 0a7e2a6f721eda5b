/**
 * The fixed `npm start` contract (ARCHITECTURE.md): the whole marketplace in one command on
 * embedded defaults (PGlite under DATA_DIR, local payments, dev sign-in), Redis started as a
 * child when none answers, the gateway on PORT serving the web app and /api, a URL printed.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@htm/service-kit';
import { waitFor } from '@htm/service-kit/testing';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let child: ChildProcess;
let output = '';
let base: string;
let dataDir: string;
let deadRedisPort: number;

beforeAll(async () => {
  const port = await freePort();
  deadRedisPort = await freePort(); // nothing listens there: npm start must start its own Redis
  dataDir = mkdtempSync(path.join(tmpdir(), 'htm-npm-start-'));
  base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir, REDIS_URL: `redis://127.0.0.1:${deadRedisPort}`, METRICS_PORT: '0' };
  for (const k of ['DATABASE_URL', 'NODE_ENV', 'PAYMENTS_PROVIDER', 'ADMIN_EMAIL', 'REDIS_PREFIX']) delete env[k];
  child = spawn('npm', ['start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout!.on('data', (d) => (output += String(d)));
  child.stderr!.on('data', (d) => (output += String(d)));
  await waitFor(async () => /marketplace running at/.test(output) || child.exitCode !== null, 'npm start to print its URL', 170_000);
  if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}:\n${output.slice(-3000)}`);
}, 180_000);

/** True while any process of npm start's process group is alive. */
const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

afterAll(async () => {
  const pgid = child?.pid;
  if (pgid && groupAlive(pgid)) {
    process.kill(-pgid, 'SIGTERM');
    await waitFor(() => !groupAlive(pgid), 'npm start to shut down', 30_000).catch(() => process.kill(-pgid, 'SIGKILL'));
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('prints the URL it serves and starts its own redis-server when none answers', () => {
    expect(output).toMatch(new RegExp(`marketplace running at http://localhost:${new URL(base).port}`));
    expect(output).toContain(`no Redis answers at redis://127.0.0.1:${deadRedisPort}; starting redis-server`);
    expect(output).toMatch(/started redis-server on port \d+/);
  });

  it('serves the web app at / and reports every service healthy at /api/healthz', async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<div id="root">/);
    const health = await fetch(`${base}/api/healthz`);
    expect(health.status).toBe(200);
    const body = (await health.json()) as { services: Record<string, { status: string }> };
    expect(Object.keys(body.services).sort()).toEqual(['admin', 'identity', 'jobs', 'payments']);
    for (const s of Object.values(body.services)) expect(s.status).toBe('ok');
  });

  it('keeps the fixed contracts: dev sign-in, single-use session exchange, local checkout', async () => {
    const login = await fetch(`${base}/api/auth/dev/login?email=start.poster@gmail.com&name=Start&intent=poster`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    const sessionId = /^\/#session_id=(.+)$/.exec(login.headers.get('location') ?? '')?.[1];
    expect(sessionId).toBeTruthy();
    const exchange = () => fetch(`${base}/api/auth/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ session_id: sessionId }) });
    const first = await exchange();
    expect(first.status).toBe(200);
    const { access_token } = (await first.json()) as { access_token: string };
    expect(first.headers.getSetCookie().join(';')).toMatch(/refresh_token=.*HttpOnly/i);
    expect((await exchange()).status).toBe(401);

    const auth = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };
    const init = await fetch(`${base}/api/users/init`, { method: 'POST', headers: auth, body: JSON.stringify({ type: 'poster', location: 'USA' }) });
    const token = ((await init.json()) as { access_token: string }).access_token;
    const posted = await fetch(`${base}/api/jobs`, {
      method: 'POST',
      headers: { ...auth, authorization: `Bearer ${token}` },
      body: JSON.stringify({ title: 'Start test', url: 'https://start.example', what_to_test: 'Home page', requirements: ['Loads'] }),
    });
    expect(posted.status).toBe(201);
    const { checkout_url, session_id } = (await posted.json()) as { checkout_url: string; session_id: string };
    expect(checkout_url).toBe(`/api/payments/local/checkout/${session_id}`);
    const page = await fetch(`${base}${checkout_url}`);
    expect(await page.text()).toMatch(/Pay/);
    const pay = await fetch(`${base}${checkout_url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(pay.status).toBe(303);
    expect(pay.headers.get('location')).toBe(`/payment/success?session_id=${session_id}`);
    const status = await waitFor(async () => {
      const r = await fetch(`${base}/api/payments/checkout/status/${session_id}`, { headers: { authorization: `Bearer ${token}` } });
      const b = (await r.json()) as { payment_status: string };
      return b.payment_status === 'paid' ? b : undefined;
    }, 'the payment to be recorded');
    expect(status.payment_status).toBe('paid');
  });
});
