import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SiteCheckSizeDetail } from '@htm/contracts';
import { startFixtureSite, type FixtureSite } from './fixtures/sites.js';
import { ev, startHarness, waitFor, type Harness } from './support.js';

/**
 * The one real check of this suite with Lighthouse (the slow part): the flawed fixture site, at
 * 390 and 1280 px, through the service (events in, check in Chromium, results stored, events out,
 * the route). Every other test reuses it.
 */
describe('site check of a site with known problems', () => {
  let site: FixtureSite;
  let h: Harness;
  const poster = { id: randomUUID(), type: 'poster' as const };
  const [jobA, jobB, unpaid] = [randomUUID(), randomUUID(), randomUUID()];
  let session: string;

  beforeAll(async () => {
    site = await startFixtureSite();
    h = await startHarness('site-check', { SITE_CHECK_ALLOW_PRIVATE: 'true' });
    // A pack of two jobs of one checkout, and a job that is never paid.
    session = await h.payJobs(site.url, poster.id, [jobA, jobB]);
    await h.publish(
      ev('JobCreated', unpaid, {
        jobId: unpaid,
        posterId: poster.id,
        title: 'Never paid',
        url: site.url,
        geoRule: 'global_beta',
        budgetCents: 100,
        expectedCompletionHours: 48,
      }),
    );
    await waitFor(
      async () => (await h.published()).filter((e) => e.type === 'SiteChecked').length === 2,
      'SiteChecked for both jobs of the pack',
      200_000,
    );
  }, 240_000);

  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  it('reports exactly the known problems at 390 px (touch) and 1280 px', async () => {
    const { status, body } = await h.read(jobA, poster);
    expect(status).toBe(200);
    expect(body.state).toBe('done');
    expect(body.status).toBe('complete');
    expect(body.sizes.map((s) => [s.size, s.width])).toEqual([
      ['phone', 390],
      ['desktop', 1280],
    ]);
    const origin = site.url.replace(/\/$/, '');
    for (const s of body.sizes as SiteCheckSizeDetail[]) {
      const at = `at ${s.size}`;
      expect([at, s.accessibility.map((v) => [v.rule, v.impact, v.count])]).toEqual([
        at,
        [
          ['button-name', 'critical', 1],
          ['image-alt', 'critical', 2],
          ['label', 'critical', 1],
        ],
      ]);
      expect(s.accessibility.find((v) => v.rule === 'image-alt')?.help).toBe(
        'Images must have alternative text',
      );
      expect([at, s.console_errors.map((c) => c.text)]).toEqual([
        at,
        ['fixture: something went wrong'],
      ]);
      expect([at, s.exceptions.map((x) => x.message)]).toEqual([at, ['fixture: boom']]);
      expect([at, s.failed_requests.map((f) => [f.url, f.status])]).toEqual([
        at,
        [[`${origin}/missing.png`, 404]],
      ]);
      expect([at, s.broken_images]).toEqual([at, [{ url: `${origin}/missing.png`, status: 404 }]]);
      // The slow script blocks the main thread; the banner shifts the layout (the browser's own
      // figures and Lighthouse's lab figures agree).
      expect([at, s.long_tasks_ms > 200, s.layout_shift > 0.1]).toEqual([at, true, true]);
      expect(s.performance).not.toBeNull();
      expect([at, s.performance!.tbt_ms! > 200, s.performance!.cls! > 0.1]).toEqual([
        at,
        true,
        true,
      ]);
      expect(s.performance!.score).toBeGreaterThanOrEqual(0);
      expect(s.performance!.lcp_ms).toBeGreaterThan(0);
      expect(s.page_bytes).toBeGreaterThan(1000);
      expect(s.screenshot).toMatch(/^data:image\/jpeg;base64,/);
    }
    expect(body.links).toEqual({ checked: 2, broken: [{ url: `${origin}/gone`, status: 404 }] });
    expect(body.blocked).toEqual([]);

    // The owner's summary: exactly these findings, in plain language.
    const findings = body.summary!.findings;
    expect(findings.map((f) => f.key).sort()).toEqual(
      [
        'a11y:button-name',
        'a11y:image-alt',
        'a11y:label',
        'errors:console',
        'errors:exceptions',
        'errors:requests',
        'images:broken',
        'links:broken',
        'speed:tbt:desktop',
        'speed:tbt:phone',
        'stability:cls:desktop',
        'stability:cls:phone',
      ].sort(),
    );
    const texts = findings.map((f) => f.text);
    expect(texts).toContain('2 images have no text for screen readers');
    expect(texts).toContain(
      '1 image does not load: visitors see an empty space or a broken picture',
    );
    expect(findings.find((f) => f.key === 'a11y:image-alt')?.sizes).toEqual(['phone', 'desktop']);
    expect(texts.find((t) => t.includes('ignores taps and clicks'))).toMatch(
      /on a phone: under 0\.2 s is good$/,
    );
  });

  it('checks a pack once and tells each of its jobs the same result', async () => {
    const events = (await h.published()).filter((e) => e.type === 'SiteChecked');
    expect(events.map((e) => e.subject).sort()).toEqual([jobA, jobB].sort());
    expect(events[0].data.summary).toEqual(events[1].data.summary);
    const rows = await h.sql<{ n: number }>(
      'SELECT count(*)::int AS n FROM site_check.checks WHERE session_id = $1',
      [session],
    );
    expect(rows[0].n).toBe(1);
    // The page was opened once per size by the browser and once per size by Lighthouse.
    expect(site.hits.filter((x) => x === 'GET /').length).toBe(4);
    const b = await h.read(jobB, poster);
    expect(b.status).toBe(200);
    expect(b.body.summary).toEqual(events[0].data.summary);
  });

  it('lets the poster, the admin and the tester holding the job read it, and nobody else', async () => {
    const tester = { id: randomUUID(), type: 'tester' as const };
    const other = { id: randomUUID(), type: 'tester' as const };
    expect((await h.read(jobA, tester)).status).toBe(403);
    await h.publish(
      ev('JobClaimed', jobA, {
        jobId: jobA,
        testerId: tester.id,
        claimedAt: new Date().toISOString(),
        deadlineAt: new Date(Date.now() + 3600_000).toISOString(),
        by: 'tester',
        posterId: poster.id,
      }),
    );
    await waitFor(async () => (await h.read(jobA, tester)).status === 200, 'the holder reads it');
    expect((await h.read(jobA, other)).status).toBe(403);
    expect((await h.read(jobA, { id: randomUUID(), type: 'poster' })).body.code).toBe(
      'not_allowed',
    );
    expect((await h.read(jobA, { id: randomUUID(), type: 'admin' })).status).toBe(200);
    expect((await h.read(jobA, null)).status).toBe(401);
    const notPaid = await h.read(unpaid, poster);
    expect([notPaid.status, notPaid.body.code]).toEqual([404, 'site_check_not_found']);
    expect((await h.read(randomUUID(), poster)).status).toBe(404);
    await h.publish(
      ev('JobReleased', jobA, {
        jobId: jobA,
        testerId: tester.id,
        reason: 'claim_timeout',
        posterId: poster.id,
      }),
    );
    await waitFor(
      async () => (await h.read(jobA, tester)).status === 403,
      'the released tester is refused',
    );
  });

  it("forgets the check and its screenshots once the pack's jobs are withdrawn (their poster's account deleted)", async () => {
    const shots = () =>
      h.sql<{ size: string }>(
        'SELECT s.size FROM site_check.screenshots s JOIN site_check.checks c ON c.id = s.check_id WHERE c.session_id = $1 ORDER BY s.size',
        [session],
      );
    expect((await shots()).map((r) => r.size)).toEqual(['desktop', 'phone']);
    await h.publish(
      ev('JobsWithdrawn', poster.id, {
        posterId: poster.id,
        refundJobIds: [jobA, jobB],
        reason: 'account_deleted',
      }),
    );
    await waitFor(
      async () => (await h.read(jobA, { id: randomUUID(), type: 'admin' })).status === 404,
      'the withdrawn jobs forgotten',
    );
    expect(
      await h.sql('SELECT id FROM site_check.checks WHERE session_id = $1', [session]),
    ).toEqual([]);
    expect(await h.sql('SELECT check_id FROM site_check.screenshots')).toEqual([]);
  });
});
