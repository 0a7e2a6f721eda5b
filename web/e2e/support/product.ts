/**
 * Starts the whole product with `npm start` on a free port and a fresh DATA_DIR (or uses
 * E2E_BASE_URL when set), and launches Debian's Chromium through playwright-core.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  chromium,
  type Browser,
  type ConsoleMessage,
  type Page,
  type Request,
  type Response,
} from 'playwright-core';
import { freePort } from '@htm/service-kit';
import { createTestDatabase, type TestDatabase } from '@htm/service-kit/testing';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
}

export const SCREENSHOT_DIR = path.join(root, 'test-results', 'screenshots');

/** Saves a full-page PNG of the current screen as test-results/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({
    path: path.join(SCREENSHOT_DIR, `${name}.png`),
    fullPage: true,
    animations: 'disabled',
  });
}

/**
 * Runs a step in the browser; if it fails, the error tells what the page showed (its text, and
 * during the step every API answer, every answer >= 400, failed request, page error and console
 * error) and test-results/screenshots/failed-<name>.png keeps the screen: a timeout alone says
 * only what did not appear.
 */
export async function withPageEvidence<T>(
  p: Page,
  name: string,
  step: () => Promise<T>,
): Promise<T> {
  const seen: string[] = [];
  const onResponse = (r: Response) => {
    const { pathname } = new URL(r.url());
    if (r.status() >= 400 || pathname.startsWith('/api/'))
      seen.push(`${r.status()} ${r.request().method()} ${pathname}`);
  };
  const onFailed = (r: Request) =>
    seen.push(`failed ${r.method()} ${new URL(r.url()).pathname}: ${r.failure()?.errorText}`);
  const onError = (e: Error) => seen.push(`page error: ${e.message}`);
  const onConsole = (m: ConsoleMessage) => {
    if (m.type() === 'error') seen.push(`console error: ${m.text()}`);
  };
  p.on('response', onResponse);
  p.on('requestfailed', onFailed);
  p.on('pageerror', onError);
  p.on('console', onConsole);
  try {
    return await step();
  } catch (err) {
    await screenshot(p, `failed-${name}`).catch(() => undefined);
    const text = await p
      .locator('body')
      .innerText({ timeout: 2000 })
      .catch(() => '(no text)');
    if (err instanceof Error) {
      const evidence = `\n${name}: the page (${p.url()}) showed:\n${text.slice(0, 1500)}\nDuring the step (API answers, answers >= 400, failures, errors): ${seen.join('; ') || 'none'}`;
      // jest prints the stack, whose first lines hold the message as it was when thrown.
      if (err.stack)
        err.stack = err.stack.includes(err.message)
          ? err.stack.replace(err.message, () => err.message + evidence)
          : err.stack + evidence;
      err.message += evidence;
    }
    throw err;
  } finally {
    p.off('response', onResponse);
    p.off('requestfailed', onFailed);
    p.off('pageerror', onError);
    p.off('console', onConsole);
  }
}

/**
 * Development sign-in as a poster (picks Site owner / USA on the first sign-in), then waits
 * for the poster dashboard.
 */
export async function signInPoster(p: Page, baseUrl: string, email: string, name = 'Pat') {
  await withPageEvidence(p, `sign-in-${email}`, async () => {
    await p.goto(`${baseUrl}/api/auth/dev/login?email=${email}&name=${name}&intent=poster`);
    // Exact names: the signed-in landing page's "Open Post New Job" is not the dashboard's.
    const chooser = p.getByRole('heading', { name: 'Choose Your Role', exact: true });
    const dashboard = p.getByRole('button', { name: 'Post New Job', exact: true });
    await chooser.or(dashboard).waitFor();
    if (await chooser.isVisible()) {
      await p.getByLabel(/Site owner/).check();
      await p.getByLabel('Location').selectOption('USA');
      await p.getByRole('button', { name: 'Continue' }).click();
    }
    await dashboard.waitFor();
  });
}

export interface Product {
  baseUrl: string;
  stop(): Promise<void>;
}

/** `npm start` in its own process group (so stop() ends the services and redis it started). */
export async function startProduct(
  timeoutMs = 150_000,
  /** Settings of this product on top of the suite's environment (e.g. SITE_CHECK_ALLOW_PRIVATE). */
  extraEnv: Record<string, string> = {},
): Promise<Product> {
  if (process.env.E2E_BASE_URL)
    return { baseUrl: process.env.E2E_BASE_URL.replace(/\/$/, ''), stop: async () => undefined };
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'htm-e2e-'));
  let output = '';
  // Each product keeps to itself: its own database and its own key prefix on the suite's Redis
  // (schemas, streams, consumer groups and rate limits of two products would otherwise mix). The
  // database is a fresh one on the suite's PostgreSQL when DATABASE_URL names one (as in CI): it
  // starts in a fraction of the time of PGlite's (six WebAssembly databases migrated at start,
  // 145 s against 30 s on a loaded two-core machine); else PGlite under DATA_DIR, npm start's own
  // default (test/npm-start.test.ts covers that one).
  let db: TestDatabase | undefined;
  if (process.env.DATABASE_URL) db = await createTestDatabase('e2e');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    REDIS_PREFIX: `e2e${port}:`,
    // Absolute links handed out by the services point at the origin the browser uses.
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // Session checks (#52) hold every report until they pass, and would judge a flow's reused
    // report texts as copies: a file about them turns them on (SESSION_CHECKS=on).
    SESSION_CHECKS: 'off',
    ...extraEnv,
  };
  if (db) env.DATABASE_URL = db.url;
  else delete env.DATABASE_URL;
  const child: ChildProcess = spawn('npm', ['start'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const keep = (d: unknown) => (output = (output + String(d)).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  /** True while any process of npm start's group is alive (npm, the product, its children). */
  const groupAlive = (pgid: number) => {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  };
  // SIGTERM, then waits for the whole group to exit (its shutdown closes servers and consumers);
  // SIGKILL only for what is still there after 10 s.
  const stop = async () => {
    const pgid = child.pid;
    if (pgid && groupAlive(pgid)) {
      process.kill(-pgid, 'SIGTERM');
      const deadline = Date.now() + 10_000;
      while (groupAlive(pgid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
    await db?.drop().catch(() => undefined);
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      const res = await fetch(`${baseUrl}/`);
      if (res.ok) return { baseUrl, stop };
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`npm start did not serve ${baseUrl} in time. Last output:\n${output}`);
}
