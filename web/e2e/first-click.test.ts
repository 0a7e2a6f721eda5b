/**
 * "First click to paid job, without dead ends" (issue #19) in a real browser, against
 * `npm start` (or E2E_BASE_URL):
 * - a signed-out visitor's job request keeps the draft, offers "Sign in with Google to
 *   continue" and, after sign-in and role choice, opens Post New Job prefilled, ready to pay;
 * - a stray click outside a modal or Esc asks before throwing a draft away, and drafts survive
 *   a reload (sessionStorage, per job);
 * - the Quick report gives the poster no empty checklist rows ("No answer");
 * - side-by-side fields stay aligned when one shows an error; status badges stay on one line.
 * Screens are saved under test-results/screenshots/first-click-*.png at 1280 and 390 px.
 */
import { describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { signInPoster, screenshot } from './support/product.js';
import { productInBrowser } from './support/hooks.js';

const run = productInBrowser();
const ts = Date.now();

async function newPage(width = 1280): Promise<Page> {
  const ctx = await run.browser.newContext({ viewport: { width, height: 900 } });
  return ctx.newPage();
}
const shot = (p: Page, name: string) => screenshot(p, `first-click-${name}`);

/** Pays at the local checkout and waits for the success page. */
async function payAtCheckout(p: Page) {
  await p.waitForURL(/\/api\/payments\/local\/checkout\//);
  await p.getByRole('button', { name: /Pay/ }).first().click();
  await p.waitForURL(/\/payment\/success\?session_id=/);
  await p
    .getByText('Payment received! Your job is live and visible to testers.')
    .waitFor({ timeout: 30_000 });
}

describe('first click to paid job, without dead ends', () => {
  it('turns a signed-out job request into a prefilled Post New Job after sign-in (390 px)', async () => {
    const p = await newPage(390);
    await p.goto(`${run.product.baseUrl}/`);
    await p.getByRole('button', { name: 'Start for $1' }).click();
    const form = p.getByRole('form', { name: 'Request a test' });
    await form.getByLabel('Your email').fill(`visitor${ts}@gmail.com`);
    await form.getByLabel('Website URL').fill('https://bakery.example/order');
    await form
      .getByLabel('What should testers look at?')
      .fill('Can I order a birthday cake?\nIs the delivery fee clear?');
    await form.getByRole('button', { name: 'Request My $1 Test' }).click();
    const signIn = form.getByRole('link', { name: 'Sign in with Google to continue' });
    await signIn.waitFor();
    expect(await form.getByText('Please sign in first').count()).toBe(0);
    await shot(p, 'landing-request-signed-out-390');

    // Google's stand-in (development sign-in page), as a site owner.
    await signIn.click();
    await p.getByLabel('Gmail address').fill(`visitor${ts}@gmail.com`);
    await p.getByLabel('Name').fill('Vera');
    await p.getByRole('button', { name: 'Continue' }).click();
    await p.getByRole('heading', { name: 'Choose Your Role' }).waitFor();
    await shot(p, 'choose-role-390');
    await p.getByLabel(/Site owner/).check();
    await p.getByLabel('Location').selectOption('USA');
    await p.getByRole('button', { name: 'Continue' }).click();

    const modal = p.getByRole('dialog', { name: 'Post New Job' });
    await modal.waitFor();
    expect(await modal.getByLabel('Website URL').inputValue()).toBe('https://bakery.example/order');
    expect(await modal.getByLabel('Job title').inputValue()).toBe('Test bakery.example');
    expect(await modal.getByLabel('What to test').inputValue()).toBe(
      'Can I order a birthday cake?',
    );
    expect(await modal.getByRole('textbox', { name: 'Thing to check 1' }).inputValue()).toBe(
      'Is the delivery fee clear?',
    );
    await shot(p, 'post-new-job-prefilled-390');
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await modal.getByRole('button', { name: 'Post Job & Pay $1' }).click();
    await payAtCheckout(p);
    await p.context().close();
  }, 120_000);

  it('keeps drafts, shows only what the tester answered, and keeps fields and badges tidy', async () => {
    const base = run.product.baseUrl;
    const title = `Cake shop ${ts}`;
    const testerEmail = `quick${ts}@gmail.com`;

    // A poster posts and pays a job with two things to check. Post New Job asks before a
    // stray click outside throws the typed form away.
    const poster = await newPage();
    await signInPoster(poster, base, `owner${ts}@gmail.com`, 'Olive');
    await poster.getByRole('button', { name: 'Post New Job' }).click();
    const post = poster.getByRole('dialog', { name: 'Post New Job' });
    await post.getByLabel('Job title').fill(title);
    await poster.mouse.click(5, 5); // outside the modal
    await poster.getByRole('alertdialog', { name: 'Discard your draft?' }).waitFor();
    await shot(poster, 'discard-prompt');
    await poster.getByRole('button', { name: 'Keep editing' }).click();
    expect(await post.getByLabel('Job title').inputValue()).toBe(title);
    await post.getByLabel('Website URL').fill('https://cakes.example');
    await post.getByLabel('What to test').fill('Order a cake');
    await post.getByRole('textbox', { name: 'Thing to check 1' }).fill('Find the price');
    await post.getByRole('button', { name: '+ Add another' }).click();
    await post.getByRole('textbox', { name: 'Thing to check 2' }).fill('Find the opening hours');
    await post.getByRole('button', { name: 'Post Job & Pay $1' }).click();
    await payAtCheckout(poster);

    // A tester signs up, the admin approves the signup.
    const signup = await poster.request.post(`${base}/api/waitlist`, {
      data: { email: testerEmail, role: 'Tester (student)' },
    });
    expect(signup.status()).toBe(201);
    const admin = await newPage();
    await admin.goto(`${base}/api/auth/dev/login?email=admin@gmail.com&name=Admin&intent=poster`);
    await admin.getByRole('heading', { name: 'Admin', exact: true }).waitFor();
    await admin.getByRole('tab', { name: 'Manage' }).click();
    // Wait for the approval's answer, registered before the click so a fast answer is not missed.
    const approved = admin.waitForResponse(
      (r) => r.url().includes('/api/admin/waitlist/') && r.request().method() === 'PATCH',
    );
    await admin
      .getByRole('region', { name: 'Tester signups' })
      .locator('li', { hasText: testerEmail })
      .getByLabel(/Approved/)
      .check();
    expect((await approved).status()).toBe(200);

    // The tester claims the job.
    const tester = await newPage();
    await tester.goto(`${base}/api/auth/dev/login?email=${testerEmail}&name=Quinn&intent=tester`);
    await tester.getByRole('heading', { name: 'Tester dashboard' }).waitFor({ timeout: 20_000 });
    if (await tester.getByRole('button', { name: 'Set country' }).isVisible()) {
      await tester.getByRole('button', { name: 'Set country' }).click();
      await tester.getByLabel(/Country/).selectOption('US');
      await tester.getByRole('button', { name: 'Save' }).click();
    }
    const card = tester.locator('li', { hasText: title });
    for (let i = 0; i < 20 && !(await card.isVisible()); i++) {
      await tester.getByRole('button', { name: 'Refresh' }).click();
      await tester.waitForTimeout(500);
    }
    await card.getByRole('button', { name: 'Claim' }).click();
    await tester.getByRole('tab', { name: 'My Jobs' }).click();
    const mine = tester.locator('li', { hasText: title });
    await mine.getByRole('button', { name: 'Quick report' }).waitFor();
    await mine.getByText('An answer for each thing to check').waitFor();
    await shot(tester, 'tester-my-jobs');

    // Detailed report: an error under Device only leaves Browser's input where it was.
    await mine.getByRole('button', { name: 'Detailed report' }).click();
    const detailed = tester.getByRole('dialog', { name: 'Detailed report' });
    await detailed.getByLabel('Browser used').fill('Chrome');
    await detailed.getByRole('button', { name: 'Submit Work' }).click();
    await detailed
      .getByText(/Device/)
      .first()
      .waitFor();
    // Both read in one frame: the failed submit scrolls the first invalid field into view.
    const [deviceY, browserY] = await detailed.evaluate((d) =>
      ['Device used', 'Browser used'].map((name) => {
        const label = [...d.querySelectorAll('label')].find((l) => l.textContent?.trim() === name);
        const input = label?.htmlFor
          ? d.ownerDocument.getElementById(label.htmlFor)
          : label?.querySelector('input');
        return input ? input.getBoundingClientRect().top : NaN;
      }),
    );
    expect(Math.abs(deviceY - browserY)).toBe(0);
    await shot(tester, 'detailed-report-errors');
    await tester.keyboard.press('Escape');
    await tester.getByRole('button', { name: 'Discard draft' }).click();
    await detailed.waitFor({ state: 'detached' });

    // Quick report: Esc asks; the draft survives a reload; then it is sent.
    await mine.getByRole('button', { name: 'Quick report' }).click();
    const quick = tester.getByRole('dialog', { name: 'Quick report' });
    await quick
      .getByLabel('Feedback', { exact: true })
      .fill('The price is only shown in the cart, not on the cake.');
    await tester.keyboard.press('Escape');
    await tester.getByRole('alertdialog', { name: 'Discard your draft?' }).waitFor();
    await tester.getByRole('button', { name: 'Keep editing' }).click();
    await tester.reload();
    await tester.getByRole('tab', { name: 'My Jobs' }).click();
    await tester
      .locator('li', { hasText: title })
      .getByRole('button', { name: 'Quick report' })
      .click();
    expect(await quick.getByLabel('Feedback', { exact: true }).inputValue()).toBe(
      'The price is only shown in the cart, not on the cake.',
    );
    await quick.getByLabel('Key finding 1').fill('Price hidden until cart');
    await shot(tester, 'quick-report');
    await quick.getByRole('button', { name: 'Submit Work' }).click();
    await tester.locator('li', { hasText: title }).getByText('submitted').waitFor();

    // The poster accepts: the results show what was answered, no empty checklist rows.
    await poster.goto(`${base}/dashboard`);
    await poster.locator('li', { hasText: title }).getByText('Find the opening hours').waitFor();
    await poster.getByRole('button', { name: 'Review Submission' }).click();
    await poster.getByLabel(/Accept/).check();
    await poster.getByRole('button', { name: 'Submit Review' }).click();
    const results = poster.getByRole('dialog', { name: 'Results' });
    await results.getByText('The price is only shown in the cart, not on the cake.').waitFor();
    expect(await results.getByText('No answer').count()).toBe(0);
    expect(await results.getByText('Answers to your checklist').count()).toBe(0);
    await shot(poster, 'results');

    // Admin All jobs at a narrow desktop width: badges stay on one line, e-mails stay whole.
    await admin.setViewportSize({ width: 760, height: 900 });
    await admin.reload();
    await admin.getByRole('tab', { name: 'Manage' }).click();
    const row = admin.locator('tr', { hasText: title });
    const badge = row.getByText('completed', { exact: true });
    await badge.waitFor();
    expect(await badge.evaluate((el) => el.getClientRects().length)).toBe(1);
    const lineHeight = await badge.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
    expect((await badge.boundingBox())!.height).toBeLessThan(lineHeight * 2);
    const email = row.getByText(`owner${ts}@gmail.com`);
    const emailLine = await email.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
    expect((await email.boundingBox())!.height).toBeLessThan(emailLine * 2);
    await shot(admin, 'admin-all-jobs-760');

    for (const page of [poster, admin, tester]) await page.context().close();
  }, 240_000);
});
