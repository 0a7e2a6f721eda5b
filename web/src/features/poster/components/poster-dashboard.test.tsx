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
            clusters: [
              {
                summary: 'The cart button is hidden on mobile',
                count: 2,
                job_ids: [slots[0].id, slots[1].id],
                findings: [
                  {
                    job_id: slots[0].id,
                    text: 'The cart button is hidden on mobile',
                    severity: 'major',
                  },
                  { job_id: slots[1].id, text: 'Cart button hidden on my phone', severity: null },
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
    expect((await within(dialog).findByText('2 of 3 testers:')).closest('p')!.textContent).toBe(
      '2 of 3 testers: The cart button is hidden on mobile',
    );
    expect(within(dialog).getByText('“Cart button hidden on my phone”')).toBeTruthy();
    expect(calls.some((c) => c.url === '/api/packs/pack-1')).toBe(true);
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

  it('focuses the card of a linked job that has no results yet', async () => {
    backend([base, live]);
    renderWithStore(<PosterDashboard user={poster} />, { route: `/dashboard?job=${live.id}` });
    await screen.findByText('Shop');
    await waitFor(() => expect(document.activeElement?.id).toBe(`job-${live.id}`));
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
