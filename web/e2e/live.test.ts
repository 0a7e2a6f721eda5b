/**
 * The live marketplace in a real browser: a poster and a tester side by side (two browser
 * contexts); the tester claims and submits, and the poster's card follows without a reload.
 * A tester waiting for approval is approved while on the dashboard and goes on working.
 */
import { describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { signIn as devSignIn } from '@htm/identity/testing';
import { signInPoster, screenshot as shot } from './support/product.js';
import { productInBrowser } from './support/hooks.js';

const PNG_1x1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const run = productInBrowser();
const ts = Date.now();

async function api(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${run.product.baseUrl}${path}`, {
    method,
    redirect: 'manual',
    headers: {
      authorization: `Bearer ${token}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return {
    status: res.status,
    body: (await res.json().catch(() => ({}))) as Record<string, unknown>,
  };
}

/** A US tester with a country, approved by the admin, before their browser signs in. */
async function approvedTester(email: string) {
  const base = run.product.baseUrl;
  const { token } = await devSignIn(base, email, { name: 'Tess' });
  const init = await api(token, 'POST', '/api/users/init', {
    type: 'tester',
    location: 'USA',
    country: 'US',
  });
  expect([200, 201]).toContain(init.status);
  const me = await api(init.body.access_token as string, 'GET', '/api/me');
  const admin = await devSignIn(base, 'admin@gmail.com', { intent: 'poster', name: 'Admin' });
  expect(
    (
      await api(admin.token, 'PATCH', `/api/admin/approve-tester/${me.body.id as string}`, {
        approved: true,
      })
    ).status,
  ).toBe(200);
}

async function newPage(): Promise<Page> {
  const ctx = await run.browser.newContext({ viewport: { width: 1280, height: 900 } });
  return ctx.newPage();
}

describe('live updates in the browser', () => {
  it("changes the poster's card to claimed and then submitted without a reload", async () => {
    const title = `Live bakery ${ts}`;
    await approvedTester(`live.tess${ts}@gmail.com`);

    // The poster posts and pays, then watches the dashboard.
    const poster = await newPage();
    await signInPoster(poster, run.product.baseUrl, `live.pat${ts}@gmail.com`);
    await poster.locator('.live-indicator--live').waitFor();
    await poster.getByRole('button', { name: 'Post New Job' }).click();
    await poster.getByLabel('Job title').fill(title);
    await poster.getByLabel('Website URL').fill('https://bakery.example');
    await poster.getByLabel('What to test').fill('Order a cake as a first-time visitor');
    await poster.getByRole('textbox', { name: 'Thing to check 1' }).fill('Can you find the price?');
    await poster.getByRole('button', { name: 'Post Job & Pay $1' }).click();
    await poster.waitForURL(/\/api\/payments\/local\/checkout\//);
    await poster.getByRole('button', { name: /Pay/ }).first().click();
    await poster
      .getByText('Payment received! Your job is live and visible to testers.')
      .waitFor({ timeout: 30_000 });
    await poster.getByRole('link', { name: 'Go to Dashboard' }).click();
    const card = poster.locator('li.job-card', { hasText: title });
    await card.getByText('Live — waiting for a tester to claim it.').waitFor();
    await poster.locator('.live-indicator--live').waitFor();
    const reloads: string[] = [];
    poster.on('framenavigated', (f) => {
      if (f === poster.mainFrame()) reloads.push(f.url());
    });

    // The tester (another browser context) claims it.
    const tester = await newPage();
    await tester.goto(
      `${run.product.baseUrl}/api/auth/dev/login?email=live.tess${ts}@gmail.com&name=Tess&intent=tester`,
    );
    await tester.getByRole('heading', { name: 'Tester dashboard' }).waitFor({ timeout: 20_000 });
    const offer = tester.locator('li', { hasText: title });
    await offer.getByRole('button', { name: 'Claim' }).click();

    await card.locator('.badge--claimed').waitFor({ timeout: 10_000 });
    await poster.getByText('Your job was claimed').waitFor();
    await shot(poster, 'live-poster-claimed');

    await tester.getByRole('tab', { name: 'My Jobs' }).click();
    const mine = tester.locator('li', { hasText: title });
    await mine.getByRole('button', { name: 'Quick report' }).click();
    await tester
      .getByLabel('Feedback', { exact: true })
      .fill('The price only shows after adding to the cart.');
    await tester.getByLabel('Key finding 1').fill('Price hidden');
    await tester
      .getByLabel(/Screenshot/)
      .setInputFiles({ name: 'shot.png', mimeType: 'image/png', buffer: PNG_1x1 });
    await tester.getByRole('dialog').getByRole('button', { name: 'Submit Work' }).click();

    await card.getByRole('button', { name: 'Review Submission' }).waitFor({ timeout: 10_000 });
    await card.locator('.badge--submitted').waitFor();
    await poster.getByText('Results are ready').waitFor();
    await shot(poster, 'live-poster-submitted');
    expect(reloads).toEqual([]);
    await poster.context().close();
    await tester.context().close();
  }, 120_000);

  it('keeps a tester who waits on the dashboard signed in when the admin approves them: the dashboard opens, no "Session expired"', async () => {
    const base = run.product.baseUrl;
    const email = `live.wait${ts}@gmail.com`;
    const { token } = await devSignIn(base, email, { name: 'Wanda' });
    const init = await api(token, 'POST', '/api/users/init', {
      type: 'tester',
      location: 'USA',
      country: 'US',
    });
    expect(init.status).toBe(200);
    const testerId = (init.body.user as { id: string }).id;

    const tester = await newPage();
    const refreshes: number[] = [];
    tester.on('response', (r) => {
      if (r.url().endsWith('/api/auth/refresh')) refreshes.push(r.status());
    });
    await tester.goto(`${base}/api/auth/dev/login?email=${email}&name=Wanda&intent=poster`);
    await tester
      .getByRole('heading', { name: 'Your tester account is pending approval' })
      .waitFor({ timeout: 20_000 });
    await tester.locator('.live-indicator--live').waitFor();

    const admin = await devSignIn(base, 'admin@gmail.com', { intent: 'poster', name: 'Admin' });
    expect(
      (await api(admin.token, 'PATCH', `/api/admin/approve-tester/${testerId}`, { approved: true }))
        .status,
    ).toBe(200);

    // Without a reload: the live channel says the account changed, the app refreshes its token
    // once (same sign-in) and shows the dashboard of an approved tester.
    await tester.getByRole('heading', { name: 'Tester dashboard' }).waitFor({ timeout: 15_000 });
    await tester.getByRole('tab', { name: 'Available Jobs' }).waitFor();
    await tester.locator('.live-indicator--live').waitFor();
    await shot(tester, 'tester-approved-while-waiting');
    expect(await tester.getByText(/Session expired/).count()).toBe(0);
    expect(new URL(tester.url()).pathname).toBe('/dashboard');
    expect(refreshes.length).toBeGreaterThanOrEqual(1);
    expect(refreshes.every((s) => s === 200)).toBe(true);

    // Still signed in after a reload, with the approval.
    await tester.reload();
    await tester.getByRole('heading', { name: 'Tester dashboard' }).waitFor({ timeout: 15_000 });
    await tester.context().close();
  }, 120_000);
});
