/**
 * Logout in one tab signs out every tab of the browser: tabs that are open return to the
 * signed-out view at once, and no tab shows the dashboard again on reload, not even one
 * that held its own access token while the logout happened.
 * Runs against `npm start` on a free port (or E2E_BASE_URL).
 */
import { describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { signInPoster, screenshot as shot } from './support/product.js';
import { productInBrowser } from './support/hooks.js';

const run = productInBrowser();
const email = `tabs${Date.now()}@gmail.com`;

const welcome = (p: Page) => p.getByRole('heading', { name: /Welcome, Pat/ });
const logoutButton = (p: Page) => p.getByRole('button', { name: 'Logout' });
const leftDashboard = (p: Page) =>
  p.waitForURL((u) => !u.pathname.startsWith('/dashboard'), { timeout: 15_000 });

describe('logout across tabs', () => {
  it('signs out every tab of the browser, open or reloaded', async () => {
    const ctx = await run.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const first = await ctx.newPage();
    await signInPoster(first, run.product.baseUrl, email);

    // A second tab opens the dashboard: the refresh cookie restores the session there.
    const second = await ctx.newPage();
    await second.goto(`${run.product.baseUrl}/dashboard`);
    await welcome(second).waitFor();

    // A third tab gets its own access token, then leaves the app (so it hears nothing).
    const third = await ctx.newPage();
    await third.goto(`${run.product.baseUrl}/dashboard`);
    await welcome(third).waitFor();
    await third.goto(`${run.product.baseUrl}/favicon.svg`);

    await logoutButton(first).click();
    await leftDashboard(first);

    // The open tab returns to the signed-out view without a reload.
    await leftDashboard(second);
    expect(await logoutButton(second).count()).toBe(0);
    await shot(second, 'logout-other-tab');

    // Reloading, or coming back to the dashboard, does not bring the session back.
    await second.goto(`${run.product.baseUrl}/dashboard`);
    await leftDashboard(second);
    await second.reload();
    await second.waitForLoadState('networkidle');
    expect(new URL(second.url()).pathname.startsWith('/dashboard')).toBe(false);
    expect(await logoutButton(second).count()).toBe(0);

    await third.goto(`${run.product.baseUrl}/dashboard`);
    await leftDashboard(third);
    await third.waitForLoadState('networkidle');
    expect(await logoutButton(third).count()).toBe(0);
    expect(await welcome(third).count()).toBe(0);

    // The refresh cookie is dead too: the server revoked it at logout.
    const refresh = await third.evaluate(async () => {
      const xsrf = /(?:^|; )XSRF-TOKEN=([^;]*)/.exec(document.cookie)?.[1] ?? '';
      const r = await fetch('/api/auth/refresh', {
        method: 'POST',
        credentials: 'include',
        headers: { 'X-XSRF-TOKEN': decodeURIComponent(xsrf) },
      });
      return r.status;
    });
    expect(refresh).toBe(401);
    await ctx.close();
  }, 120_000);
});
