import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { FavouriteView } from '@htm/contracts/favourites';
import { browser } from '../../../lib/browser';
import { setToken } from '../../../lib/tokens';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage } from '../../../test/setup';
import { FavouriteTesters, FavouriteToggle } from './favourite-testers';
import { PostJobModal } from './post-job-modal';

beforeEach(() => {
  resetStorage();
  setToken('poster-token');
});

const ana: FavouriteView = { tester_id: 'tester-ana', name: 'Ana', rating_avg: 4.5, jobs_done: 3 };
const ben: FavouriteView = { tester_id: 'tester-ben', name: 'Ben', rating_avg: null, jobs_done: 1 };

/** A favourites backend: GET lists, POST adds, DELETE removes (as jobs answers). */
function backend(initial: FavouriteView[]) {
  let list = [...initial];
  return mockFetch((c) => {
    if (c.url === '/api/favourites' && c.method === 'GET') return { body: { favourites: list } };
    if (c.url === '/api/favourites' && c.method === 'POST') {
      const f = {
        tester_id: (c.body as { tester_id: string }).tester_id,
        name: 'Ana',
        rating_avg: 4.5,
        jobs_done: 3,
      };
      list = [f, ...list];
      return { status: 201, body: { favourite: f } };
    }
    if (c.method === 'DELETE') {
      list = list.filter((f) => !c.url.endsWith(`/${f.tester_id}`));
      return { status: 204 };
    }
    return { status: 404, body: { detail: 'Not here in this test', code: 'not_found' } };
  });
}

describe('"Favourite this tester" on the results of an accepted job', () => {
  it('favourites the tester, says "Favourited" in words, and takes them off again', async () => {
    const { calls } = backend([]);
    renderWithStore(<FavouriteToggle testerId="tester-ana" />);
    const button = await screen.findByRole('button', { name: 'Favourite this tester' });
    await waitFor(() => expect((button as HTMLButtonElement).disabled).toBe(false));

    await userEvent.click(button);
    expect(await screen.findByText('Favourited')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Favourite this tester' })).toBeNull();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([
      { tester_id: 'tester-ana' },
    ]);

    const remove = await screen.findByRole('button', { name: 'Remove from favourites' });
    await waitFor(() => expect((remove as HTMLButtonElement).disabled).toBe(false));
    await userEvent.click(remove);
    expect(await screen.findByRole('button', { name: 'Favourite this tester' })).toBeTruthy();
    expect(screen.queryByText('Favourited')).toBeNull();
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual([
      '/api/favourites/tester-ana',
    ]);
  });

  it("says why when the tester can't be favourited", async () => {
    mockFetch((c) =>
      c.method === 'POST'
        ? {
            status: 403,
            body: {
              detail:
                'You can favourite only a tester whose work on one of your jobs you accepted.',
              code: 'not_your_tester',
            },
          }
        : { body: { favourites: [] } },
    );
    renderWithStore(<FavouriteToggle testerId="tester-x" />);
    const button = await screen.findByRole('button', { name: 'Favourite this tester' });
    await waitFor(() => expect((button as HTMLButtonElement).disabled).toBe(false));
    await userEvent.click(button);
    expect(
      await screen.findByText(
        'You can favourite only a tester whose work on one of your jobs you accepted.',
      ),
    ).toBeTruthy();
    expect(screen.queryByText('Favourited')).toBeNull();
  });
});

describe("the dashboard's favourite testers", () => {
  it('lists each with their rating and jobs done, and removes one', async () => {
    backend([ana, ben]);
    renderWithStore(<FavouriteTesters />);
    const list = await screen.findByRole('region', { name: 'Favourite testers' });
    expect(within(list).getByText('4.5★ average · 3 jobs done')).toBeTruthy();
    expect(within(list).getByText('No ratings yet · 1 job done')).toBeTruthy();
    await userEvent.click(
      within(list).getByRole('button', { name: 'Remove Ana from favourite testers' }),
    );
    await waitFor(() => expect(screen.queryByText('Ana')).toBeNull());
    expect(screen.getByText('Ben')).toBeTruthy();
  });

  it('shows nothing without favourites', async () => {
    const { calls } = backend([]);
    const { container } = renderWithStore(<FavouriteTesters />);
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(container.querySelector('.favourite-testers')).toBeNull();
  });
});

describe('"Invite a favourite tester first" in Post New Job', () => {
  const fill = async () => {
    await userEvent.type(screen.getByLabelText('Job title'), 'Test my bakery');
    await userEvent.type(screen.getByLabelText('Website URL'), 'https://bakery.example');
    await userEvent.type(screen.getByLabelText('What to test'), 'Ordering a cake');
    await userEvent.type(screen.getByLabelText('Thing to check 1'), 'Can I find the price?');
  };

  it('is not shown to a poster without favourites', () => {
    mockFetch(() => ({ status: 201, body: {} }));
    renderWithStore(<PostJobModal onClose={() => undefined} />);
    expect(screen.queryByLabelText('Invite a favourite tester first')).toBeNull();
  });

  it('sends the chosen favourite as invite_tester_id', async () => {
    const realAssign = browser.assign;
    browser.assign = () => undefined;
    try {
      const { calls } = mockFetch(() => ({
        status: 201,
        body: {
          checkout_url: '/api/payments/local/checkout/cs_1',
          session_id: 'cs_1',
          job: { id: 'j1' },
        },
      }));
      renderWithStore(<PostJobModal onClose={() => undefined} favourites={[ana, ben]} />);
      await fill();
      const select = screen.getByLabelText('Invite a favourite tester first') as HTMLSelectElement;
      expect([...select.options].map((o) => o.text)).toEqual([
        'No one: open to every tester',
        'Ana',
        'Ben',
      ]);
      await userEvent.selectOptions(select, 'tester-ben');
      await userEvent.click(screen.getByRole('button', { name: 'Post Job & Pay $1' }));
      await waitFor(() => expect(calls).toHaveLength(1));
      expect(calls[0]).toMatchObject({ url: '/api/jobs', method: 'POST' });
      expect(calls[0].body).toMatchObject({
        invite_tester_id: 'tester-ben',
        title: 'Test my bakery',
      });
    } finally {
      browser.assign = realAssign;
    }
  });
});
