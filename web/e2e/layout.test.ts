/**
 * CI looks at the screens (issue #49): every screen and dialog of the app, signed out and as a
 * poster, a tester and the admin, opened once and measured at 320, 390, 768 and 1280 px
 * (support/layout-audit.ts: sideways overflow, overlapping controls, clipped button and label
 * text, focusable controls nobody can reach, axe violations of serious or critical impact). One
 * product and one browser for the file, one context per role; the data the screens show (jobs
 * in every state, a submission, results, earnings) is made through the API first. Each test
 * lists every problem it found; a failing width is saved in test-results/layout/ (LAYOUT_SHOTS=1
 * saves them all).
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import path from 'node:path';
import { SCREENSHOT_DIR, withPageEvidence } from './support/product.js';
import { productInBrowser } from './support/hooks.js';
import { auditScreen } from './support/layout-audit.js';

const run = productInBrowser();
const ts = Date.now();
const base = () => run.product.baseUrl;
// User text that cannot break: it must never make a screen wider than the window.
const longTitle = 'Supercalifragilistic'.repeat(10); // 200 characters, no space
const longUrl = `https://example.com/${'a'.repeat(150)}`;
const PAYMENT_DOWN =
  'Payments are not answering right now. Your job is saved unpaid; please try paying again in a moment.';
const PNG_1x1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The API with the page's own session (bearer token and XSRF header, as the app sends them). */
async function api<T = Record<string, unknown>>(
  p: Page,
  method: string,
  url: string,
  body?: unknown,
  idempotencyKey?: string,
): Promise<{ status: number; body: T }> {
  return p.evaluate(
    async ({ method, url, body, png, idempotencyKey }) => {
      const token = sessionStorage.getItem('access_token') ?? localStorage.getItem('access_token');
      const xsrf = /(?:^|; )XSRF-TOKEN=([^;]*)/.exec(document.cookie)?.[1] ?? '';
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        'x-xsrf-token': decodeURIComponent(xsrf),
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      };
      let payload: BodyInit | undefined;
      if (body && typeof body === 'object' && '__multipart' in body) {
        const form = new FormData();
        for (const [k, v] of Object.entries(body as Record<string, string>))
          if (k !== '__multipart') form.append(k, v);
        const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
        form.append('screenshot', new Blob([bytes], { type: 'image/png' }), 'shot.png');
        payload = form;
      } else if (body !== undefined) {
        headers['content-type'] = 'application/json';
        payload = JSON.stringify(body);
      }
      let res = await fetch(url, { method, credentials: 'include', headers, body: payload });
      if (res.status === 401) {
        // A token issued before the account changed (role chosen, approved): refreshed once, as
        // the app's base query does.
        const refreshed = await fetch('/api/auth/refresh', {
          method: 'POST',
          credentials: 'include',
          headers: { 'x-xsrf-token': decodeURIComponent(xsrf) },
        });
        if (refreshed.ok) {
          const { access_token } = (await refreshed.json()) as { access_token: string };
          sessionStorage.setItem('access_token', access_token);
          sessionStorage.setItem('token', access_token);
          headers.authorization = `Bearer ${access_token}`;
          res = await fetch(url, { method, credentials: 'include', headers, body: payload });
        }
      }
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* HTML or empty */
      }
      return { status: res.status, body: parsed as never };
    },
    { method, url, body, png: PNG_1x1, idempotencyKey },
  );
}

/** Until `fn` answers a value (an event another service acts on arrives a moment later). */
async function until<T>(
  what: () => string,
  fn: () => Promise<T | undefined>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Job {
  id: string;
}
let paidSession = '';
let posted = 0;
/** Posts a job (a pack of `testers`) through the API; paid at the local checkout unless `unpaid`. */
async function postJob(
  p: Page,
  title: string,
  url: string,
  { unpaid = false, testers }: { unpaid?: boolean; testers?: number } = {},
) {
  const body = {
    title,
    url,
    what_to_test: 'Order a cake as a first-time visitor and check the cart.',
    budget: 1,
    expected_completion_hours: 48,
    geo_rule: 'us_pr',
    requirements: ['Can you find the price?', 'Does the cart count update?'],
    ...(testers ? { testers } : {}),
  };
  // As the app does: one Idempotency-Key for the attempt, sent again when the gateway gave up
  // waiting (504, the first requests of a product started on a busy machine) or the first try is
  // still being handled (409): the retry answers the one job, never a second.
  const key = `layout-${ts}-${++posted}`;
  type Posted = {
    job: Job;
    jobs?: Job[];
    pack?: { id: string };
    checkout_url: string;
    session_id: string;
  };
  let res: { status: number; body: Posted } | undefined;
  await until(
    () => `POST /api/jobs "${title.slice(0, 40)}" (last answer: ${JSON.stringify(res)})`,
    async () => {
      res = await api<Posted>(p, 'POST', '/api/jobs', body, key);
      return res.status === 504 || res.status === 409 ? undefined : res;
    },
    90_000,
  );
  res = res!;
  expect(res.status).toBe(201);
  if (!unpaid) {
    expect((await api(p, 'POST', `${res.body.checkout_url}/pay`)).status).toBeLessThan(400);
    paidSession = res.body.session_id;
  }
  return res.body;
}

/** Chooses the role through the API and keeps the new token (it carries the role), as the app does. */
async function chooseRole(p: Page, body: Record<string, string>): Promise<string> {
  const res = await api<{ user: { id: string }; access_token: string }>(
    p,
    'POST',
    '/api/users/init',
    body,
  );
  expect(res.status).toBe(200);
  await p.evaluate((t) => {
    sessionStorage.setItem('access_token', t);
    sessionStorage.setItem('token', t);
  }, res.body.access_token);
  return res.body.user.id;
}

async function signIn(ctx: BrowserContext, email: string, name: string, intent = 'poster') {
  const p = await ctx.newPage();
  await p.goto(`${base()}/api/auth/dev/login?email=${email}&name=${name}&intent=${intent}`);
  await p.waitForURL(/\/dashboard/);
  await p.waitForFunction(() => !!sessionStorage.getItem('access_token'));
  return p;
}

/** A claim succeeds once jobs has learnt of the approval and of the payment (events). */
async function claim(tester: Page, jobId: string) {
  let last: unknown;
  await until(
    () => `the claim of ${jobId} (last answer: ${JSON.stringify(last)})`,
    async () => {
      const r = await api(tester, 'POST', `/api/jobs/${jobId}/claim`);
      last = r;
      return r.status === 200 ? true : undefined;
    },
  );
}
async function submit(tester: Page, jobId: string) {
  const r = await api(tester, 'POST', `/api/jobs/${jobId}/submit-work`, {
    __multipart: true,
    feedback_text: 'The cart badge did not update until I refreshed the page.',
    key_finding_1: 'Cart badge lags behind the cart',
    key_finding_2: 'Price hidden below the fold on a phone',
  });
  expect(r.status).toBe(201);
}

const ctxs: Record<'visitor' | 'poster' | 'tester' | 'admin', BrowserContext> = {} as never;
const pages: Record<'poster' | 'tester' | 'admin', Page> = {} as never;
const jobs: Record<'submitted' | 'completed' | 'claimed' | 'long' | 'open', Job> = {} as never;
let shareToken = '';
let checkoutUrl = '';
let packId = '';
let packShareToken = '';

// The data every screen shows, made through the API: a poster with jobs in every state (one of
// them titled with unbreakable text), an approved tester holding a claimed job with earnings, a
// submission waiting for review and accepted results with a share link.
beforeAll(async () => {
  for (const role of ['visitor', 'poster', 'tester', 'admin'] as const)
    ctxs[role] = await run.browser.newContext({ viewport: { width: 1280, height: 800 } });
  pages.admin = await signIn(ctxs.admin, 'admin@gmail.com', 'Admin');
  const poster = await signIn(ctxs.poster, `layout-poster${ts}@gmail.com`, 'Pat');
  await chooseRole(poster, { type: 'poster', location: 'USA' });
  pages.poster = poster;
  const tester = await signIn(ctxs.tester, `layout-tester${ts}@gmail.com`, 'Tess');
  pages.tester = tester;
  const testerId = await chooseRole(tester, { type: 'tester', location: 'USA', country: 'US' });
  const approve = await api(pages.admin, 'PATCH', `/api/admin/approve-tester/${testerId}`, {
    approved: true,
  });
  expect(approve.status).toBe(200);
  for (const [key, site] of [
    ['completed', 'https://bakery.example'],
    ['submitted', 'https://florist.example'],
    ['claimed', 'https://garage.example'],
  ] as const)
    jobs[key] = (await postJob(poster, `Layout ${key} ${ts}`, site)).job;
  jobs.open = (await postJob(poster, `Layout open ${ts}`, 'https://dentist.example')).job;
  const unpaid = await postJob(poster, longTitle, longUrl, { unpaid: true });
  jobs.long = unpaid.job;
  checkoutUrl = unpaid.checkout_url;
  await claim(tester, jobs.completed.id);
  await submit(tester, jobs.completed.id);
  expect(
    (await api(poster, 'POST', `/api/jobs/${jobs.completed.id}/review`, { decision: 'accept' }))
      .status,
  ).toBe(200);
  const share = await api<{ token: string }>(
    poster,
    'POST',
    `/api/jobs/${jobs.completed.id}/share`,
    {},
  );
  expect(share.status).toBeLessThan(300);
  shareToken = share.body.token;
  await claim(tester, jobs.submitted.id);
  await submit(tester, jobs.submitted.id);
  // A pack of two with one report in: "What they agree on" with its summary and its one link.
  const pack = await postJob(poster, `Layout pack ${ts}`, 'https://baker.example', { testers: 2 });
  packId = pack.pack!.id;
  await claim(tester, pack.jobs![0].id);
  await submit(tester, pack.jobs![0].id);
  await claim(tester, jobs.claimed.id);
  // The summaries (computed off the request path) are on the screens audited below.
  for (const path of [`/api/jobs/${jobs.completed.id}/summary`, `/api/packs/${packId}/summary`])
    await until(
      () => `the summary ${path}`,
      async () => ((await api(poster, 'GET', path)).status === 200 ? true : undefined),
    );
  const packShare = await api<{ token: string }>(poster, 'POST', `/api/packs/${packId}/share`, {});
  expect(packShare.status).toBe(201);
  packShareToken = packShare.body.token;
}, 180_000);

/** Audits each screen as `open` shows it, collecting every problem of the role's walk. */
function walk(p: Page) {
  const found: string[] = [];
  return {
    found,
    /** Opens a screen (waits for `ready`) and audits it at every width. */
    screen: async (name: string, open: () => Promise<unknown>, ready: Locator) => {
      await withPageEvidence(p, `layout-${name}`, async () => {
        await open();
        await ready.first().waitFor();
      });
      found.push(...(await auditScreen(p, name)));
    },
    /** Opens a dialog from the current screen, audits it and closes it (Escape). */
    dialog: async (name: string, open: () => Promise<unknown>) => {
      await withPageEvidence(p, `layout-${name}`, async () => {
        await open();
        await p.getByRole('dialog').first().waitFor();
      });
      found.push(...(await auditScreen(p, name)));
      await p.keyboard.press('Escape');
      await p.getByRole('dialog').first().waitFor({ state: 'hidden' });
    },
  };
}

const go = (p: Page, url: string) => () => p.goto(`${base()}${url}`);

describe('layout audit: every screen at 320, 390, 768 and 1280 px', () => {
  it('signed out: the landing page, sign-in, public pages, payment return, checkout and the share page', async () => {
    const p = await ctxs.visitor.newPage();
    const w = walk(p);
    await w.screen(
      'landing',
      async () => {
        await p.goto(`${base()}/`);
        // Every form loaded (they load on the visitor's first act).
        await p.mouse.move(1, 1);
        await p.getByRole('form', { name: 'Tester signup' }).waitFor();
      },
      p.getByRole('form', { name: 'Join the waitlist' }),
    );
    await w.screen(
      'landing gmail-only problem',
      async () => {
        // A new document (a change of hash alone would not sign-in-check again).
        await p.goto('about:blank');
        await p.goto(`${base()}/#auth_error=gmail_only`);
      },
      p.getByRole('alert', { name: 'Sign-in problem' }).getByRole('form'),
    );
    await w.screen('login', go(p, '/login'), p.getByRole('heading', { level: 1 }));
    await w.screen(
      'tester login',
      go(p, '/login/tester'),
      p.getByRole('heading', { name: 'Secure Tester Login' }),
    );
    await w.screen(
      'example report',
      go(p, '/example-report'),
      p.getByRole('heading', { name: 'Key findings' }),
    );
    for (const page of ['terms', 'privacy', 'refunds'])
      await w.screen(page, go(p, `/${page}`), p.getByRole('heading', { level: 1 }));
    await w.screen(
      'not found',
      go(p, '/no-such-page'),
      p.getByRole('heading', { name: 'Page not found' }),
    );
    await w.screen(
      'account deleted',
      go(p, '/account-deleted?on=2026-12-03T05:00:00.000Z'),
      p.getByRole('heading', { name: 'Your account is scheduled for deletion' }),
    );
    await w.screen(
      'payment cancel',
      go(p, '/payment/cancel'),
      p.getByText('Payment cancelled. Your job was not published.'),
    );
    await w.screen(
      'payment success without a session',
      go(p, '/payment/success'),
      p.getByRole('heading', { level: 1 }),
    );
    await w.screen('local checkout', go(p, checkoutUrl), p.getByRole('button', { name: /Pay/ }));
    await w.screen(
      'shared report',
      go(p, `/r/${shareToken}`),
      p.getByRole('heading', { level: 1 }),
    );
    await w.screen(
      "a pack's shared report",
      go(p, `/r/${packShareToken}`),
      p.getByRole('heading', { name: 'What the testers agree on' }),
    );
    expect(w.found).toEqual([]);
  }, 180_000);

  it("as a poster: the dashboard with jobs in every state, its dialogs and the account's", async () => {
    const p = pages.poster;
    const w = walk(p);
    await w.screen('poster dashboard', go(p, '/dashboard'), p.getByText(longTitle));
    // Logout stays in view on the smallest phone (outside the header's account controls).
    const logout = p.getByRole('button', { name: 'Logout' });
    expect(
      await logout.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return r.width > 0 && r.left >= 0 && r.right <= window.innerWidth && hit === el;
      }),
    ).toBe(true);
    await w.dialog('post new job', () => p.getByRole('button', { name: 'Post New Job' }).click());
    // Post Job & Pay while payments cannot answer (jobs' answer then: saved, no checkout, why).
    await p.route('**/api/jobs', async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      const saved = await route.fetch();
      const body = (await saved.json()) as Record<string, unknown>;
      await route.fulfill({
        response: saved,
        json: { ...body, checkout_url: null, session_id: null, payment_error: PAYMENT_DOWN },
      });
    });
    await w.dialog('job saved, not paid yet', async () => {
      await p.getByRole('button', { name: 'Post New Job' }).click();
      await p.getByLabel('Job title').fill(`Layout saved unpaid ${ts}`);
      await p.getByLabel('Website URL').fill('https://example.com');
      await p.getByLabel('What to test').fill('The home page');
      await p.getByLabel('Thing to check 1', { exact: true }).fill('The menu');
      await p.getByRole('button', { name: /^Post Job & Pay/ }).click();
      await p.getByRole('dialog', { name: 'Job saved, not paid yet' }).waitFor();
    });
    await p.unroute('**/api/jobs');
    const card = (title: string) =>
      p.getByRole('listitem').filter({ has: p.getByRole('heading', { name: title, exact: true }) });
    await w.dialog('review submission', () =>
      card(`Layout submitted ${ts}`).getByRole('button', { name: 'Review Submission' }).click(),
    );
    await w.dialog('results', () =>
      card(`Layout completed ${ts}`).getByRole('button', { name: 'View Results' }).click(),
    );
    await w.dialog('what they agree on', async () => {
      await p
        .getByRole('listitem', { name: `Pack of 2 testers: Layout pack ${ts}` })
        .getByRole('button', { name: 'What they agree on' })
        .click();
      await p.getByRole('dialog').getByRole('heading', { name: 'Fix first' }).waitFor();
    });
    await w.screen(
      'account menu open',
      () => p.getByRole('button', { name: 'Account' }).click(),
      p.getByRole('button', { name: 'Your data' }),
    );
    for (const name of ['E-mail settings', 'Sign-ins', 'Your data'])
      await w.dialog(name, async () => {
        if (!(await p.getByRole('button', { name }).isVisible()))
          await p.getByRole('button', { name: 'Account' }).click();
        await p.getByRole('button', { name }).click();
      });
    await w.dialog('Send Feedback', () => p.getByRole('button', { name: 'Send Feedback' }).click());
    await w.screen(
      'payment success',
      go(p, `/payment/success?session_id=${paidSession}`),
      p.getByRole('heading', { name: 'What happens next' }),
    );
    // Settings and integrations: one click from the dashboard, its own URL.
    await p.goto(`${base()}/dashboard`);
    await w.screen(
      'settings and integrations',
      () => p.getByRole('link', { name: 'Settings and integrations' }).click(),
      p.getByRole('form', { name: 'Jira' }),
    );
    expect(new URL(p.url()).pathname).toBe('/dashboard/settings');
    expect(w.found).toEqual([]);
  }, 240_000);

  it('as a tester: pending approval, the three tabs with a claimed job, both report forms and the profile', async () => {
    const p = pages.tester;
    const w = walk(p);
    await w.screen(
      'tester available jobs',
      go(p, '/dashboard'),
      p.getByRole('tab', { name: 'Available Jobs', selected: true }),
    );
    await w.dialog('update your profile', () =>
      p.getByRole('button', { name: 'Update Your Profile' }).click(),
    );
    await p.getByRole('tab', { name: 'My Jobs' }).click();
    const mine = p
      .getByRole('listitem')
      .filter({ has: p.getByRole('heading', { name: `Layout claimed ${ts}`, exact: true }) });
    await w.screen(
      'tester my jobs',
      async () => undefined,
      mine.getByRole('button', { name: 'Quick report' }),
    );
    await w.dialog('quick report', () =>
      mine.getByRole('button', { name: 'Quick report' }).click(),
    );
    await w.dialog('detailed report', () =>
      mine.getByRole('button', { name: 'Detailed report' }).click(),
    );
    await w.screen(
      'tester earnings',
      () => p.getByRole('tab', { name: 'Earnings' }).click(),
      p.getByRole('list', { name: 'Earnings summary' }),
    );
    // A new tester before an admin approves them.
    const pending = await signIn(ctxs.visitor, `layout-new${ts}@gmail.com`, 'Nia');
    const nw = walk(pending);
    await nw.screen(
      'choose your role',
      async () => undefined,
      pending.getByRole('heading', { name: 'Choose Your Role' }),
    );
    await pending.getByRole('radio', { name: /^Tester/ }).check();
    await pending.getByLabel('Country').selectOption('US');
    await nw.screen(
      'tester pending approval',
      () => pending.getByRole('button', { name: 'Continue' }).click(),
      pending.getByRole('heading', { name: 'Your tester account is pending approval' }),
    );
    expect([...w.found, ...nw.found]).toEqual([]);
  }, 240_000);

  it("as the admin: every tab, the jobs table with unbreakable text, a submission and clear-all's question", async () => {
    const p = pages.admin;
    const w = walk(p);
    for (const tab of ['Overview', 'Manage', 'Actions', 'History', 'Insights', 'Privacy']) {
      await w.screen(
        `admin ${tab}`,
        () => p.getByRole('tab', { name: tab }).click(),
        p.getByRole('tab', { name: tab, selected: true }),
      );
      if (tab === 'Manage') {
        const row = p.getByRole('table', { name: 'All jobs' }).locator('tr', {
          hasText: `Layout submitted ${ts}`,
        });
        await w.dialog('admin review submission', () =>
          row.getByRole('button', { name: 'Review submission' }).click(),
        );
      }
      if (tab === 'Actions')
        await w.dialog('admin clear all jobs', () =>
          p.getByRole('button', { name: 'Clear all jobs' }).click(),
        );
    }
    expect(w.found).toEqual([]);
  }, 240_000);
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
    const p = await signIn(ctx, `toast${ts}@gmail.com`, 'Tom');
    await chooseRole(p, { type: 'poster', location: 'USA' });
    await p.goto(`${base()}/dashboard/settings`);
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
    const submitButton = form.getByRole('button', { name: 'Connect GitHub' });
    await repo.fill('acme/shop');
    await token.fill('github_pat_example');
    // The form at the top of the screen, then at the bottom: the toast takes the other edge.
    // (Room below the page's last form, so that it can scroll up to the top of the screen.)
    await p.evaluate(() => (document.body.style.paddingBottom = '900px'));
    for (const block of ['start', 'end'] as const) {
      await form.evaluate((el, b) => el.scrollIntoView({ block: b, behavior: 'instant' }), block);
      await submitButton.click();
      const toast = p.locator('.toast', { hasText: 'GitHub refused the token' });
      await toast.waitFor();
      // What the phone shows (a full-page shot would move the fixed toast).
      await p.screenshot({
        path: path.join(SCREENSHOT_DIR, `layout-toast-form-at-${block}-390.png`),
      });
      const box = await toast.boundingBox();
      for (const control of [repo, token, submitButton])
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
