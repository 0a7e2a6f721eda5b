/**
 * Starts the whole product with `npm start` on a free port and a fresh DATA_DIR (or uses
 * E2E_BASE_URL when set), and launches Debian's Chromium through playwright-core.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { freePort } from '@htm/service-kit';

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
 * Development sign-in as a poster (picks Site owner / USA on the first sign-in), then waits
 * for the poster dashboard.
 */
export async function signInPoster(p: Page, baseUrl: string, email: string, name = 'Pat') {
  await p.goto(`${baseUrl}/api/auth/dev/login?email=${email}&name=${name}&intent=poster`);
  const chooser = p.getByRole('heading', { name: 'Choose Your Role' });
  const dashboard = p.getByRole('button', { name: 'Post New Job' });
  await chooser.or(dashboard).waitFor();
  if (await chooser.isVisible()) {
    await p.getByLabel(/Site owner/).check();
    await p.getByLabel('Location').selectOption('USA');
    await p.getByRole('button', { name: 'Continue' }).click();
  }
  await dashboard.waitFor();
}

export interface Product {
  baseUrl: string;
  stop(): Promise<void>;
}

/** `npm start` in its own process group (so stop() ends the services and redis it started). */
export async function startProduct(timeoutMs = 150_000): Promise<Product> {
  if (process.env.E2E_BASE_URL)
    return { baseUrl: process.env.E2E_BASE_URL.replace(/\/$/, ''), stop: async () => undefined };
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'htm-e2e-'));
  let output = '';
  // Each product keeps to itself: its own PGlite databases under DATA_DIR (not the suite's
  // DATABASE_URL, whose schemas another file's product would share) and its own key prefix on the
  // suite's Redis (streams, consumer groups and rate limits of two products would otherwise mix).
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    REDIS_PREFIX: `e2e${port}:`,
    // Absolute links handed out by the services point at the origin the browser uses.
    PUBLIC_URL: `http://127.0.0.1:${port}`,
  };
  delete env.DATABASE_URL;
  const child: ChildProcess = spawn('npm', ['start'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const keep = (d: unknown) => (output = (output + String(d)).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const stop = async () => {
    if (child.exitCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
      await new Promise((r) => setTimeout(r, 2000));
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
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
    await new Promise((r) => setTimeout(r, 500));
  }
  await stop();
  throw new Error(`npm start did not serve ${baseUrl} in time. Last output:\n${output}`);
}
