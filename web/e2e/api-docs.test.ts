/**
 * The API reference at /api/docs (Redoc over /api/openapi.json, served by the gateway) in
 * Chromium: it renders every operation group under the page's own CSP (no request leaves the
 * server), and axe finds no critical or serious violation.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser } from 'playwright-core';
import { testRedisPrefix, TEST_REDIS_URL } from '@htm/service-kit/testing';
import { startGateway, type RunningGateway } from '@htm/gateway';
import path from 'node:path';
import { launchBrowser, SCREENSHOT_DIR } from './support/product.js';

let gw: RunningGateway;
let browser: Browser;
const nowhere = 'http://127.0.0.1:1';

beforeAll(async () => {
  gw = await startGateway(
    {
      LOG_LEVEL: 'silent',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: testRedisPrefix('docs'),
      IDENTITY_URL: nowhere,
      JOBS_URL: nowhere,
      PAYMENTS_URL: nowhere,
      ADMIN_URL: nowhere,
      NOTIFICATIONS_URL: nowhere,
      IDENTITY_JWKS_URL: `${nowhere}/jwks`,
      WEB_DIST: '/nonexistent',
      LIVE_ENABLED: 'false',
    },
    { port: 0, host: '127.0.0.1', metricsPort: 0 },
  );
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

describe('/api/docs', () => {
  it('renders the reference from this server only, with no critical or serious accessibility violation', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    // Nothing is fetched from anywhere else (Redoc's footer names a logo on its CDN: the page's
    // CSP blocks it, so no request leaves).
    const elsewhere: string[] = [];
    const blocked: string[] = [];
    page.on('response', (r) => {
      const u = new URL(r.url());
      if (!['blob:', 'data:'].includes(u.protocol) && u.origin !== new URL(gw.url).origin)
        elsewhere.push(r.url());
    });
    page.on('console', (m) => {
      if (
        m.type() === 'error' &&
        /Content Security Policy/i.test(m.text()) &&
        !m.text().includes('https://cdn.redoc.ly/redoc/logo-mini.svg')
      )
        blocked.push(m.text());
    });
    await page.goto(`${gw.url}/api/docs`);
    await page
      .getByRole('heading', { name: /HumanTest marketplace API/ })
      .waitFor({ timeout: 60_000 });
    await page.getByText('/api/auth/google').first().waitFor({ timeout: 30_000 });
    for (const group of ['identity', 'jobs', 'payments', 'admin', 'notifications']) {
      await page.getByText(group, { exact: true }).first().waitFor({ timeout: 10_000 });
    }
    expect(await page.title()).toBe('API reference');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'api-docs.png') });

    const result = await new AxeBuilder({ page }).analyze();
    const bad = result.violations
      .filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .map(
        (v) =>
          `${v.impact} ${v.id}: ${v.nodes
            .map((n) => n.target.join(' '))
            .slice(0, 3)
            .join(', ')}`,
      );
    expect(bad).toEqual([]);
    expect(elsewhere).toEqual([]);
    expect(blocked).toEqual([]);

    await ctx.close();
    // axe over Redoc's whole page: 2.5 min on a two-core machine at load 30 (less when quiet).
  }, 300_000);
});
