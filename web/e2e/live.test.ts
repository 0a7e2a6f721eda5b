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
import { recordLists, type LiveMessage } from './support/list-requests.js';
import { productApi } from './support/people.js';

const PNG_1x1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const run = productInBrowser();
const ts = Date.now();

const { api, approvedTester } = productApi(() => run.product.baseUrl);

async function newPage(): Promise<Page> {
  const ctx = await run.browser.newContext({ viewport: { width: 1280, height: 900 } });
  return ctx.newPage();
}

describe('live updates in the browser', () => {
  it("changes the poster's card to claimed, submitted and completed without a reload, and no tab reloads a job list for it", async () => {
    const title = `Live bakery ${ts}`;
    await approvedTester(`live.tess${ts}@gmail.com`);

    // The poster posts and pays, then watches the dashboard.
    const poster = await newPage();
    const posterLists = await recordLists(poster);
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
    const card = poster
      .getByRole('listitem')
      .filter({ has: poster.getByRole('heading', { name: title, exact: true }) });
    await card.getByText('Live — waiting for a tester to claim it.').waitFor();
    await poster.locator('.live-indicator--live').waitFor();
    const reloads: string[] = [];
    poster.on('framenavigated', (f) => {
      if (f === poster.mainFrame()) reloads.push(f.url());
    });

    // The tester (another browser context) claims it.
    const tester = await newPage();
    const testerLists = await recordLists(tester);
    await tester.goto(
      `${run.product.baseUrl}/api/auth/dev/login?email=live.tess${ts}@gmail.com&name=Tess&intent=tester`,
    );
    await tester.getByRole('heading', { name: 'Tester dashboard' }).waitFor({ timeout: 20_000 });
    const offer = tester.locator('li', { hasText: title });
    await offer.getByRole('button', { name: 'Claim' }).waitFor();
    await tester.locator('.live-indicator--live').waitFor();
    await posterLists.settled(['/api/jobs']);
    await testerLists.settled(['/api/tester/available-jobs', '/api/tester/my-jobs']);

    /** The list requests each tab makes from now until both have applied `event`'s live message. */
    const step = async (event: string, act: () => Promise<void>) => {
      const marks = [posterLists.mark(), testerLists.mark()] as const;
      await act();
      const ofThisJob = (m: LiveMessage) => m.event === 'job' && m.data.event === event;
      await posterLists.received(ofThisJob, `${event} (poster)`);
      await testerLists.received(ofThisJob, `${event} (tester)`);
      return { poster: posterLists.since(marks[0]), tester: testerLists.since(marks[1]) };
    };
    const counts: Record<string, { poster: string[]; tester: string[] }> = {};

    counts.claim = await step('JobClaimed', async () => {
      await offer.getByRole('button', { name: 'Claim' }).click();
      await card.getByText('claimed', { exact: true }).waitFor({ timeout: 10_000 });
      await poster.getByText('Your job was claimed').waitFor();
      await testerLists.received(
        (m) => m.event === 'available' && m.data.action === 'removed',
        'available: removed',
      );
    });
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
    counts.submission = await step('WorkSubmitted', async () => {
      await tester.getByRole('dialog').getByRole('button', { name: 'Submit Work' }).click();
      await card.getByRole('button', { name: 'Review Submission' }).waitFor({ timeout: 10_000 });
      await card.getByText('submitted', { exact: true }).waitFor();
      await poster.getByText('Results are ready').waitFor();
      await mine.getByText('submitted', { exact: true }).waitFor();
    });
    await shot(poster, 'live-poster-submitted');

    await card.getByRole('button', { name: 'Review Submission' }).click();
    await poster.getByText(/Full results unlock when you accept/).waitFor();
    await poster.getByLabel(/Accept/).check();
    counts.acceptance = await step('SubmissionAccepted', async () => {
      await poster.getByRole('button', { name: 'Submit Review' }).click();
      await poster.getByRole('dialog', { name: 'Results' }).waitFor();
      await mine.getByText('completed', { exact: true }).waitFor({ timeout: 10_000 });
    });
    console.log(`list requests per step (issue #50): ${JSON.stringify(counts)}`);
    expect(counts).toEqual({
      claim: { poster: [], tester: [] },
      submission: { poster: [], tester: [] },
      acceptance: { poster: [], tester: [] },
    });
    await poster.keyboard.press('Escape');
    await card.getByText('completed', { exact: true }).waitFor();
    expect(reloads).toEqual([]);

    // What the patches showed is what the server says: the same screens after a reload.
    await poster.reload();
    await card.getByText('completed', { exact: true }).waitFor();
    await card.getByRole('button', { name: 'View Results' }).waitFor();
    await tester.reload();
    await tester.getByRole('tab', { name: 'My Jobs' }).click();
    await mine.getByText('completed', { exact: true }).waitFor();
    await tester.getByRole('tab', { name: 'Available Jobs' }).click();
    await tester
      .getByText(/No jobs available right now|Each job pays/)
      .first()
      .waitFor();
    expect(await tester.locator('li', { hasText: title }).count()).toBe(0);
    await poster.context().close();
    await tester.context().close();
  }, 180_000);

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
