/**
 * "The report gives a verdict" (issue #51) over HTTP through the gateway, every service real, one
 * stack for the file: a scripted pack of 5 gets its stored summary off the request path (what to
 * fix first, "3 of 5" with its three moments, a blocker seen by one above a cosmetic seen by
 * three, unrelated findings apart), the same access rules and lock as the submission view, the
 * report.summarized webhook, and the testers' "same problem" and the owner's merge / split winning
 * over language through every recomputation.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createEvent } from '@htm/events';
import type {
  ClosestFindingsResponse,
  InsightsResponse,
  JobView,
  ReportSummary,
} from '@htm/contracts';
import {
  client,
  postAndPay,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  waitFor,
  JOB,
  type Actor,
  type Stack,
} from './support/stack.js';
import { payCheckout, postPackAndPay } from './support/packs.js';
import { SLOW_ON_PHONE } from '@htm/jobs/testing';

let stack: Stack;
let admin: Actor;
let poster: Actor;
let other: Actor;
let testers: Actor[];

beforeAll(async () => {
  stack = await startStack({
    label: 'report-summary',
    env: { SUMMARY_POLL_MS: '200', WEBHOOKS_ALLOW_PRIVATE: 'true' },
  });
  admin = await signInAdmin(stack);
  poster = await signInPoster(stack, 'summary.poster@gmail.com');
  other = await signInPoster(stack, 'summary.other@gmail.com');
  testers = [];
  for (let i = 1; i <= 5; i++)
    testers.push(await signInTester(stack, `summary.tester${i}@gmail.com`, { admin }));
}, 240_000);
afterAll(async () => {
  await stack?.stop();
});

const SITE = {
  ...JOB,
  title: 'Verdict on my shop',
  url: 'https://verdict-shop.example',
  requirements: ['Buy a product as a new customer', 'Find the shipping costs'],
};
const postPack = (size: number, site: Record<string, unknown> = SITE) =>
  postPackAndPay(stack, poster, size, site);

interface Finding {
  text: string;
  severity?: string;
  at_ms?: number;
}

/** Claims a slot of the pack and sends a Quick report with these findings (and task answers). */
async function report(
  tester: Actor,
  jobId: string,
  feedback: string,
  findings: Finding[],
  extra: Record<string, string> = {},
): Promise<string> {
  const claim = await client(stack, tester.token).post(`/api/jobs/${jobId}/claim`, {});
  expect(claim.status).toBe(200);
  const form = new FormData();
  form.set('feedback_text', feedback);
  findings.forEach((f, i) => {
    form.set(`key_finding_${i + 1}`, f.text);
    if (f.severity) form.set(`key_finding_${i + 1}_severity`, f.severity);
    if (f.at_ms !== undefined) form.set(`key_finding_${i + 1}_at_ms`, String(f.at_ms));
  });
  for (const [k, v] of Object.entries(extra)) form.set(k, v);
  const res = await fetch(`${stack.url}/api/jobs/${jobId}/submit-work`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tester.token}` },
    body: form,
  });
  const body = (await res.json()) as { submission: { id: string } };
  expect(res.status).toBe(201);
  return body.submission.id;
}

async function summaryOnceComputed(
  path: string,
  token: string,
  ready: (s: ReportSummary) => boolean,
  what: string,
): Promise<ReportSummary> {
  let last: ReportSummary | undefined;
  let seen = '';
  await waitFor(async () => {
    const r = await client(stack, token).get(path);
    seen = `${r.status} ${JSON.stringify(r.body).slice(0, 600)}`;
    if (r.status !== 200) return false;
    last = r.body as unknown as ReportSummary;
    return ready(last);
  }, what).catch((err: Error) => {
    throw new Error(`${err.message}; last answer: ${seen}`);
  });
  return last!;
}

const texts = (s: ReportSummary) =>
  s.problems.map((p) => `${p.testers_hit}/${p.testers_total} ${p.severity ?? '-'} ${p.title}`);

describe('the pack summary', () => {
  let packId: string;
  let jobs: JobView[];
  const subs: string[] = [];

  it('is 404 until a report is in, then puts "3 of 5" first with its three moments, a blocker seen by one above a cosmetic seen by three, and keeps unrelated findings apart', async () => {
    ({ packId, jobs } = await postPack(5));
    const path = `/api/packs/${packId}/summary`;
    const none = await client(stack, poster.token).get(path);
    expect(none.status).toBe(404);
    expect(none.body.code).toBe('no_submission');
    // The poster asks for report.summarized (endpoints do not get it unless they ask).
    const hook = await client(stack, poster.token).post('/api/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hooks',
      events: ['report.summarized'],
    });
    expect(hook.status).toBe(201);

    subs.push(
      await report(
        testers[0],
        jobs[0].id,
        'Went from the home page to checkout on my laptop, most things were fine.',
        [
          { text: 'Checkout forces account creation', severity: 'blocker', at_ms: 30_000 },
          { text: 'The logo is blurry', severity: 'cosmetic', at_ms: 2_000 },
        ],
        {
          task_answers: JSON.stringify([
            { requirement_index: 0, outcome: 'not_done', seq: 2, minutes: 6 },
          ]),
        },
      ),
      await report(
        testers[1],
        jobs[1].id,
        'I tried to buy a mug. The account step stopped me for a while.',
        [
          { text: 'Must create an account to check out', severity: 'major', at_ms: 42_000 },
          { text: 'Logo looks pixelated', severity: 'cosmetic', at_ms: 1_000 },
        ],
      ),
      await report(
        testers[2],
        jobs[2].id,
        'On my phone the shop worked but signing up was required to pay.',
        [
          {
            text: 'I had to create an account before I could check out',
            severity: 'major',
            at_ms: 61_000,
          },
          { text: 'The logo image looks pixelated', severity: 'cosmetic' },
        ],
      ),
      await report(
        testers[3],
        jobs[3].id,
        'The cart was fine; the last step of payment did not work for me.',
        [{ text: 'The pay button does nothing', severity: 'blocker', at_ms: 90_000 }],
      ),
      await report(
        testers[4],
        jobs[4].id,
        'Browsing was pleasant. Delivery prices were a surprise at the end.',
        [
          { text: 'Shipping costs are only shown at the last step', severity: 'minor' },
          { text: 'The footer has a typo in the company name', severity: 'cosmetic' },
        ],
      ),
    );

    const s = await summaryOnceComputed(
      path,
      poster.token,
      (x) => x.problems[0]?.testers_total === 5,
      'the pack summary to count five reports',
    );
    const first = s.problems[0];
    expect(first).toMatchObject({ testers_hit: 3, testers_total: 5, severity: 'blocker' });
    expect(first.evidence.map((e) => e.at_ms).sort((a, b) => a! - b!)).toEqual([
      30_000, 42_000, 61_000,
    ]);
    expect(new Set(first.evidence.map((e) => e.submission_id))).toEqual(new Set(subs.slice(0, 3)));
    // Severity first: the blocker one tester hit, then the rest; the cosmetic three hit after it.
    expect(s.problems[1]).toMatchObject({ title: 'The pay button does nothing', testers_hit: 1 });
    const logo = s.problems.findIndex((p) => /logo/i.test(p.title));
    expect(logo).toBeGreaterThan(1);
    expect(s.problems[logo]).toMatchObject({ testers_hit: 3, severity: 'cosmetic' });
    // Unrelated findings are problems of their own, one tester each.
    const rest = s.problems.filter((_, i) => i !== 0 && i !== logo);
    expect(rest.every((p) => p.testers_hit === 1)).toBe(true);
    expect(s.problems.length).toBeLessThanOrEqual(5);
    // Nothing is accepted yet: the poster's summary is locked like the submission view.
    expect(s.locked).toBe(true);
    expect(s.tasks.every((t) => t.n === 0)).toBe(true);
    // Evidence while locked shows only the preview image (none sent here).
    expect(first.evidence.every((e) => e.screenshot_url === null)).toBe(true);
    // The admin reads it whole: the task answer counts there.
    const full = await client(stack, admin.token).get(path);
    expect(full.status).toBe(200);
    const whole = full.body as unknown as ReportSummary;
    expect(whole.locked).toBe(false);
    expect(whole.tasks[0]).toMatchObject({ n: 1, success_rate: 0, seq_mean: 2 });
    console.log(`pack summary:\n  ${texts(s).join('\n  ')}`);
  });

  it('answers only the readers of the submission view: another poster 403, a tester 403 on the pack and on a slot not theirs', async () => {
    const path = `/api/packs/${packId}/summary`;
    expect((await client(stack, other.token).get(path)).status).toBe(403);
    expect((await client(stack, testers[0].token).get(path)).status).toBe(403);
    expect(
      (await client(stack, testers[1].token).get(`/api/jobs/${jobs[0].id}/summary`)).status,
    ).toBe(403);
    const own = await summaryOnceComputed(
      `/api/jobs/${jobs[0].id}/summary`,
      testers[0].token,
      (x) => x.problems.length === 2,
      "the tester's own job summary",
    );
    expect(own.locked).toBe(false);
    expect(own.problems.map((p) => p.testers_total)).toEqual([1, 1]);
  });

  it('opens the locked parts once a report is accepted, recomputed off the request path, and announces it (report.summarized webhook)', async () => {
    const accept = await client(stack, poster.token).post(`/api/jobs/${jobs[0].id}/review`, {
      decision: 'accept',
    });
    expect(accept.status).toBe(200);
    const s = await summaryOnceComputed(
      `/api/packs/${packId}/summary`,
      poster.token,
      (x) => x.tasks[0]?.n === 1,
      'the accepted task answer in the poster summary',
    );
    expect(s.locked).toBe(true); // four reports are still locked
    expect(s.tasks[0]).toMatchObject({ requirement_index: 0, success_rate: 0, seq_mean: 2 });
    const endpoints = await client(stack, poster.token).get('/api/webhook-endpoints');
    const id = (endpoints.body as unknown as { endpoints: Array<{ id: string }> }).endpoints[0].id;
    await waitFor(async () => {
      const d = await client(stack, poster.token).get(`/api/webhook-endpoints/${id}/deliveries`);
      const list = (d.body as unknown as { deliveries: Array<{ event: string }> }).deliveries;
      return list.some((x) => x.event === 'report.summarized');
    }, 'a report.summarized delivery');
    // Analytics consumed ReportSummarized: the Insights tab's time from last report to summary.
    const today = new Date().toISOString().slice(0, 10);
    await waitFor(async () => {
      const r = await client(stack, admin.token).get(
        `/api/admin/insights?from=${today}&to=${today}`,
      );
      const t = (r.body as unknown as InsightsResponse).time_to_summary_ms;
      return t.p50 !== null && t.p50 < 120_000;
    }, 'the time to summary on the insights');
  });

  it('lets the owner merge two problems and split a finding off; their choice holds when the summary is computed again', async () => {
    const path = `/api/packs/${packId}/summary`;
    const pay = { submission_id: subs[3], finding_index: 0 };
    const shipping = { submission_id: subs[4], finding_index: 0 };
    const bad = await client(stack, poster.token).post(`/api/packs/${packId}/groups`, {
      action: 'merge',
      findings: [pay, { submission_id: subs[4], finding_index: 7 }],
    });
    expect(bad.status).toBe(400);
    expect(
      (
        await client(stack, other.token).post(`/api/packs/${packId}/groups`, {
          action: 'merge',
          findings: [pay, shipping],
        })
      ).status,
    ).toBe(403);
    const merged = await client(stack, poster.token).post(`/api/packs/${packId}/groups`, {
      action: 'merge',
      findings: [pay, shipping],
    });
    expect(merged.status).toBe(200);
    // Computed before the answer: the page's refetch right after it shows the merge.
    const now = (await client(stack, poster.token).get(path)).body as unknown as ReportSummary;
    expect(
      now.problems.some(
        (p) => p.evidence.length === 2 && p.evidence.some((e) => e.submission_id === subs[4]),
      ),
    ).toBe(true);
    const s = await summaryOnceComputed(
      path,
      poster.token,
      (x) =>
        x.problems.some(
          (p) => p.evidence.length === 2 && p.evidence.some((e) => e.submission_id === subs[4]),
        ),
      'the merged problem',
    );
    const joined = s.problems.find((p) => p.evidence.some((e) => e.submission_id === subs[3]))!;
    expect(joined.testers_hit).toBe(2);
    // Split the third account finding off its group: two remain, whatever their words say.
    const split = await client(stack, poster.token).post(`/api/packs/${packId}/groups`, {
      action: 'split',
      finding: { submission_id: subs[2], finding_index: 0 },
      from: [
        { submission_id: subs[0], finding_index: 0 },
        { submission_id: subs[1], finding_index: 0 },
      ],
    });
    expect(split.status).toBe(200);
    const after = await summaryOnceComputed(
      path,
      poster.token,
      (x) => x.problems[0].testers_hit === 2 && x.problems[0].severity === 'blocker',
      'the split problem',
    );
    expect(after.problems[0].evidence.map((e) => e.submission_id).sort()).toEqual(
      [subs[0], subs[1]].sort(),
    );
    // A later report recomputes the summary; the owner's choices still hold (an acceptance here).
    await client(stack, poster.token).post(`/api/jobs/${jobs[1].id}/review`, {
      decision: 'accept',
    });
    const again = await summaryOnceComputed(
      path,
      admin.token,
      (x) => x.problems[0].testers_hit === 2,
      'the summary after another change',
    );
    expect(
      again.problems.find((p) => p.evidence.some((e) => e.submission_id === subs[3]))!.testers_hit,
    ).toBe(2);
    // The pack's "What they agree on" list (where the owner's controls are) shows the same choice.
    const view = await client(stack, poster.token).get(`/api/packs/${packId}`);
    const clusterOf = (sub: string, index = 0) =>
      view.body.clusters.find((c) =>
        c.findings.some((f) => f.submission_id === sub && f.finding_index === index),
      )!;
    expect(
      clusterOf(subs[3])
        .findings.map((f) => f.submission_id)
        .sort(),
    ).toEqual([subs[3], subs[4]].sort());
    expect(clusterOf(subs[2]).findings.some((f) => f.submission_id === subs[0])).toBe(false);
    expect(clusterOf(subs[0]).count).toBe(2);
  });
});

describe("the tester's same problem", () => {
  it('joins the group for certain when the tester says so, and refuses a finding that is not in the pack', async () => {
    const { packId, jobs } = await postPack(2, {
      ...SITE,
      title: 'Same problem?',
      url: 'https://same-problem.example',
    });
    const first = await report(
      testers[0],
      jobs[0].id,
      'The payment page was the hard part today.',
      [{ text: 'The pay button does nothing', severity: 'blocker' }],
    );
    const closest = (token: string, body: unknown) =>
      client(stack, token).post(`/api/jobs/${jobs[1].id}/closest-findings`, body);
    // Only the tester holding the slot may compare (not before claiming it, not the poster).
    expect((await closest(testers[1].token, { texts: ['x'] })).status).toBe(403);
    expect((await closest(poster.token, { texts: ['x'] })).status).toBe(403);
    const claim = await client(stack, testers[1].token).post(`/api/jobs/${jobs[1].id}/claim`, {});
    expect(claim.status).toBe(200);
    const bad = await closest(testers[1].token, { texts: [] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.texts).toBeDefined();
    // After writing their findings: the pack's closest findings of the others, for each.
    const mine = ['Clicking Pay has no effect at all', 'The footer has a typo in the company name'];
    const found = await closest(testers[1].token, { texts: mine });
    expect(found.status).toBe(200);
    expect((found.body as unknown as ClosestFindingsResponse).closest[0]).toEqual([
      { same_as: `${first}:0`, text: 'The pay button does nothing', severity: 'blocker' },
    ]);
    expect((found.body as unknown as ClosestFindingsResponse).closest[1]).toEqual([]);
    const send = async (sameAs: string) => {
      const form = new FormData();
      form.set('feedback_text', 'Everything worked apart from one odd thing on the last page.');
      form.set('key_finding_1', mine[1]);
      form.set('key_finding_1_same_as', sameAs);
      return fetch(`${stack.url}/api/jobs/${jobs[1].id}/submit-work`, {
        method: 'POST',
        headers: { authorization: `Bearer ${testers[1].token}` },
        body: form,
      });
    };
    const wrong = await send(`${first}:5`);
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { detail: string }).detail).toBe(
      'Finding 1: "same problem" must name a finding of another tester\'s report in this pack',
    );
    expect((await send(`${first}:0`)).status).toBe(201);
    const s = await summaryOnceComputed(
      `/api/packs/${packId}/summary`,
      poster.token,
      (x) => x.problems[0]?.testers_total === 2,
      'the pack summary of two',
    );
    expect(s.problems).toHaveLength(1);
    expect(s.problems[0]).toMatchObject({ testers_hit: 2, testers_total: 2 });
  });
});

describe('a re-test', () => {
  it('shows before → after per thing to check: the original report beside the re-test', async () => {
    // The same tester reports both times, with one finding and an answer per thing to check.
    const reportWith = (id: string, feedback: string, finding: Finding, tasks: unknown[]) =>
      report(testers[0], id, feedback, [finding], { task_answers: JSON.stringify(tasks) });
    const { jobId } = await postAndPay(stack, poster, {
      ...SITE,
      title: 'Before and after',
      url: 'https://before-after.example',
    });
    await reportWith(
      jobId,
      'Buying took a long time and I never found the shipping costs.',
      { text: 'Checkout forces account creation', severity: 'blocker' },
      [
        { requirement_index: 0, outcome: 'not_done', seq: 2, minutes: 6 },
        { requirement_index: 1, outcome: 'partly', seq: 4 },
      ],
    );
    const review = (id: string) =>
      client(stack, poster.token).post(`/api/jobs/${id}/review`, { decision: 'accept' });
    expect((await review(jobId)).status).toBe(200);
    const retest = await client(stack, poster.token).post(`/api/jobs/${jobId}/retest`);
    expect(retest.status).toBe(201);
    const retestId = retest.body.job.id as string;
    await payCheckout(stack, poster, retest.body.checkout_url!, [retestId]);
    await reportWith(
      retestId,
      'After the fixes buying was quick and the shipping costs were on the product page.',
      { text: 'The logo is blurry', severity: 'cosmetic' },
      [
        { requirement_index: 0, outcome: 'done', seq: 6, minutes: 2 },
        { requirement_index: 1, outcome: 'done', seq: 7 },
      ],
    );
    expect((await review(retestId)).status).toBe(200);
    const s = await summaryOnceComputed(
      `/api/jobs/${retestId}/summary`,
      poster.token,
      (x) => !x.locked && x.tasks[0]?.n === 1,
      'the accepted re-test summary',
    );
    expect(
      s.tasks.map(({ success_rate, seq_mean, median_time_ms, n, before }) => ({
        after: { success_rate, seq_mean, median_time_ms, n },
        before,
      })),
    ).toEqual([
      {
        before: { success_rate: 0, seq_mean: 2, median_time_ms: 360_000, n: 1 },
        after: { success_rate: 1, seq_mean: 6, median_time_ms: 120_000, n: 1 },
      },
      {
        before: { success_rate: 0.5, seq_mean: 4, median_time_ms: null, n: 1 },
        after: { success_rate: 1, seq_mean: 7, median_time_ms: null, n: 1 },
      },
    ]);
    // The original job's own summary has no before.
    const original = await summaryOnceComputed(
      `/api/jobs/${jobId}/summary`,
      poster.token,
      (x) => !x.locked,
      'the original summary',
    );
    expect(original.tasks.every((t) => t.before === undefined || t.before === null)).toBe(true);
  });
});

describe('the health check strengthens the summary', () => {
  it('attaches a machine finding to the human problem it matches once site-check announces the check, after the report is in', async () => {
    const { jobId } = await postAndPay(stack, poster, {
      ...SITE,
      title: 'Slow shop',
      url: 'https://slow-shop.example',
    });
    await report(testers[3], jobId, 'The shop works but waiting for each page was tiring.', [
      { text: 'Product pages are slow to load on my phone', severity: 'major' },
      { text: 'The footer has a typo in the company name', severity: 'major' },
    ]);
    const path = `/api/jobs/${jobId}/summary`;
    const before = await summaryOnceComputed(
      path,
      admin.token,
      (x) => x.problems.length === 2,
      'the summary',
    );
    expect(before.problems.every((p) => !p.machine_findings?.length)).toBe(true);
    const speed = SLOW_ON_PHONE;
    const summary = {
      url: 'https://slow-shop.example',
      final_url: 'https://slow-shop.example/',
      links_checked: 0,
      broken_links: 0,
      blocked_requests: 0,
      sizes: [],
      findings: [speed],
    };
    const { deps } = stack.siteCheck;
    await deps.events.inTransaction((tx) =>
      deps.events.record(
        tx,
        createEvent('SiteChecked', jobId, {
          jobId,
          checkedAt: new Date().toISOString(),
          status: 'complete',
          summary,
        }),
      ),
    );
    const after = await summaryOnceComputed(
      path,
      admin.token,
      (x) => !!x.problems[0]?.machine_findings?.length,
      'the machine finding on the summary',
    );
    expect(after.problems[0]).toMatchObject({
      title: 'Product pages are slow to load on my phone',
      machine_findings: [{ key: speed.key, topic: 'speed', impact: 'serious', text: speed.text }],
    });
    expect(after.problems[1].machine_findings).toEqual([]);
  });
});
