/**
 * Layout in a real browser: user text that cannot break (a 200-character title without a
 * space) never makes the page wider than the window, and the admin's jobs table keeps its
 * Status and Actions on screen on a phone. Runs against `npm start` on a free port (or
 * E2E_BASE_URL); screens are saved under test-results/screenshots/.
 */
import { describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import path from 'node:path';
import { SCREENSHOT_DIR, signInPoster, screenshot as shot } from './support/product.js';
import { productInBrowser } from './support/hooks.js';

const run = productInBrowser();
const ts = Date.now();
const longTitle = 'Supercalifragilistic'.repeat(10); // 200 characters, no space
const longUrl = `https://example.com/${'a'.repeat(150)}`;

/** Posts a job through the API with the page's own session (left unpaid: 'Pay now' shows). */
async function postJob(p: Page, title: string, url: string) {
  const status = await p.evaluate(
    async ({ title, url }) => {
      const token = sessionStorage.getItem('access_token') ?? localStorage.getItem('access_token');
      const xsrf = /(?:^|; )XSRF-TOKEN=([^;]*)/.exec(document.cookie)?.[1] ?? '';
      const res = await fetch('/api/jobs', {
        method: 'POST',
        credentials: 'include',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${token}`,
          'x-xsrf-token': decodeURIComponent(xsrf),
        },
        body: JSON.stringify({
          title,
          url,
          what_to_test: 'Check the checkout',
          budget: 1,
          expected_completion_hours: 48,
          geo_rule: 'us_pr',
          requirements: ['Can you pay?'],
        }),
      });
      return res.status;
    },
    { title, url },
  );
  expect(status).toBe(201);
}

const pageWidth = (p: Page) =>
  p.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
  }));

/** True when the element's box lies inside the window, left to right. */
const onScreen = (p: Page, selector: string) =>
  p
    .locator(selector)
    .first()
    .evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.left >= 0 && r.right <= window.innerWidth;
    });

describe('layout with long unbroken user text', () => {
  it('keeps the poster dashboard inside the window at 1280 and 390 px', async () => {
    const ctx = await run.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await ctx.newPage();
    await signInPoster(p, run.product.baseUrl, `long${ts}@gmail.com`);
    await postJob(p, longTitle, longUrl);
    await p.reload();
    await p.getByText(longTitle).waitFor();
    for (const width of [1280, 390]) {
      await p.setViewportSize({ width, height: 900 });
      await shot(p, `layout-poster-long-title-${width}`);
      const { scroll, inner } = await pageWidth(p);
      expect(scroll).toBeLessThanOrEqual(inner);
      // The card's badges and 'Pay now' stay inside the window.
      const card = p.locator('.job-card', { hasText: longTitle });
      const pay = await card.getByRole('button', { name: 'Pay now' }).boundingBox();
      expect(pay && pay.x >= 0 && pay.x + pay.width <= width).toBe(true);
      expect(await onScreen(p, '.job-card .badge--unpaid')).toBe(true);
    }
    await ctx.close();
  }, 90_000);

  it("keeps the admin jobs table's Status and Actions on screen on a phone", async () => {
    const ctx = await run.browser.newContext({ viewport: { width: 390, height: 844 } });
    const poster = await ctx.newPage();
    await signInPoster(poster, run.product.baseUrl, `table${ts}@gmail.com`, 'Tab');
    await postJob(poster, longTitle, longUrl);
    const admin = await ctx.newPage();
    await admin.goto(
      `${run.product.baseUrl}/api/auth/dev/login?email=admin@gmail.com&name=Admin&intent=poster`,
    );
    await admin.getByRole('tab', { name: 'Manage' }).click();
    const table = admin.getByRole('table', { name: 'All jobs' });
    await table.getByText(longTitle).first().waitFor();
    await shot(admin, 'layout-admin-manage-390');
    const { scroll, inner } = await pageWidth(admin);
    expect(scroll).toBeLessThanOrEqual(inner);
    // Every cell of the first row (Job, Poster, Status, Actions) is inside the window.
    const cells = await table
      .locator('tbody tr')
      .first()
      .locator('td')
      .evaluateAll((tds) =>
        tds.map((td) => {
          const r = td.getBoundingClientRect();
          return { label: td.getAttribute('data-label'), fits: r.right <= window.innerWidth };
        }),
      );
    expect(cells).toEqual([
      { label: 'Job', fits: true },
      { label: 'Poster', fits: true },
      { label: 'Status', fits: true },
      { label: 'Actions', fits: true },
    ]);
    expect(await onScreen(admin, 'table .badge--unpaid')).toBe(true);
    await admin.setViewportSize({ width: 1280, height: 900 });
    await shot(admin, 'layout-admin-manage-1280');
    const wide = await pageWidth(admin);
    expect(wide.scroll).toBeLessThanOrEqual(wide.inner);
    await ctx.close();
  }, 90_000);
});

/**
 * The page's and (if one is open) the dialog's horizontal overflow, in CSS pixels, once the layout
 * has caught up with the window: a chart (recharts' ResponsiveContainer) takes its new width from a
 * ResizeObserver and a re-render, a frame or more after a resize (on a busy machine, more). So it
 * measures each frame until nothing overflows, or for 5 s, and answers the last measure: an
 * overflow that stays is still reported.
 */
const overflow = (p: Page) =>
  p.evaluate(async () => {
    const measure = () => {
      const dialog = document.querySelector<HTMLElement>('[role="dialog"]');
      return {
        page: document.documentElement.scrollWidth - window.innerWidth,
        dialog: dialog ? dialog.scrollWidth - dialog.clientWidth : 0,
      };
    };
    const until = performance.now() + 5000;
    let m = measure();
    while ((m.page > 0 || m.dialog > 0) && performance.now() < until) {
      await new Promise((r) => requestAnimationFrame(r));
      m = measure();
    }
    return m;
  });

/** Every phone width the product must fit without scrolling sideways. */
const PHONES = [320, 390, 414];

/** Resizes the page to each phone width and measures the overflow there ({width: overflow}). */
async function overflowAtPhones(p: Page, name?: string) {
  const seen: Record<number, { page: number; dialog: number }> = {};
  for (const width of PHONES) {
    await p.setViewportSize({ width, height: 844 });
    if (name && width !== 390) await shot(p, `${name}-${width}`);
    seen[width] = await overflow(p);
  }
  await p.setViewportSize({ width: 390, height: 844 });
  return seen;
}
const NONE = Object.fromEntries(PHONES.map((w) => [w, { page: 0, dialog: 0 }]));

describe('nothing overflows sideways on a phone (320-414 px)', () => {
  it("keeps the poster's dashboard, the Post New Job dialog, the public pages, the tester's and the admin's screens inside the window", async () => {
    const ctx = await run.browser.newContext({ viewport: { width: 390, height: 844 } });
    const p = await ctx.newPage();
    await signInPoster(p, run.product.baseUrl, `phone${ts}@gmail.com`, 'Phil');
    expect(await overflowAtPhones(p, 'layout-poster')).toEqual(NONE);
    // Logout is in view at 320 px: inside the window and not hidden in the header's strip that
    // scrolls sideways (the point at its middle is the button itself).
    await p.setViewportSize({ width: 320, height: 700 });
    const logout = p.getByRole('button', { name: 'Logout' });
    await shot(p, 'layout-header-320');
    expect(
      await logout.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return r.width > 0 && r.left >= 0 && r.right <= window.innerWidth && hit === el;
      }),
    ).toBe(true);
    await p.setViewportSize({ width: 390, height: 844 });
    await p.getByRole('button', { name: 'Post New Job' }).click();
    const dialog = p.getByRole('dialog');
    await dialog.getByLabel('Who may test').waitFor();
    await shot(p, 'layout-post-new-job-390');
    // The dialog is open, and neither it nor the page scrolls sideways.
    expect(await dialog.isVisible()).toBe(true);
    expect(await overflowAtPhones(p, 'layout-post-new-job')).toEqual(NONE);
    const submit = await dialog.getByRole('button', { name: 'Post Job & Pay $1' }).boundingBox();
    expect(submit && submit.x >= 0 && submit.x + submit.width <= 390).toBe(true);
    await p.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    // "Your data" (download my data, delete my account) fits a phone too.
    await p.getByRole('button', { name: 'Your data' }).click();
    await p.getByRole('dialog').getByRole('button', { name: 'Delete my account' }).waitFor();
    await shot(p, 'layout-your-data-390');
    expect(await overflow(p)).toEqual({ page: 0, dialog: 0 });
    await p.keyboard.press('Escape');

    // A would-be tester (signed out): the landing's tester signup form, then Tester Login.
    const testerCtx = await run.browser.newContext({ viewport: { width: 390, height: 844 } });
    const tester = await testerCtx.newPage();
    await tester.goto(`${run.product.baseUrl}/`);
    await tester.getByRole('form', { name: 'Tester signup' }).waitFor();
    expect(await overflowAtPhones(tester, 'layout-landing')).toEqual(NONE);
    await tester.goto(`${run.product.baseUrl}/login/tester`);
    await tester.getByRole('link', { name: 'Continue with Google' }).waitFor();
    expect(await overflowAtPhones(tester)).toEqual(NONE);
    // The public pages a visitor reaches from the landing page.
    for (const path of ['/example-report', '/terms']) {
      await tester.goto(`${run.product.baseUrl}${path}`);
      await tester.getByRole('heading', { level: 1 }).waitFor();
      expect(await overflowAtPhones(tester, `layout${path.replace('/', '-')}`)).toEqual(NONE);
    }
    // Signed in, choosing the tester role (then the pending-approval dashboard).
    await tester.goto(
      `${run.product.baseUrl}/api/auth/dev/login?email=phonetester${ts}@gmail.com&name=Tia&intent=poster`,
    );
    const chooser = tester.getByRole('heading', { name: 'Choose Your Role' });
    await chooser.waitFor();
    expect(await overflowAtPhones(tester, 'layout-choose-role')).toEqual(NONE);
    await tester.getByRole('radio', { name: /^Tester/ }).check();
    await tester.getByLabel('Location').selectOption('USA');
    await tester.getByLabel('Country').selectOption('US');
    await tester.getByRole('button', { name: 'Continue' }).click();
    await tester
      .getByRole('heading', { name: 'Your tester account is pending approval' })
      .waitFor();
    expect(await overflowAtPhones(tester, 'layout-tester-pending')).toEqual(NONE);
    await testerCtx.close();

    const admin = await ctx.newPage();
    await admin.goto(
      `${run.product.baseUrl}/api/auth/dev/login?email=admin@gmail.com&name=Admin&intent=poster`,
    );
    for (const tab of ['Overview', 'Manage', 'Actions', 'Insights', 'Privacy']) {
      await admin.getByRole('tab', { name: tab }).click();
      await admin.getByRole('tab', { name: tab, selected: true }).waitFor();
      await shot(admin, `layout-admin-${tab.toLowerCase()}-390`);
      expect(await overflowAtPhones(admin)).toEqual(NONE);
    }
    await ctx.close();
  }, 150_000);
});

/** True when the two boxes share any pixel. */
const overlap = (
  a: { x: number; y: number; width: number; height: number } | null,
  b: { x: number; y: number; width: number; height: number } | null,
) =>
  !!a &&
  !!b &&
  a.x < b.x + b.width &&
  b.x < a.x + a.width &&
  a.y < b.y + b.height &&
  b.y < a.y + a.height;

describe('toasts on a phone', () => {
  it('never cover the fields or the button in use at 390 px, wherever the form is on the screen', async () => {
    const ctx = await run.browser.newContext({ viewport: { width: 390, height: 844 } });
    const p = await ctx.newPage();
    await signInPoster(p, run.product.baseUrl, `toast${ts}@gmail.com`, 'Tom');
    // GitHub refuses the token: the form's answer is an error toast.
    await p.route('**/api/trackers/github', (r) =>
      r.fulfill({
        status: 422,
        contentType: 'application/json',
        body: JSON.stringify({ detail: 'GitHub refused the token: check its Issues permission.' }),
      }),
    );
    const form = p.getByRole('form', { name: 'GitHub' });
    const repo = form.getByLabel('Repository (owner/name)');
    const token = form.getByLabel(/Fine-grained token/);
    const submit = form.getByRole('button', { name: 'Connect GitHub' });
    await repo.fill('acme/shop');
    await token.fill('github_pat_example');
    // The form at the top of the screen, then at the bottom: the toast takes the other edge.
    // (Room below the page's last form, so that it can scroll up to the top of the screen.)
    await p.evaluate(() => (document.body.style.paddingBottom = '900px'));
    for (const block of ['start', 'end'] as const) {
      await form.evaluate((el, b) => el.scrollIntoView({ block: b, behavior: 'instant' }), block);
      await submit.click();
      const toast = p.locator('.toast', { hasText: 'GitHub refused the token' });
      await toast.waitFor();
      // What the phone shows (a full-page shot would move the fixed toast).
      await p.screenshot({
        path: path.join(SCREENSHOT_DIR, `layout-toast-form-at-${block}-390.png`),
      });
      const box = await toast.boundingBox();
      for (const control of [repo, token, submit])
        expect({ block, covers: overlap(box, await control.boundingBox()) }).toEqual({
          block,
          covers: false,
        });
      await toast.getByRole('button', { name: 'Dismiss' }).click();
      await toast.waitFor({ state: 'hidden' });
    }
    await ctx.close();
  }, 90_000);
});
