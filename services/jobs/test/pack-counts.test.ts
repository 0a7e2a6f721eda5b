/**
 * A pack's "n of N testers" (issue #51): the summary's "Fix first" (GET /api/packs/{id}/summary)
 * and the grouped list under it (GET /api/packs/{id}: `reported` and each cluster's `count`) count
 * the same way. N is the testers whose reports are in and shown; a report still held by its
 * session check counts in neither until it is released; n is the distinct testers of the group.
 * Before, the list said "1 of 2" (the pack's size) under a summary saying "1 of 1".
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PackView, ReportSummary } from '@htm/contracts';
import {
  api,
  paidPack,
  poster,
  startHarness,
  tester,
  waitFor,
  type Harness,
  type Person,
} from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('pack_counts', {
    SESSION_CHECKS: 'on',
    // The test runs the checks and the summaries itself.
    SESSION_CHECK_POLL_MS: '3600000',
    SUMMARY_POLL_MS: '3600000',
  });
});
afterAll(async () => {
  await h?.close();
});

const SHARED = 'Checkout forces account creation';

/** Claims the slot and sends a Quick report with these findings; its submission id. */
async function report(t: Person, jobId: string, feedback: string, findings: string[]) {
  expect((await api(h, 'POST', `/api/jobs/${jobId}/claim`, t.token)).status).toBe(200);
  const f = new FormData();
  f.append('feedback_text', feedback);
  findings.forEach((text, i) => f.append(`key_finding_${i + 1}`, text));
  const r = await api(h, 'POST', `/api/jobs/${jobId}/submit-work`, t.token, f);
  expect(r.status).toBe(201);
  return r.body.submission.id as string;
}

/** Runs the session checks until this report's is done. */
async function checked(submissionId: string): Promise<string> {
  return waitFor(async () => {
    await h.svc.sessionChecks.checkDue();
    const [c] = await h.svc.ctx.dbHandle.query<{ status: string; verdict: string }>(
      'SELECT status, verdict FROM jobs.session_checks WHERE submission_id = $1',
      [submissionId],
    );
    return c?.status === 'done' ? c.verdict : undefined;
  }, 'session checked');
}

/** The pack's summary once computed with `testers` reports, and its grouped list, as "n of N" lines by finding. */
async function bothCounts(packId: string, token: string, testers: number) {
  const summary = await waitFor(async () => {
    await h.svc.summaries.computeDue();
    const r = await api<ReportSummary>(h, 'GET', `/api/packs/${packId}/summary`, token);
    return r.status === 200 && r.body.problems[0]?.testers_total === testers ? r.body : undefined;
  }, `the pack summary over ${testers} reports`);
  const pack = await api<PackView>(h, 'GET', `/api/packs/${packId}`, token);
  expect(pack.status).toBe(200);
  const key = (s: string, i: number) => `${s}:${i}`;
  const fromSummary = new Map(
    summary.problems.flatMap((p) =>
      p.evidence.map((e) => [
        key(e.submission_id, e.finding_index),
        `${p.testers_hit} of ${p.testers_total}`,
      ]),
    ),
  );
  const fromList = new Map(
    pack.body.clusters.flatMap((c) =>
      c.findings.map((f) => [
        key(f.submission_id, f.finding_index),
        `${c.count} of ${pack.body.reported}`,
      ]),
    ),
  );
  return { fromSummary, fromList, pack: pack.body };
}

describe('a pack counts its testers the same way in the summary and in the grouped list', () => {
  it('counts only reports that are in and released, in both', async () => {
    const p = await poster(h);
    const [t1, t2] = [await tester(h), await tester(h)];
    const { packId, jobs } = await paidPack(h, p, 3);

    const s1 = await report(
      t1,
      jobs[0].id,
      'I wanted to buy a mug as a guest but the shop made me sign up first, and the shipping price only showed up in the cart.',
      [SHARED, 'Shipping price shown only in the cart'],
    );
    expect(await checked(s1)).not.toBe('fail');
    // A second tester's report is in but still being checked: held, so counted nowhere yet.
    const s2 = await report(
      t2,
      jobs[1].id,
      'On my phone there was no way to pay without registering. The product photos were lovely though, and the search found every mug.',
      [SHARED],
    );
    const one = await bothCounts(packId, p.token, 1);
    expect(one.pack.reported).toBe(1);
    expect(one.pack.pack.submitted).toBe(2); // the slot's state: submitted, its report held
    expect([...one.fromSummary.entries()].sort()).toEqual([
      [`${s1}:0`, '1 of 1'],
      [`${s1}:1`, '1 of 1'],
    ]);
    expect([...one.fromList.entries()].sort()).toEqual([...one.fromSummary.entries()].sort());

    // Released: both count it, and the shared problem is "2 of 2" in each.
    expect(await checked(s2)).not.toBe('fail');
    const two = await bothCounts(packId, p.token, 2);
    expect(two.pack.reported).toBe(2);
    expect(two.fromSummary.get(`${s1}:0`)).toBe('2 of 2');
    expect(two.fromSummary.get(`${s2}:0`)).toBe('2 of 2');
    expect(two.fromSummary.get(`${s1}:1`)).toBe('1 of 2');
    expect([...two.fromList.entries()].sort()).toEqual([...two.fromSummary.entries()].sort());
  });
});
