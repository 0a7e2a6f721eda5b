/**
 * The machine health check end to end (issue 53), through the gateway of `npm start` with a real
 * Chromium check of a local fixture site (SITE_CHECK_ALLOW_PRIVATE, tests only; Lighthouse off
 * here: services/site-check/test runs it): pay → the owner sees the health check within a minute,
 * in the browser at 390 and 1280 px without an axe finding; the tester holding the job sees it
 * before starting; the share page and the PDF carry it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';
import type { SiteCheckResponse } from '@htm/contracts/site-check';
import {
  client,
  postAndPay,
  signInAdmin,
  signInPoster,
  signInTester,
  waitFor,
  type Stack,
} from '../../test/support/stack.js';
import {
  startFixtureSite,
  type FixtureSite,
} from '../../services/site-check/test/fixtures/sites.js';
import { SCREENSHOT_DIR, screenshot as shot } from './support/product.js';
import { productInBrowser } from './support/hooks.js';

const run = productInBrowser({ SITE_CHECK_ALLOW_PRIVATE: 'true', SITE_CHECK_LIGHTHOUSE: 'false' });
const ts = Date.now();
const IMAGES = '2 images have no text for screen readers';

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
});

async function audit(p: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page: p })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
  return r.violations
    .filter((v) => v.impact !== 'minor')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The Health check section inside a part of the page (a job card, the report window). */
const healthSection = (within: Locator) =>
  within
    .locator('section')
    .filter({ has: within.page().getByRole('heading', { name: 'Health check', exact: true }) })
    .first();

/** A screenshot of one element, beside the full-page ones (its lazy screenshots loaded first). */
async function sectionShot(l: Locator, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (const img of await l.locator('img').all()) {
    await img.scrollIntoViewIfNeeded();
    await img.evaluate((i) => (i as HTMLImageElement).decode().catch(() => undefined));
  }
  await l.scrollIntoViewIfNeeded();
  await l.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), animations: 'disabled' });
}

/** What the screen shows with each of these in view (a section inside a scrolling window). */
async function screensAt(p: Page, parts: Locator[], name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (const [i, part] of parts.entries()) {
    await part.scrollIntoViewIfNeeded();
    await part.evaluate((el) => (el as HTMLImageElement).decode?.().catch(() => undefined));
    await p.screenshot({
      path: path.join(SCREENSHOT_DIR, `${name}-${i + 1}.png`),
      animations: 'disabled',
    });
  }
}

async function pageAt(width: number): Promise<Page> {
  const phone = width < 600;
  const ctx = await run.browser.newContext({
    viewport: { width, height: phone ? 844 : 900 },
    isMobile: phone,
    hasTouch: phone,
  });
  return ctx.newPage();
}

describe('the health check of a paid job', () => {
  it('reaches the owner within a minute of paying, the tester before starting, the share page and the PDF', async () => {
    const stack = { url: run.product.baseUrl } as Stack;
    const posterEmail = `hc.owner${ts}@gmail.com`;
    const testerEmail = `hc.tester${ts}@gmail.com`;
    const admin = await signInAdmin(stack);
    const poster = await signInPoster(stack, posterEmail);
    const tester = await signInTester(stack, testerEmail, { admin });
    const title = `Fixture shop ${ts}`;

    // Pay: the check runs against the local fixture site.
    const paidAt = Date.now();
    const { jobId } = await postAndPay(stack, poster, {
      title,
      url: site.url,
      what_to_test: 'Buy a lamp as a first-time visitor',
      requirements: ['Can you find the price?'],
    });
    const check = await waitFor(
      async () => {
        const r = await client(stack, poster.token).get(`/api/jobs/${jobId}/site-check`);
        const body = r.body as unknown as SiteCheckResponse;
        return r.status === 200 && body.state === 'done' ? body : null;
      },
      'the health check to be done',
      60_000,
    );
    expect(Date.now() - paidAt).toBeLessThan(60_000);
    expect(check.summary!.findings.map((f) => f.text)).toContain(IMAGES);

    // The owner, in the browser, at a computer's and a phone's width: no axe finding.
    const problems: string[] = [];
    for (const width of [1280, 390]) {
      const p = await pageAt(width);
      await p.goto(
        `${run.product.baseUrl}/api/auth/dev/login?email=${posterEmail}&name=Pat&intent=poster`,
      );
      const card = p.locator(`#job-${jobId}`);
      await card.getByText(title).waitFor();
      await card.getByText('Health check', { exact: true }).first().click();
      await card.getByText(IMAGES).waitFor();
      await card.getByAltText('The page as the check saw it on a phone').waitFor();
      await shot(p, `health-check-owner-${width}`);
      await sectionShot(healthSection(card), `health-check-owner-section-${width}`);
      for (const v of await audit(p)) problems.push(`owner ${width}px: ${v}`);
      await p.context().close();
    }

    // The tester holding the job sees it before starting.
    expect((await client(stack, tester.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
    await waitFor(
      async () =>
        (await client(stack, tester.token).get(`/api/jobs/${jobId}/site-check`)).status === 200,
      'site-check to know the tester holds the job',
    );
    for (const width of [390, 1280]) {
      const t = await pageAt(width);
      await t.goto(
        `${run.product.baseUrl}/api/auth/dev/login?email=${testerEmail}&name=Tess&intent=tester`,
      );
      await t.getByRole('tab', { name: 'My Jobs' }).click();
      const mine = t.locator(`#my-job-${jobId}`);
      await mine.getByText('Before you start: what a machine found on this site').click();
      await mine.getByText(IMAGES).waitFor();
      await mine.getByText(/Spend your time where a machine cannot look/).waitFor();
      await shot(t, `health-check-tester-${width}`);
      await sectionShot(healthSection(mine), `health-check-tester-section-${width}`);
      for (const v of await audit(t)) problems.push(`tester ${width}px: ${v}`);
      await t.context().close();
    }
    expect(problems).toEqual([]);

    // The tester submits; the owner shares the report: the share page and the PDF carry the check.
    const form = new FormData();
    form.set('feedback_text', 'The price is easy to find, the photos are missing.');
    form.set('key_finding_1', 'Team photo does not load');
    const sub = await fetch(`${run.product.baseUrl}/api/jobs/${jobId}/submit-work`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tester.token}` },
      body: form,
    });
    expect(sub.status).toBe(201);
    const share = await client(stack, poster.token).post(`/api/jobs/${jobId}/share`, {});
    expect(share.status).toBe(201);
    const { url: shareUrl } = share.body as unknown as { url: string };
    const page = await waitFor(async () => {
      const html = await (await fetch(`${run.product.baseUrl}${shareUrl}`)).text();
      return html.includes(IMAGES) ? html : null;
    }, 'the share page to carry the health check');
    expect(page).toContain('>Health check</h2>');
    // The owner's report (the review window) and the share page carry it, at both widths.
    for (const width of [1280, 390]) {
      const p = await pageAt(width);
      await p.goto(
        `${run.product.baseUrl}/api/auth/dev/login?email=${posterEmail}&name=Pat&intent=poster`,
      );
      await p.locator(`#job-${jobId}`).getByRole('button', { name: 'Review Submission' }).click();
      const report = p.getByRole('dialog');
      await report.getByText(IMAGES).waitFor();
      const section = healthSection(report);
      await screensAt(
        p,
        [
          section.getByRole('heading', { name: 'Health check' }),
          section.getByText(/^Show \d+ more findings$/),
          section.getByAltText('The page as the check saw it on a computer'),
        ],
        `health-check-report-${width}`,
      );
      for (const v of await audit(p)) problems.push(`report ${width}px: ${v}`);
      await p.goto(`${run.product.baseUrl}${shareUrl}`);
      await p.getByText(IMAGES).waitFor();
      await shot(p, `health-check-share-${width}`);
      for (const v of await audit(p)) problems.push(`share page ${width}px: ${v}`);
      await p.context().close();
    }
    expect(problems).toEqual([]);
    const pdf = await fetch(`${run.product.baseUrl}/api/jobs/${jobId}/report.pdf`, {
      headers: { authorization: `Bearer ${poster.token}` },
    });
    expect(pdf.status).toBe(200);
    const dir = mkdtempSync(path.join(tmpdir(), 'hc-pdf-'));
    writeFileSync(path.join(dir, 'r.pdf'), Buffer.from(await pdf.arrayBuffer()));
    const text = execFileSync('pdftotext', [path.join(dir, 'r.pdf'), '-'])
      .toString('utf8')
      .replace(/\s+/g, ' ');
    expect(text).toContain('Health check');
    expect(text).toContain(IMAGES);
  }, 240_000);
});
