import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { getToken, setToken } from '../../../lib/tokens';
import type { User } from '../../../lib/types';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage } from '../../../test/setup';
import TesterDashboard from './tester-dashboard';

const tester: User = {
  id: 't1',
  email: 'tess@gmail.com',
  name: 'Tess',
  type: 'tester',
  location: 'USA',
  country: 'US',
  approved: true,
};
const openJob = {
  id: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee',
  title: 'Bakery',
  url: 'https://bakery.example',
  what_to_test: 'Order a cake',
  budget: 1,
  expected_completion_hours: 48,
  geo_rule: 'us_pr',
  requirements: ['Find the price'],
  status: 'open',
  payment_status: 'paid',
  poster_id: 'p',
  tester_id: null,
};

beforeEach(() => {
  resetStorage();
  setToken('t');
});

describe('Tester dashboard', () => {
  it('shows the pending-approval state to an unapproved tester', () => {
    mockFetch(() => ({ body: {} }));
    renderWithStore(<TesterDashboard user={{ ...tester, approved: false }} />);
    expect(
      screen.getByRole('heading', { name: 'Your tester account is pending approval' }),
    ).toBeTruthy();
    expect(screen.queryByRole('tab')).toBeNull();
  });

  it('lists available jobs with ids shortened to 8 characters and claims one', async () => {
    const { calls } = mockFetch((c) => {
      if (c.url.startsWith('/api/tester/available-jobs'))
        return { body: { jobs: [openJob], next_cursor: null } };
      if (c.url.endsWith('/claim')) return { body: { job: { ...openJob, status: 'claimed' } } };
      return { body: { jobs: [] } };
    });
    renderWithStore(<TesterDashboard user={tester} />);
    expect(await screen.findByText('Bakery')).toBeTruthy();
    expect(screen.getByText('#aaaaaaaa')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Claim' }));
    await waitFor(() =>
      expect(
        calls.some((c) => c.url === `/api/jobs/${openJob.id}/claim` && c.method === 'POST'),
      ).toBe(true),
    );
  });

  it("toasts 'Failed to claim job' when the claim fails without detail", async () => {
    mockFetch((c) => {
      if (c.url.startsWith('/api/tester/available-jobs'))
        return { body: { jobs: [openJob], next_cursor: null } };
      if (c.url.endsWith('/claim')) return { status: 500, body: '' };
      return { body: { jobs: [] } };
    });
    renderWithStore(<TesterDashboard user={tester} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Claim' }));
    expect((await screen.findByRole('alert')).textContent).toContain('Failed to claim job');
  });

  it("shows 'Resubmit Work' with the revision reason in My Jobs", async () => {
    mockFetch((c) => {
      if (c.url === '/api/tester/my-jobs')
        return {
          body: {
            jobs: [
              {
                ...openJob,
                status: 'revision_requested',
                last_review: {
                  decision: 'request_revision',
                  reason: 'Try on mobile',
                  specific_issues: ['Menu not opened on a phone'],
                  at: '',
                },
                revision_deadline_at: '2030-01-01T00:00:00Z',
              },
            ],
          },
        };
      return { body: { jobs: [], next_cursor: null } };
    });
    renderWithStore(<TesterDashboard user={tester} />);
    await userEvent.click(screen.getByRole('tab', { name: 'My Jobs' }));
    expect(await screen.findByRole('button', { name: 'Resubmit Work' })).toBeTruthy();
    expect(screen.getByText('Try on mobile')).toBeTruthy();
    expect(screen.getByText('Menu not opened on a phone').tagName).toBe('LI');
  });

  it('shows earnings totals, the last 30 days and rows', async () => {
    mockFetch((c) => {
      if (c.url === '/api/tester/my-earnings')
        return {
          body: {
            total_usd: 1.64,
            pending_usd: 0.82,
            last_30_days: 1.64,
            completed_jobs: 2,
            pending_jobs: 1,
            jobs: [
              {
                job_id: 'abcdefgh-1',
                title: 'Bakery',
                amount: 0.82,
                completed_at: '2026-01-01T00:00:00Z',
                status: 'auto_accepted',
              },
            ],
          },
        };
      if (c.url === '/api/tester/payout-account')
        return { body: { connected: false, account_id: null, onboarding_url: null } };
      return { body: { jobs: [], next_cursor: null } };
    });
    renderWithStore(<TesterDashboard user={tester} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Earnings' }));
    expect(await screen.findByText('Last 30 days')).toBeTruthy();
    expect(screen.getAllByText('$1.64')).toHaveLength(2);
    expect(screen.getByText('auto accepted')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Connect payout account' })).toBeTruthy();
  });

  it('moves between tabs with the arrow keys', async () => {
    mockFetch(() => ({ body: { jobs: [], next_cursor: null } }));
    renderWithStore(<TesterDashboard user={tester} />);
    screen.getByRole('tab', { name: 'Available Jobs' }).focus();
    await userEvent.keyboard('{ArrowRight}');
    expect(screen.getByRole('tab', { name: 'My Jobs' }).getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(screen.getByRole('tab', { name: 'My Jobs' }));
  });

  it('updates the country and stores the new token', async () => {
    const { calls } = mockFetch((c) =>
      c.url === '/api/users/profile'
        ? { body: { user: { ...tester, country: 'CA' }, access_token: 'newer' } }
        : { body: { jobs: [], next_cursor: null } },
    );
    renderWithStore(<TesterDashboard user={tester} />);
    await userEvent.click(screen.getByRole('button', { name: 'Update Your Profile' }));
    await userEvent.selectOptions(screen.getByLabelText(/Country/), 'CA');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(getToken()).toBe('newer'));
    expect(calls.find((c) => c.url === '/api/users/profile')?.method).toBe('PATCH');
    expect(calls.find((c) => c.url === '/api/users/profile')?.body).toEqual({ country: 'CA' });
  });
});

describe('Available Jobs paging', () => {
  it('loads the next page with the cursor', async () => {
    setToken('t');
    const { calls } = mockFetch((c) => {
      if (c.url === '/api/tester/available-jobs?limit=20')
        return { body: { jobs: [openJob], next_cursor: 'CUR2' } };
      if (c.url === '/api/tester/available-jobs?limit=20&cursor=CUR2')
        return {
          body: {
            jobs: [{ ...openJob, id: 'bbbbbbbb-2', title: 'Second page job' }],
            next_cursor: null,
          },
        };
      return { body: { jobs: [] } };
    });
    renderWithStore(<TesterDashboard user={tester} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Load more jobs' }));
    expect(await screen.findByText('Second page job')).toBeTruthy();
    expect(screen.getByText('Bakery')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Load more jobs' })).toBeNull();
    expect(calls.some((c) => c.url.endsWith('cursor=CUR2'))).toBe(true);
  });
});
