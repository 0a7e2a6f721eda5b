import '../../../test/setup';
import { describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { PackView } from '@htm/contracts/jobs';
import type { ReportSummary, SummaryProblem } from '@htm/contracts/summary';
import { renderWithStore } from '../../../test/render';
import { mockFetch } from '../../../test/setup';
import { PackAgreement } from './pack-card';

/**
 * The pack's report dialog ("What they agree on", issue #51): "Fix first" and the grouped list
 * under it. Each problem is listed once (before, every problem of "Fix first" was listed again
 * in the grouped list), and both count "n of N testers" the same way (before, the list divided by
 * the pack's size: "1 of 2" under "1 of 1").
 */

const S1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const S2 = 'aaaaaaaa-0000-4000-8000-000000000002';

interface F {
  sub: string;
  i: number;
  text: string;
}
const finding = (sub: string, i: number, text: string): F => ({ sub, i, text });

/** The pack's grouped list and its summary over the same groups (the summary shows the first five). */
function packOf(opts: { size: number; submitted: number; reported: number; groups: F[][] }) {
  const total = opts.reported;
  const view: PackView = {
    pack: {
      id: 'pack-1',
      size: opts.size,
      claimed: opts.submitted,
      submitted: opts.submitted,
      completed: 0,
      closed: 0,
    },
    jobs: [],
    reported: opts.reported,
    clusters: opts.groups.map((g) => ({
      summary: g[0].text,
      count: new Set(g.map((f) => f.sub)).size,
      job_ids: [...new Set(g.map((f) => `job-${f.sub}`))],
      findings: g.map((f) => ({
        job_id: `job-${f.sub}`,
        submission_id: f.sub,
        finding_index: f.i,
        text: f.text,
        severity: null,
      })),
    })),
  };
  const problems: SummaryProblem[] = opts.groups.slice(0, 5).map((g) => ({
    title: g[0].text,
    severity: 'major',
    testers_hit: new Set(g.map((f) => f.sub)).size,
    testers_total: total,
    requirement_index: null,
    evidence: g.map((f) => ({
      submission_id: f.sub,
      finding_index: f.i,
      at_ms: null,
      screenshot_url: null,
      text: f.text,
      tester: f.sub === S1 ? 'Sam' : 'Kim',
      recording_url: null,
    })),
  }));
  const summary: ReportSummary = {
    generated_at: '2026-03-02T10:00:00Z',
    problems,
    worked: [],
    tasks: [],
    sus: null,
    reel: [],
  };
  return { view, summary };
}

function serve(view: PackView, summary: ReportSummary) {
  return mockFetch((c) => {
    if (c.url === '/api/packs/pack-1') return { body: view };
    if (c.url === '/api/packs/pack-1/summary') return { body: summary };
    if (c.url === '/api/packs/pack-1/groups') return { body: { requested: true } };
    return { status: 404, body: { detail: 'Not here in this test', code: 'not_found' } };
  }).calls;
}

/** Elements of `root` showing `text` on opening: not inside a closed disclosure (its summary line aside). */
function shown(root: HTMLElement, text: string): Element[] {
  return within(root)
    .queryAllByText((_, el) => !!el && el.children.length === 0 && el.textContent === text)
    .filter((el) => {
      const closed = el.closest('details:not([open])');
      return !closed || !!el.closest('summary');
    });
}

/** Every "n of N testers" line, in order: each group of findings once. */
const countLines = (root: HTMLElement) =>
  within(root)
    .queryAllByText(/^\d+ of \d+ testers?:?$/)
    .map((el) => el.textContent!.replace(/:$/, ''));

describe('the pack report dialog', () => {
  it('lists each problem once: "Fix first", then only the groups it does not show', async () => {
    const groups = [
      [
        finding(S1, 0, 'The cart button is hidden on mobile'),
        finding(S2, 0, 'Cart button hidden on my phone'),
      ],
      [finding(S1, 1, 'Checkout forces account creation')],
      [finding(S2, 1, 'Shipping price only shown in the cart')],
      [finding(S1, 2, 'The logo is blurry')],
      [finding(S2, 2, 'Search finds nothing for "mug"')],
      [finding(S1, 3, 'Footer links are tiny')],
    ];
    const { view, summary } = packOf({ size: 2, submitted: 2, reported: 2, groups });
    serve(view, summary);
    renderWithStore(<PackAgreement packId="pack-1" />);
    const fixFirst = await screen.findByRole('heading', { name: 'Fix first' });
    const root = fixFirst.closest('section')!.parentElement!;
    await within(root).findByText('More findings');
    // Six groups, six "n of N" lines: the five of "Fix first", then the one it leaves out.
    expect(countLines(root)).toEqual([
      '2 of 2 testers',
      '1 of 2 testers',
      '1 of 2 testers',
      '1 of 2 testers',
      '1 of 2 testers',
      '1 of 2 testers',
    ]);
    // Each finding is shown once at most, each group's title exactly once.
    for (const g of groups) {
      expect([g[0].text, shown(root, g[0].text).length]).toEqual([g[0].text, 1]);
      for (const f of g.slice(1)) expect([f.text, shown(root, f.text).length]).toEqual([f.text, 0]);
    }
    // The sixth group is the one listed under "More findings"; the fifth is in "Fix first" only.
    expect(shown(root, 'Footer links are tiny')[0].closest('.agreement')).toBeTruthy();
    expect(shown(root, 'The logo is blurry')[0].closest('.agreement')).toBeNull();
  });

  it('counts "n of N testers" as the summary does: N is the testers whose reports are in', async () => {
    // A pack of 2; one report in (the other slot is still being tested).
    const groups = [[finding(S1, 0, 'Checkout forces account creation')]];
    const { view, summary } = packOf({ size: 2, submitted: 1, reported: 1, groups });
    serve(view, summary);
    renderWithStore(<PackAgreement packId="pack-1" />);
    await screen.findByRole('heading', { name: 'Fix first' });
    const root = screen
      .getByRole('heading', { name: 'Fix first' })
      .closest('section')!.parentElement!;
    expect(countLines(root)).toEqual(['1 of 1 tester']);
    expect(within(root).getByText(/^1 of 2 testers have reported\./)).toBeTruthy();
    expect(within(root).getByText('Every finding is in “Fix first” above.')).toBeTruthy();
    expect(shown(root, 'Checkout forces account creation')).toHaveLength(1);
  });

  it('merges a "Fix first" problem with one listed under it, and splits a finding off a problem', async () => {
    const groups = [
      [
        finding(S1, 0, 'The cart button is hidden on mobile'),
        finding(S2, 0, 'Cart button hidden on my phone'),
      ],
      [finding(S1, 1, 'A')],
      [finding(S1, 2, 'B')],
      [finding(S1, 3, 'C')],
      [finding(S1, 4, 'D')],
      [finding(S2, 1, 'No basket icon on the phone')],
    ];
    const { view, summary } = packOf({ size: 2, submitted: 2, reported: 2, groups });
    const calls = serve(view, summary);
    renderWithStore(<PackAgreement packId="pack-1" />);
    await screen.findByRole('heading', { name: 'Fix first' });
    const merge = screen.getByRole('button', { name: /^Merge .* into one$/ });
    expect((merge as HTMLButtonElement).disabled).toBe(true);
    await userEvent.click(
      screen.getByRole('checkbox', { name: 'Tick to merge: The cart button is hidden on mobile' }),
    );
    await userEvent.click(
      screen.getByRole('checkbox', { name: 'Tick to merge: No basket icon on the phone' }),
    );
    await userEvent.click(screen.getByRole('button', { name: 'Merge 2 ticked problems into one' }));
    await waitFor(() =>
      expect(calls.find((c) => c.url === '/api/packs/pack-1/groups')?.body).toEqual({
        action: 'merge',
        findings: [
          { submission_id: S1, finding_index: 0 },
          { submission_id: S2, finding_index: 0 },
          { submission_id: S2, finding_index: 1 },
        ],
      }),
    );
    await userEvent.click(
      screen.getByRole('button', {
        name: 'Not the same problem: split “Cart button hidden on my phone” off',
      }),
    );
    await waitFor(() =>
      expect(calls.filter((c) => c.url === '/api/packs/pack-1/groups').at(-1)?.body).toEqual({
        action: 'split',
        finding: { submission_id: S2, finding_index: 0 },
        from: [{ submission_id: S1, finding_index: 0 }],
      }),
    );
    // The summary is asked for again after a change (the server computes it anew).
    const reads = calls.filter((c) => c.url === '/api/packs/pack-1/summary').length;
    await waitFor(
      () =>
        expect(calls.filter((c) => c.url === '/api/packs/pack-1/summary').length).toBeGreaterThan(
          reads,
        ),
      { timeout: 10_000 },
    );
  });
});
