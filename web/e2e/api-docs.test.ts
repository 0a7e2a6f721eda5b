/**
 * The API reference at /api/docs (Redoc over /api/openapi.json, served by the gateway) in
 * Chromium: it renders every operation group under the page's own CSP (no request leaves the
 * server), no heading skips a level (Redoc's h5s are re-levelled by init.js), and axe finds no
 * critical, serious or moderate violation.
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
}, 180_000); // starting a stack on a busy machine can take over a minute
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

describe('/api/docs', () => {
  it('renders the reference from this server only, headings in order, with no critical, serious or moderate accessibility violation', async () => {
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

    // One response expanded: its "Response Schema" markup is audited too, and it is rendered
    // after the first pass of init.js (its level is given on the re-render).
    const exchange = page.locator('[id="tag/identity/paths/~1api~1auth~1session/post"]');
    await exchange.locator('button', { hasText: '200' }).first().click();
    await exchange
      .locator('h5[aria-level="4"]', { hasText: 'Response Schema' })
      .waitFor({ timeout: 10_000 });

    // Heading order over the whole page (cheap, no axe): each heading at most one level below
    // the one before it, counting the aria-level init.js gives.
    const levels = await page.evaluate(() =>
      [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')]
        .filter((h) => h.getClientRects().length > 0)
        .map((h) => ({
          text: (h.textContent ?? '').trim().slice(0, 60),
          level: Number(h.getAttribute('aria-level') ?? h.tagName.charAt(1)),
        })),
    );
    expect(levels.length).toBeGreaterThan(300);
    expect(levels[0]).toEqual({
      text: expect.stringContaining('HumanTest marketplace API'),
      level: 1,
    });
    const skips = levels.filter((h, i) => i > 0 && h.level > levels[i - 1]!.level + 1);
    expect(skips).toEqual([]);

    // axe over the whole page takes 2-5 minutes (~26,000 elements; ~15 s this way), so it audits what covers
    // every kind of markup Redoc renders: the header, the side menu (search, groups, footer),
    // one group's heading and, for each kind of operation part (authorizations, path/query
    // parameters, JSON and multipart bodies, the expanded response, each HTTP method), the first
    // operation that has it, with its request/response samples. Every other operation is the
    // same components with other text.
    const operations = await page.evaluate(() => {
      const chosen = new Set<string>();
      const covered = new Set<string>();
      for (const op of document.querySelectorAll('[id*="/paths/"]')) {
        const kinds = [
          `method ${op.id.split('/').pop()}`,
          ...[...op.querySelectorAll('h5')].map((h) => (h.textContent ?? '').trim()),
        ];
        if (kinds.some((k) => !covered.has(k))) {
          chosen.add(op.id);
          kinds.forEach((k) => covered.add(k));
        }
      }
      return { ids: [...chosen], kinds: [...covered] };
    });
    expect(operations.kinds).toEqual(
      expect.arrayContaining([
        'Authorizations:',
        'path Parameters',
        'query Parameters',
        'Request Body schema: application/json',
        'Request Body schema: multipart/form-data',
        'Response Schema: application/json',
        'method get',
        'method post',
        'method delete',
      ]),
    );
    const result = await new AxeBuilder({ page })
      .include('.api-info')
      .include('.menu-content')
      .include('[id="tag/identity"]')
      .include(operations.ids.map((id) => `[id="${id}"]`).join(', '))
      .analyze();
    const bad = result.violations
      .filter((v) => v.impact === 'critical' || v.impact === 'serious' || v.impact === 'moderate')
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
  }, 240_000);
});
