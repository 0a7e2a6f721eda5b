/**
 * The fixed `npm start` contract (ARCHITECTURE.md): the whole marketplace in one command on
 * embedded defaults (PGlite under DATA_DIR, local payments, dev sign-in), Redis started as a
 * child when none answers, the gateway on PORT serving the web app and /api, a URL printed.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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
/** The job the poster start.poster@gmail.com pays for in the contracts test. */
let paidJobId: string;

beforeAll(async () => {
  const port = await freePort();
  deadRedisPort = await freePort(); // nothing listens there: npm start must start its own Redis
  dataDir = mkdtempSync(path.join(tmpdir(), 'htm-npm-start-'));
  base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    REDIS_URL: `redis://127.0.0.1:${deadRedisPort}`,
    METRICS_PORT: '0',
  };
  for (const k of [
    'DATABASE_URL',
    'NODE_ENV',
    'PAYMENTS_PROVIDER',
    'ADMIN_EMAIL',
    'REDIS_PREFIX',
    'DEV_SIGN_IN',
    'HOST',
    'TRUST_PROXY',
    'GOOGLE_CLIENT_ID',
    'GOOGLE_CLIENT_SECRET',
  ])
    delete env[k];
  child = spawn('npm', ['start'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout!.on('data', (d) => (output += String(d)));
  child.stderr!.on('data', (d) => (output += String(d)));
  await waitFor(
    async () => /marketplace running at/.test(output) || child.exitCode !== null,
    'npm start to print its URL',
    170_000,
  );
  if (child.exitCode !== null)
    throw new Error(`npm start exited ${child.exitCode}:\n${output.slice(-3000)}`);
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
    await waitFor(() => !groupAlive(pgid), 'npm start to shut down', 30_000).catch(() =>
      process.kill(-pgid, 'SIGKILL'),
    );
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('prints the URL it serves and starts its own redis-server when none answers', () => {
    expect(output).toMatch(
      new RegExp(`marketplace running at http://localhost:${new URL(base).port}`),
    );
    expect(output).toContain(
      `no Redis answers at redis://127.0.0.1:${deadRedisPort}; starting redis-server`,
    );
    // The embedded default's dev sign-in is announced loudly.
    expect(output).toContain('DEV SIGN-IN IS ON');
    expect(output).toMatch(/started redis-server on port \d+/);
    // Persistent (append-only file under DATA_DIR), so timers and undelivered events survive a restart.
    expect(existsSync(path.join(dataDir, 'redis', 'appendonlydir'))).toBe(true);
  });

  it('serves the web app at / and reports every service healthy at /api/healthz', async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<div id="root">/);
    const health = await fetch(`${base}/api/healthz`);
    expect(health.status).toBe(200);
    // Public: the overall status only (every service ready); details live on the metrics port.
    expect(await health.json()).toEqual({ status: 'ok' });
  });

  it('keeps the fixed contracts: dev sign-in, single-use session exchange, local checkout', async () => {
    const login = await fetch(
      `${base}/api/auth/dev/login?email=start.poster@gmail.com&name=Start&intent=poster`,
      { redirect: 'manual' },
    );
    expect(login.status).toBe(302);
    const sessionId = /^\/#session_id=(.+)$/.exec(login.headers.get('location') ?? '')?.[1];
    expect(sessionId).toBeTruthy();
    // The 302 set the sign-in nonce cookie: the browser that followed it sends it back.
    const nonce = login.headers
      .getSetCookie()
      .find((c) => c.startsWith('signin_nonce='))
      ?.split(';')[0];
    expect(nonce).toBeTruthy();
    const exchange = (cookie = nonce!) =>
      fetch(`${base}/api/auth/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ session_id: sessionId }),
      });
    expect((await exchange('')).status).toBe(401);
    const first = await exchange();
    expect(first.status).toBe(200);
    const { access_token } = (await first.json()) as { access_token: string };
    expect(first.headers.getSetCookie().join(';')).toMatch(/refresh_token=.*HttpOnly/i);
    expect((await exchange()).status).toBe(401);

    const auth = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };
    const init = await fetch(`${base}/api/users/init`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ type: 'poster', location: 'USA' }),
    });
    const token = ((await init.json()) as { access_token: string }).access_token;
    const posted = await fetch(`${base}/api/jobs`, {
      method: 'POST',
      headers: { ...auth, authorization: `Bearer ${token}` },
      body: JSON.stringify({
        title: 'Start test',
        url: 'https://start.example',
        what_to_test: 'Home page',
        requirements: ['Loads'],
      }),
    });
    expect(posted.status).toBe(201);
    const { checkout_url, session_id, job } = (await posted.json()) as {
      checkout_url: string;
      session_id: string;
      job: { id: string };
    };
    paidJobId = job.id;
    expect(checkout_url).toBe(`/api/payments/local/checkout/${session_id}`);
    const page = await fetch(`${base}${checkout_url}`);
    expect(await page.text()).toMatch(/Pay/);
    const pay = await fetch(`${base}${checkout_url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(pay.status).toBe(303);
    expect(pay.headers.get('location')).toBe(`/payment/success?session_id=${session_id}`);
    const status = await waitFor(async () => {
      const r = await fetch(`${base}/api/payments/checkout/status/${session_id}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const b = (await r.json()) as { payment_status: string };
      return b.payment_status === 'paid' ? b : undefined;
    }, 'the payment to be recorded');
    expect(status.payment_status).toBe('paid');
  });

  it('e-mails people in development: written under DATA_DIR/mail and listed at /api/dev/mail', async () => {
    // No intent: a tester who is not approved yet may not sign in with intent=tester.
    const devToken = async (email: string) => {
      const login = await fetch(`${base}/api/auth/dev/login?email=${email}&name=Dev`, {
        redirect: 'manual',
      });
      const sessionId = /#session_id=(.+)$/.exec(login.headers.get('location') ?? '')?.[1];
      const cookie = login.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const r = await fetch(`${base}/api/auth/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ session_id: sessionId }),
      });
      return ((await r.json()) as { access_token: string }).access_token;
    };
    const json = { 'content-type': 'application/json' };
    const signedIn = await devToken('start.tester@gmail.com');
    const init = await fetch(`${base}/api/users/init`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${signedIn}` },
      body: JSON.stringify({ type: 'tester', location: 'USA', country: 'US' }),
    });
    // The answer carries a token with the chosen role.
    const testerToken = ((await init.json()) as { access_token: string }).access_token;
    const testerId = (
      (await (
        await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${testerToken}` } })
      ).json()) as { id: string }
    ).id;
    const adminToken = await devToken('admin@gmail.com');
    const approve = await fetch(`${base}/api/admin/approve-tester/${testerId}`, {
      method: 'PATCH',
      headers: { ...json, authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ approved: true }),
    });
    expect(approve.status).toBe(200);
    const mail = async (to: string) =>
      (
        (await (await fetch(`${base}/api/dev/mail?to=${to}`)).json()) as {
          messages: Array<{ subject: string; text: string }>;
        }
      ).messages;
    const approved = await waitFor(
      async () =>
        (await mail('start.tester@gmail.com')).find((m) => m.subject === "You're approved to test"),
      'the approval e-mail',
    );
    expect(approved.text).toContain(`http://localhost:${new URL(base).port}/dashboard`);

    // An approval change makes the tester's older tokens stale (401 token_stale; the web app refreshes): here she signs in again.
    expect(
      (await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${testerToken}` } }))
        .status,
    ).toBe(401);
    const approvedToken = await devToken('start.tester@gmail.com');
    const claimed = await waitFor(async () => {
      const r = await fetch(`${base}/api/jobs/${paidJobId}/claim`, {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${approvedToken}` },
      });
      return r.status === 200 ? r : undefined;
    }, 'the approved tester to claim the paid job');
    expect(claimed.status).toBe(200);
    expect(
      await waitFor(
        async () =>
          (await mail('start.poster@gmail.com')).find(
            (m) => m.subject === 'A tester is on your job',
          ),
        'the claim e-mail',
      ),
    ).toBeTruthy();
    expect(
      readdirSync(path.join(dataDir, 'mail')).filter((f) => f.endsWith('.eml')).length,
    ).toBeGreaterThanOrEqual(2);
  });
});
