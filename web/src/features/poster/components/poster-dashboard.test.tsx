import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setToken } from '../../../lib/tokens';
import type { JobView as Job } from '@htm/contracts/jobs';
import type { UserDto as User } from '@htm/contracts/identity';
import { jobView } from '../../../test/job-view';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage, type Call } from '../../../test/setup';
import { summaryFixture } from '@htm/contracts/testing';
import PosterDashboard from './poster-dashboard';

const poster = {
  id: 'p1',
  email: 'pat@gmail.com',
  name: 'Pat Poster',
  type: 'poster',
  location: 'USA',
  country: null,
  approved: true,
} as User;

const base: Job = jobView({
  id: 'aaaaaaaa-0000-0000-0000-000000000001',
  requirements: ['Find the price', 'Order a cake'],
  status: 'open',
  payment_status: 'unpaid',
  poster_id: 'p1',
  tester_id: null,
});
const live = {
  ...base,
  id: 'aaaaaaaa-0000-0000-0000-000000000002',
  title: 'Shop',
  payment_status: 'paid',
} as Job;

function backend(jobs: Job[], onDelete?: (c: Call) => { status: number; body?: unknown }) {
  let list = jobs;
  return mockFetch((c) => {
    if (c.method === 'DELETE') {
      const answer = onDelete?.(c) ?? { status: 204 };
      if (answer.status === 204) list = list.filter((j) => !c.url.endsWith(j.id));
      return answer;
    }
    if (c.url === '/api/jobs') return { body: { jobs: list } };
    return { body: {} };
  });
}

const stat = (label: string) =>
  within(screen.getByRole('list', { name: 'Job counts' }))
    .getByText(label)
    .closest('li')!
    .querySelector('.stat__n')!.textContent;

beforeEach(() => {
  resetStorage();
  setToken('t');
});

describe('poster dashboard', () => {
  it('counts unpaid jobs apart from open (live) ones', async () => {
    backend([base, live]);
    renderWithStore(<PosterDashboard user={poster} />);
    await screen.findByText('Shop');
    expect(stat('Unpaid')).toBe('1');
    expect(stat('Open')).toBe('1');
  });

  it('shows the things to check the poster asked for on the job card', async () => {
    backend([live]);
    renderWithStore(<PosterDashboard user={poster} />);
    const card = (await screen.findByText('Shop')).closest('li')!;
    expect(within(card as HTMLElement).getByText('Find the price')).toBeTruthy();
    expect(within(card as HTMLElement).getByText('Order a cake')).toBeTruthy();
  });

  it('says when results are expected on a paid job (paid_at + its window + 48 h), not on an unpaid or completed one', async () => {
    const paidAt = '2026-03-02T10:00:00.000Z';
    const paid = { ...live, paid_at: paidAt, expected_completion_hours: 24 } as Job;
    const done = {
      ...live,
      id: 'aaaaaaaa-0000-0000-0000-000000000003',
      title: 'Done shop',
      status: 'completed',
      paid_at: paidAt,
    } as Job;
    backend([base, paid, done]);
    renderWithStore(<PosterDashboard user={poster} />);
    const card = (await screen.findByText('Shop')).closest('li') as HTMLElement;
    const expected = new Date(Date.parse(paidAt) + (24 + 48) * 3_600_000).toLocaleString();
    expect(within(card).getByText(/^Results expected by /).textContent).toBe(
      `Results expected by ${expected}`,
    );
    const bakery = screen.getByText('Bakery').closest('li') as HTMLElement;
    expect(within(bakery).queryByText(/Results expected by/)).toBeNull();
    const completed = screen.getByText('Done shop').closest('li') as HTMLElement;
    expect(within(completed).queryByText(/Results expected by/)).toBeNull();
  });

  it('after a replacement, states the new promise (48 h from the reopening) instead of the first one', async () => {
    const paidAt = '2026-03-02T10:00:00.000Z';
    const replacedAt = '2026-03-04T09:30:00.000Z';
    const reopened = {
      ...live,
      paid_at: paidAt,
      expected_completion_hours: 24,
      replaced_at: replacedAt,
      results_expected_by: '2026-03-06T09:30:00.000Z',
    } as Job;
    const taken = {
      ...reopened,
      id: 'aaaaaaaa-0000-0000-0000-000000000004',
      title: 'Taken shop',
      status: 'claimed',
    } as Job;
    backend([reopened, taken]);
    renderWithStore(<PosterDashboard user={poster} />);
    const renewed = new Date('2026-03-06T09:30:00.000Z').toLocaleString();
    const card = (await screen.findByText('Shop')).closest('li') as HTMLElement;
    expect(within(card).getByText(/results expected by/).textContent).toBe(
      `Replacement coming at no cost to you: results expected by ${renewed}`,
    );
    const claimed = screen.getByText('Taken shop').closest('li') as HTMLElement;
    expect(within(claimed).getByText(/results expected by/).textContent).toBe(
      `A new tester is on it: results expected by ${renewed}`,
    );
    expect(screen.queryByText(/^Results expected by /)).toBeNull();
  });

  it("shows a report released after its tester's appeal beside the replacement's, whole and free", async () => {
    const done = {
      ...live,
      status: 'completed',
      replaced_at: '2026-03-04T09:30:00.000Z',
    } as Job;
    mockFetch((c) => {
      if (c.url === '/api/jobs') return { body: { jobs: [done] } };
      if (c.url === `/api/jobs/${done.id}/released-reports`)
        return {
          body: {
            reports: [
              {
                id: 's-late',
                job_id: done.id,
                revision: 0,
                submitted_at: '2026-03-04T09:00:00.000Z',
                locked: false,
                auto_accept_at: null,
                submitted_by_snapshot: { name: 'Lee', location: null },
                human_preview: {
                  device_used: null,
                  browser_used: null,
                  key_findings_bullets: ['Delivery fee shown only at the last step'],
                  small_image_url: null,
                },
                requirement_responses: [{ requirement_index: 0, response_text: 'Top right.' }],
                general_feedback: 'The fee appears only at the end.',
                file_urls: [],
                file_names: [],
                minutes_spent: null,
              },
            ],
          },
        };
      return { body: {} };
    });
    renderWithStore(<PosterDashboard user={poster} />);
    const summary = await screen.findByText(
      'One more report, free: released after its tester’s appeal',
    );
    const card = summary.closest('li') as HTMLElement;
    const report = within(card).getByRole('region', { name: 'Released report by Lee' });
    expect(within(report).getByText('Delivery fee shown only at the last step')).toBeTruthy();
    expect(within(report).getByText('The fee appears only at the end.')).toBeTruthy();
    expect(within(report).getByText(/It costs you nothing/)).toBeTruthy();
  });

  it('deletes an unpaid job after a confirmation; a paid job offers no Delete', async () => {
    const { calls } = backend([base, live]);
    renderWithStore(<PosterDashboard user={poster} />);
    const shop = (await screen.findByText('Shop')).closest('li') as HTMLElement;
    expect(within(shop).queryByRole('button', { name: 'Delete' })).toBeNull();
    const bakery = screen.getByText('Bakery').closest('li') as HTMLElement;
    await userEvent.click(within(bakery).getByRole('button', { name: 'Delete' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await userEvent.click(within(bakery).getByRole('button', { name: 'Yes, delete' }));
    await waitFor(() => expect(screen.queryByText('Bakery')).toBeNull());
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual([
      `/api/jobs/${base.id}`,
    ]);
    expect(stat('Unpaid')).toBe('0');
  });

  it('says on an unpaid card that testers see it once paid, and why Pay now could not start, until the next try', async () => {
    const PAYMENT_DOWN =
      'Payments are not answering right now. Your job is saved unpaid; please try paying again in a moment.';
    mockFetch((c) => {
      if (c.url === '/api/jobs') return { body: { jobs: [base, live] } };
      return {
        body: { checkout_url: null, session_id: null, job: base, payment_error: PAYMENT_DOWN },
      };
    });
    renderWithStore(<PosterDashboard user={poster} />);
    const bakery = (await screen.findByText('Bakery')).closest('li') as HTMLElement;
    expect(
      within(bakery).getByText('Not paid yet: testers see this job once it is paid.'),
    ).toBeTruthy();
    const shop = screen.getByText('Shop').closest('li') as HTMLElement;
    expect(within(shop).queryByText(/Not paid yet/)).toBeNull();
    await userEvent.click(within(bakery).getByRole('button', { name: 'Pay now' }));
    expect((await within(bakery).findByRole('alert')).textContent).toBe(PAYMENT_DOWN);
  });

  it("shows the server's reason when the delete is refused", async () => {
    backend([base], () => ({
      status: 409,
      body: {
        detail: 'This job has been paid for, so it can no longer be deleted.',
        code: 'already_paid',
      },
    }));
    renderWithStore(<PosterDashboard user={poster} />);
    const bakery = (await screen.findByText('Bakery')).closest('li') as HTMLElement;
    await userEvent.click(within(bakery).getByRole('button', { name: 'Delete' }));
    await userEvent.click(within(bakery).getByRole('button', { name: 'Yes, delete' }));
    expect(
      await screen.findByText('This job has been paid for, so it can no longer be deleted.'),
    ).toBeTruthy();
  });

  it('shows a pack as one card with its progress and what its testers agree on', async () => {
    const slot = (n: number, status: string) =>
      ({
        ...live,
        id: `bbbbbbbb-0000-0000-0000-00000000000${n}`,
        title: 'Mug shop',
        status,
        pack_id: 'pack-1',
      }) as Job;
    const slots = [slot(1, 'submitted'), slot(2, 'completed'), slot(3, 'open')];
    const calls = mockFetch((c) => {
      if (c.url === '/api/jobs') return { body: { jobs: [live, ...slots] } };
      if (c.url === '/api/packs/pack-1')
        return {
          body: {
            pack: { id: 'pack-1', size: 3, claimed: 2, submitted: 2, completed: 1, closed: 0 },
            jobs: slots,
            reported: 2,
            clusters: [
              {
                summary: 'The cart button is hidden on mobile',
                count: 2,
                job_ids: [slots[0].id, slots[1].id],
                findings: [
                  {
                    job_id: slots[0].id,
                    submission_id: 's1',
                    finding_index: 0,
                    text: 'The cart button is hidden on mobile',
                    severity: 'major',
                  },
                  {
                    job_id: slots[1].id,
                    submission_id: 's2',
                    finding_index: 0,
                    text: 'Cart button hidden on my phone',
                    severity: null,
                  },
                ],
              },
              {
                summary: 'No basket icon on the phone',
                count: 1,
                job_ids: [slots[1].id],
                findings: [
                  {
                    job_id: slots[1].id,
                    submission_id: 's2',
                    finding_index: 1,
                    text: 'No basket icon on the phone',
                    severity: 'minor',
                  },
                ],
              },
            ],
          },
        };
      return { body: {} };
    }).calls;
    renderWithStore(<PosterDashboard user={poster} />);
    const card = await screen.findByRole('listitem', { name: 'Pack of 3 testers: Mug shop' });
    expect(within(card).getByTestId('pack-progress').textContent).toBe('2 of 3 done');
    expect(within(card).getAllByText('Mug shop')).toHaveLength(1 + 3);
    await userEvent.click(within(card).getByRole('button', { name: 'What they agree on' }));
    const dialog = await screen.findByRole('dialog');
    expect((await within(dialog).findByText('2 of 2 testers:')).closest('p')!.textContent).toBe(
      '2 of 2 testers: The cart button is hidden on mobile',
    );
    expect(within(dialog).getByText(/^2 of 3 testers have reported\./)).toBeTruthy();
    expect(within(dialog).getByText('“Cart button hidden on my phone”')).toBeTruthy();
    expect(calls.some((c) => c.url === '/api/packs/pack-1')).toBe(true);

    // The owner's controls: merge ticked problems, split a finding off its group.
    const merge = within(dialog).getByRole('button', { name: /^Merge .* into one$/ });
    expect((merge as HTMLButtonElement).disabled).toBe(true);
    await userEvent.click(
      within(dialog).getByRole('checkbox', {
        name: 'Tick to merge: The cart button is hidden on mobile',
      }),
    );
    await userEvent.click(
      within(dialog).getByRole('checkbox', { name: 'Tick to merge: No basket icon on the phone' }),
    );
    const reads = calls.filter((c) => c.url === '/api/packs/pack-1').length;
    await userEvent.click(merge);
    await waitFor(() =>
      expect(calls.find((c) => c.url === '/api/packs/pack-1/groups')?.body).toEqual({
        action: 'merge',
        findings: [
          { submission_id: 's1', finding_index: 0 },
          { submission_id: 's2', finding_index: 0 },
          { submission_id: 's2', finding_index: 1 },
        ],
      }),
    );
    // The list is read again at once.
    await waitFor(() =>
      expect(calls.filter((c) => c.url === '/api/packs/pack-1').length).toBeGreaterThan(reads),
    );
    await userEvent.click(
      within(dialog).getByRole('button', {
        name: 'Not the same problem: split “Cart button hidden on my phone” off',
      }),
    );
    await waitFor(() =>
      expect(calls.filter((c) => c.url === '/api/packs/pack-1/groups').at(-1)?.body).toEqual({
        action: 'split',
        finding: { submission_id: 's2', finding_index: 0 },
        from: [{ submission_id: 's1', finding_index: 0 }],
      }),
    );
  });

  it("opens the results of the job an e-mail links to (/dashboard?job=ID), and shows an open job's card", async () => {
    const done = {
      ...live,
      id: 'aaaaaaaa-0000-0000-0000-000000000003',
      title: 'Finished',
      status: 'completed',
      tester_id: 't1',
    } as Job;
    mockFetch((c) =>
      c.url === '/api/jobs'
        ? { body: { jobs: [live, done] } }
        : { status: 404, body: { detail: 'Not here in this test', code: 'not_found' } },
    );
    renderWithStore(<PosterDashboard user={poster} />, { route: `/dashboard?job=${done.id}` });
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByRole('heading', { name: 'Results' })).toBeTruthy();
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it("opens what the results e-mail links to: a job's problem N, and a pack's summary at problem N", async () => {
    const done = {
      ...live,
      id: 'aaaaaaaa-0000-0000-0000-000000000004',
      title: 'Finished shop',
      status: 'completed',
      tester_id: 't1',
    } as Job;
    const slot = {
      ...live,
      id: 'aaaaaaaa-0000-0000-0000-000000000005',
      title: 'Mug shop',
      status: 'submitted',
      pack_id: 'pack-1',
    } as Job;
    mockFetch((c) => {
      if (c.url === '/api/jobs') return { body: { jobs: [done, slot] } };
      if (c.url.endsWith('/summary')) return { body: summaryFixture((path) => `/api/${path}`) };
      if (c.url.endsWith('/submission'))
        return {
          body: {
            id: 's1',
            job_id: done.id,
            revision: 0,
            submitted_at: new Date().toISOString(),
            locked: false,
            auto_accept_at: null,
            submitted_by_snapshot: { name: 'Tess', location: 'USA' },
            human_preview: {
              device_used: null,
              browser_used: null,
              key_findings_bullets: ['Checkout forces account creation', 'The logo is blurry'],
              small_image_url: null,
            },
            requirement_responses: [],
            general_feedback: null,
            file_urls: [],
          },
        };
      if (c.url === '/api/packs/pack-1')
        return {
          body: {
            pack: { id: 'pack-1', size: 1, claimed: 1, submitted: 1, completed: 0, closed: 0 },
            jobs: [slot],
            reported: 1,
            clusters: [],
          },
        };
      return { status: 404, body: { detail: 'Not here in this test', code: 'not_found' } };
    });
    const job = renderWithStore(<PosterDashboard user={poster} />, {
      route: `/dashboard?job=${done.id}&problem=2`,
    });
    const dialog = await screen.findByRole('dialog');
    await within(dialog).findByRole('heading', { name: 'Fix first' });
    await waitFor(() => expect(document.activeElement?.id).toBe('fix-first-2'));
    job.unmount();

    renderWithStore(<PosterDashboard user={poster} />, {
      route: '/dashboard?pack=pack-1&problem=1',
    });
    const pack = await screen.findByRole('dialog', { name: /What they agree on: Mug shop/ });
    await within(pack).findByRole('heading', { name: 'Fix first' });
    await waitFor(() => expect(document.activeElement?.id).toBe('fix-first-1'));
  });

  it('focuses the card of a linked job that has no results yet', async () => {
    backend([base, live]);
    renderWithStore(<PosterDashboard user={poster} />, { route: `/dashboard?job=${live.id}` });
    await screen.findByText('Shop');
    await waitFor(() => expect(document.activeElement?.id).toBe(`job-${live.id}`));
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
