import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Provider } from 'react-redux';
import { MemoryRouter } from 'react-router';
import { getToken, setToken } from '../../../lib/tokens';
import type { UserDto as User } from '@htm/contracts/identity';
import { jobView } from '../../../test/job-view';
import { renderWithStore } from '../../../test/render';
import { mockFetch, mockXhr, resetStorage } from '../../../test/setup';
import { axeFindings } from '../../../test/axe';
import TesterDashboard from './tester-dashboard';

const tester: User = {
  id: 't1',
  email: 'tess@gmail.com',
  name: 'Tess',
  type: 'tester',
  location: 'USA',
  country: 'US',
  approved: true,
  released: false,
  created_at: '2026-01-01T00:00:00.000Z',
};
const openJob = jobView({
  id: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee',
  status: 'open',
  tester_id: null,
});

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
    // True for a new signup and for a tester the admin un-approved alike: no "Thanks for signing up".
    expect(screen.queryByText(/Thanks for signing up/)).toBeNull();
    expect(screen.getByText(/not approved at the moment/)).toBeTruthy();
  });

  it('tells a tester paused by missed deadlines so, instead of "pending approval"', () => {
    mockFetch(() => ({ body: {} }));
    renderWithStore(<TesterDashboard user={{ ...tester, approved: false, released: true }} />);
    expect(screen.getByRole('heading', { name: 'Your tester account is paused' })).toBeTruthy();
    expect(
      screen.getByText(
        'Your tester account was paused after missed deadlines (jobs not submitted in time). An admin must re-approve it before you can take jobs again.',
      ),
    ).toBeTruthy();
    expect(screen.queryByText(/pending approval/)).toBeNull();
    expect(screen.queryByRole('tab')).toBeNull();
  });

  it('shows a paused tester each strike with its reason and its appeal form open, sends one appeal, and turns into the dashboard once approved again', async () => {
    let appealed = false;
    const strike = {
      job_id: '11111111-2222-4333-8444-555555555555',
      job_title: 'Bakery',
      kind: 'strike',
      reason: 'Your claim on this job expired, so it went back to the available jobs.',
      stars: null,
      at: new Date().toISOString(),
      appealable_until: new Date(Date.now() + 86_400_000).toISOString(),
      overturned: false,
    };
    const oldStrike = {
      ...strike,
      job_id: '21111111-2222-4333-8444-555555555555',
      job_title: 'Florist',
      at: new Date(Date.now() - 20 * 86_400_000).toISOString(),
      appealable_until: new Date(Date.now() - 6 * 86_400_000).toISOString(),
    };
    const rating = {
      ...strike,
      job_id: '31111111-2222-4333-8444-555555555555',
      job_title: 'Garage',
      kind: 'rating',
      stars: 2,
      reason: '2 stars: no screenshots',
    };
    const { calls } = mockFetch((c) => {
      if (c.url === '/api/appeals' && c.method === 'POST') {
        appealed = true;
        return { status: 201, body: { appeal: { id: 'a1', status: 'open' } } };
      }
      if (c.url === '/api/appeals')
        return {
          body: {
            items: [
              {
                ...strike,
                appeal: appealed ? { id: 'a1', status: 'open', decision_note: null } : null,
              },
              { ...oldStrike, appeal: null },
              { ...rating, appeal: null },
            ],
          },
        };
      return { body: {} };
    });
    const paused = { ...tester, approved: false, released: true };
    const { store, rerender } = renderWithStore(<TesterDashboard user={paused} />);
    expect(screen.getByText(/You can appeal each one once, within 14 days/)).toBeTruthy();
    expect(await screen.findByRole('heading', { name: 'Your strikes and why' })).toBeTruthy();
    expect(screen.getAllByText(`Reason: ${strike.reason}`)).toHaveLength(2);
    expect(screen.getByText(`Reason: ${rating.reason}`)).toBeTruthy();
    // The strike still appealable has its form open; the one past 14 days says so; a rating waits behind its button.
    const form = screen.getByRole('form', { name: 'Appeal the strike on Bakery' });
    expect(screen.queryByRole('form', { name: 'Appeal the strike on Florist' })).toBeNull();
    expect(screen.getByText('The 14 days to appeal have passed.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Appeal this strike' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Appeal this rating' })).toBeTruthy();
    expect(screen.queryByRole('tab')).toBeNull();
    // The paused screen with its appeal forms: no axe finding (no e2e product gets a tester released).
    expect(await axeFindings(document.body)).toEqual([]);

    await userEvent.click(within(form).getByRole('button', { name: 'Send appeal' }));
    expect(within(form).getByText('Your reason must be 10 to 1000 characters')).toBeTruthy();
    await userEvent.type(
      within(form).getByLabelText('Why should this strike be removed?'),
      'The site was down all afternoon.',
    );
    await userEvent.click(within(form).getByRole('button', { name: 'Send appeal' }));
    expect(await screen.findByText('Appeal sent: an admin will decide')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({
      job_id: strike.job_id,
      kind: 'strike',
      message: 'The site was down all afternoon.',
    });
    expect(screen.queryByRole('form', { name: 'Appeal the strike on Bakery' })).toBeNull();

    // The admin overturned it: /api/me says approved again (live or on reload), the normal dashboard shows.
    rerender(
      <Provider store={store}>
        <MemoryRouter>
          <TesterDashboard user={{ ...paused, approved: true, released: false }} />
        </MemoryRouter>
      </Provider>,
    );
    expect(screen.queryByRole('heading', { name: 'Your tester account is paused' })).toBeNull();
    expect(screen.getByRole('heading', { name: 'Tester dashboard' })).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Available Jobs' })).toBeTruthy();
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

  it('takes the tester to the job they claimed: My Jobs, its card in view and focused', async () => {
    let claimed = false;
    const mine = { ...openJob, status: 'claimed', tester_id: tester.id };
    mockFetch((c) => {
      if (c.url.startsWith('/api/tester/available-jobs'))
        return { body: { jobs: claimed ? [] : [openJob], next_cursor: null } };
      if (c.url.endsWith('/claim')) {
        claimed = true;
        return { body: { job: mine } };
      }
      if (c.url.startsWith('/api/tester/my-jobs')) return { body: { jobs: claimed ? [mine] : [] } };
      return { body: { jobs: [] } };
    });
    renderWithStore(<TesterDashboard user={tester} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Claim' }));
    await waitFor(() =>
      expect(screen.getByRole('tab', { name: 'My Jobs' }).getAttribute('aria-selected')).toBe(
        'true',
      ),
    );
    const card = await waitFor(() => {
      const el = document.getElementById(`my-job-${openJob.id}`);
      expect(el).toBeTruthy();
      return el!;
    });
    await waitFor(() => expect(document.activeElement).toBe(card));
    expect(within(card).getByRole('button', { name: 'Quick report' })).toBeTruthy();
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

  it('offers both ways to resubmit, with the revision reason, in My Jobs', async () => {
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
    expect(await screen.findByRole('button', { name: 'Resubmit: Quick report' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Resubmit: Detailed report' })).toBeTruthy();
    expect(screen.getByText('Try on mobile')).toBeTruthy();
    expect(screen.getByText('Menu not opened on a phone').tagName).toBe('LI');
  });

  it('shows what to test on a claimed job in My Jobs', async () => {
    mockFetch((c) => {
      if (c.url === '/api/tester/my-jobs')
        return { body: { jobs: [{ ...openJob, status: 'claimed', tester_id: 't1' }] } };
      return { body: { jobs: [], next_cursor: null } };
    });
    renderWithStore(<TesterDashboard user={tester} />);
    await userEvent.click(screen.getByRole('tab', { name: 'My Jobs' }));
    const quick = await screen.findByRole('button', { name: 'Quick report' });
    expect(screen.getByText('Order a cake')).toBeTruthy();
    // Each way to report says in one line what it asks for.
    expect(quick.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(quick.getAttribute('aria-describedby')!)!.textContent).toBe(
      'Your feedback in your own words, up to 3 key findings and a screenshot.',
    );
    const detailed = screen.getByRole('button', { name: 'Detailed report' });
    expect(document.getElementById(detailed.getAttribute('aria-describedby')!)!.textContent).toBe(
      'An answer for each thing to check, your device and browser, 3 key findings and files.',
    );
  });

  it('disables Claim while a job is held and says why (one job at a time)', async () => {
    const held = jobView({ id: 'held-1', title: 'Held job', status: 'claimed', tester_id: 't1' });
    mockFetch((c) => {
      if (c.url === '/api/tester/my-jobs') return { body: { jobs: [held] } };
      if (c.url.startsWith('/api/tester/available-jobs'))
        return { body: { jobs: [openJob], next_cursor: null, max_active_claims: 1 } };
      return { body: {} };
    });
    renderWithStore(<TesterDashboard user={tester} />);
    await screen.findByText('Bakery');
    const claim = screen.getByRole('button', { name: 'Claim' }) as HTMLButtonElement;
    await waitFor(() => expect(claim.disabled).toBe(true));
    expect(document.getElementById(claim.getAttribute('aria-describedby')!)!.textContent).toBe(
      'You are working on a job: submit it (My Jobs) before claiming another. One job at a time.',
    );
  });

  it('keeps Claim open while the tester holds fewer jobs than the limit', async () => {
    const held = jobView({ id: 'held-1', title: 'Held job', status: 'claimed', tester_id: 't1' });
    mockFetch((c) => {
      if (c.url === '/api/tester/my-jobs') return { body: { jobs: [held] } };
      if (c.url.startsWith('/api/tester/available-jobs'))
        return { body: { jobs: [openJob], next_cursor: null, max_active_claims: 2 } };
      return { body: {} };
    });
    renderWithStore(<TesterDashboard user={tester} />);
    await screen.findByText('Bakery');
    await waitFor(() => expect(screen.getByRole('tab', { name: /My Jobs/ })).toBeTruthy());
    expect((screen.getByRole('button', { name: 'Claim' }) as HTMLButtonElement).disabled).toBe(
      false,
    );
    expect(screen.queryByText(/One job at a time/)).toBeNull();
  });

  it('shows an error with Retry, not a blank tab, when available jobs fail to load', async () => {
    let fail = true;
    mockFetch((c) => {
      if (c.url.startsWith('/api/tester/available-jobs'))
        return fail
          ? { status: 503, body: { detail: 'Service unavailable', code: 'unavailable' } }
          : { body: { jobs: [openJob], next_cursor: null, max_active_claims: 1 } };
      return { body: { jobs: [] } };
    });
    renderWithStore(<TesterDashboard user={tester} />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Service unavailable');
    fail = false;
    await userEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Bakery')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("shows the claimed job's things to check, and a long brief shortened with 'more'", async () => {
    const brief = `Order a cake. ${'Try every step of the checkout as a first-time visitor. '.repeat(6)}`;
    mockFetch((c) => {
      if (c.url === '/api/tester/my-jobs')
        return {
          body: {
            jobs: [
              {
                ...openJob,
                status: 'claimed',
                tester_id: 't1',
                what_to_test: brief,
                requirements: ['Find the price', 'Pay as a guest'],
              },
            ],
          },
        };
      return { body: { jobs: [], next_cursor: null } };
    });
    renderWithStore(<TesterDashboard user={tester} />);
    await userEvent.click(screen.getByRole('tab', { name: 'My Jobs' }));
    await screen.findByRole('button', { name: 'Quick report' });
    const checks = screen.getByText('Things to check:').parentElement!;
    expect(
      within(checks)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['Find the price', 'Pay as a guest']);
    const more = screen.getByRole('button', { name: 'more' });
    expect(more.getAttribute('aria-expanded')).toBe('false');
    const text = document.getElementById(more.getAttribute('aria-controls')!)!;
    expect(text.classList.contains('job-card__brief')).toBe(true);
    await userEvent.click(more);
    expect(screen.getByRole('button', { name: 'less' }).getAttribute('aria-expanded')).toBe('true');
    expect(text.classList.contains('job-card__brief')).toBe(false);
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
    // The same status badge as everywhere else.
    expect(screen.getByText('auto accepted').className).toBe('badge badge--auto_accepted');
    expect(screen.getByRole('button', { name: 'Connect payout account' })).toBeTruthy();
  });

  it('disables "Cash out" below the minimum and says why', async () => {
    mockFetch((c) => {
      if (c.url === '/api/tester/my-earnings')
        return {
          body: {
            total_usd: 4.92,
            pending_usd: 4.92,
            last_30_days: 4.92,
            completed_jobs: 6,
            pending_jobs: 6,
            jobs: [],
            cash_out: { min_usd: 5, available_usd: 4.92, in_progress: null },
          },
        };
      if (c.url === '/api/tester/payout-account')
        return { body: { connected: true, account_id: 'acct_1', onboarding_url: null } };
      return { body: { jobs: [], next_cursor: null } };
    });
    renderWithStore(<TesterDashboard user={tester} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Earnings' }));
    const button = (await screen.findByRole('button', {
      name: 'Cash out $4.92',
    })) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    expect(document.getElementById(button.getAttribute('aria-describedby')!)!.textContent).toBe(
      'You can cash out from $5.00; you have $4.92.',
    );
  });

  it('cashes out from $5 with an Idempotency-Key and says it was sent', async () => {
    let paid = false;
    const { calls } = mockFetch((c) => {
      if (c.url === '/api/tester/cash-out') {
        paid = true;
        return { status: 202, body: { payout: { id: 'p1', amount_usd: 5.74, status: 'paid' } } };
      }
      if (c.url === '/api/tester/my-earnings')
        return {
          body: {
            total_usd: 5.74,
            pending_usd: paid ? 0 : 5.74,
            last_30_days: 5.74,
            completed_jobs: 7,
            pending_jobs: paid ? 0 : 7,
            jobs: [],
            cash_out: { min_usd: 5, available_usd: paid ? 0 : 5.74, in_progress: null },
          },
        };
      if (c.url === '/api/tester/payout-account')
        return { body: { connected: true, account_id: 'acct_1', onboarding_url: null } };
      return { body: { jobs: [], next_cursor: null } };
    });
    const { store } = renderWithStore(<TesterDashboard user={tester} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Earnings' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Cash out $5.74' }));
    // The page's status line (announced politely by the app shell).
    await waitFor(() =>
      expect(store.getState().ui.status?.text).toBe('$5.74 sent to your payout account.'),
    );
    const post = calls.find((c) => c.url === '/api/tester/cash-out')!;
    expect(post.method).toBe('POST');
    expect(post.headers['Idempotency-Key']).toMatch(/.{16,}/);
    // The tab reads the ledger again: nothing left, so no "Cash out $0.00" button, only the reason.
    expect(
      await screen.findByText('You can cash out from $5.00; nothing is pending yet.'),
    ).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Cash out/ })).toBeNull();
  });

  it('puts the work first: the tabs and jobs come before the level card, which sits under Earnings', async () => {
    mockFetch((c) => {
      if (c.url === '/api/tester/standing')
        return {
          body: {
            jobs_completed: 6,
            acceptance_rate_pct: 86,
            rating_avg: 4.3,
            rating_count: 4,
            level: 'trusted',
            priority_access: false,
            next_level: null,
          },
        };
      if (c.url.startsWith('/api/tester/available-jobs'))
        return { body: { jobs: [openJob], next_cursor: null } };
      return { body: { jobs: [], next_cursor: null } };
    });
    renderWithStore(<TesterDashboard user={tester} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Earnings' }));
    const level = await screen.findByRole('region', { name: /Your level/ });
    const tabs = screen.getByRole('tablist');
    expect(tabs.compareDocumentPosition(level) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    // Back on Available Jobs (the standing is loaded by now): the job, and no level card.
    await userEvent.click(screen.getByRole('tab', { name: 'Available Jobs' }));
    await screen.findByText('Bakery');
    expect(screen.queryByRole('region', { name: /Your level/ })).toBeNull();
    // Headings in order without the level card's h2 above the jobs (their titles are h3).
    expect(await axeFindings(document.body)).toEqual([]);
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
    expect(calls.find((c) => c.url === '/api/users/profile')?.body).toEqual({
      country: 'CA',
      assistive_tech: [],
    });
  });

  it('saves the assistive technology the tester uses with their profile', async () => {
    const { calls } = mockFetch((c) =>
      c.url === '/api/users/profile'
        ? {
            body: { user: { ...tester, assistive_tech: ['screen_reader'] }, access_token: 'newer' },
          }
        : { body: { jobs: [], next_cursor: null } },
    );
    renderWithStore(<TesterDashboard user={{ ...tester, assistive_tech: ['captions'] }} />);
    await userEvent.click(screen.getByRole('button', { name: 'Update Your Profile' }));
    expect((screen.getByLabelText('I use captions') as HTMLInputElement).checked).toBe(true);
    await userEvent.click(screen.getByLabelText('I use a screen reader'));
    await userEvent.click(screen.getByLabelText('I use captions'));
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(getToken()).toBe('newer'));
    expect(calls.find((c) => c.url === '/api/users/profile')?.body).toEqual({
      country: 'US',
      assistive_tech: ['screen_reader'],
    });
  });

  it("shows the assistive-technology badge, how long jobs usually take and the tester's rating", async () => {
    mockFetch((c) =>
      c.url.startsWith('/api/tester/available-jobs')
        ? {
            body: {
              jobs: [{ ...openJob, assistive_tech: 'screen_reader' }],
              next_cursor: null,
              usual_minutes: 12,
            },
          }
        : { body: { jobs: [] } },
    );
    renderWithStore(<TesterDashboard user={{ ...tester, rating_avg: 4.7, rating_count: 3 }} />);
    expect(await screen.findByText('For someone who uses a screen reader')).toBeTruthy();
    expect(
      await screen.findByText('Each job pays $0.82 and usually takes 12 minutes.'),
    ).toBeTruthy();
    expect(screen.getByText('Your rating: 4.7 ★ from 3 ratings')).toBeTruthy();
  });

  it('shows the effective hourly rate next to the total on the Earnings tab', async () => {
    mockFetch((c) =>
      c.url === '/api/tester/my-earnings'
        ? {
            body: {
              total_usd: 1.64,
              pending_usd: 1.64,
              last_30_days: 1.64,
              completed_jobs: 2,
              pending_jobs: 2,
              effective_hourly_rate: 4.92,
              median_minutes: 10,
              jobs: [],
            },
          }
        : c.url === '/api/tester/payout-account'
          ? { body: { connected: false, account_id: null, onboarding_url: null } }
          : { body: { jobs: [], next_cursor: null } },
    );
    renderWithStore(<TesterDashboard user={tester} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Earnings' }));
    expect(await screen.findByText('$4.92/h')).toBeTruthy();
    expect(screen.getByText('Effective hourly rate (median 10 min a job)')).toBeTruthy();
    expect(screen.getAllByText('$1.64').length).toBeGreaterThan(0);
  });
});

describe('My Jobs deadlines', () => {
  const claimedJob = (deadlineInMs: number) => ({
    ...openJob,
    status: 'claimed',
    tester_id: 't1',
    claim_deadline_at: new Date(Date.now() + deadlineInMs).toISOString(),
  });
  const myJobsCalls = (calls: Array<{ url: string }>) =>
    calls.filter((c) => c.url === '/api/tester/my-jobs').length;

  it('says "less than a minute" when under a minute is left, with the submit buttons', async () => {
    mockFetch((c) =>
      c.url === '/api/tester/my-jobs'
        ? { body: { jobs: [claimedJob(50_000)] } }
        : { body: { jobs: [], next_cursor: null } },
    );
    renderWithStore(<TesterDashboard user={tester} />);
    await userEvent.click(screen.getByRole('tab', { name: 'My Jobs' }));
    expect(await screen.findByText('Time left to submit: less than a minute.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Quick report' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Detailed report' })).toBeTruthy();
  });

  it('turns the card into "claim expired" when the deadline passes, without submit buttons, and asks the server again', async () => {
    const job = claimedJob(1500);
    const { calls } = mockFetch((c) =>
      c.url === '/api/tester/my-jobs'
        ? { body: { jobs: myJobsCalls(calls) <= 1 ? [job] : [] } } // released by then
        : { body: { jobs: [], next_cursor: null } },
    );
    renderWithStore(<TesterDashboard user={tester} />);
    await userEvent.click(screen.getByRole('tab', { name: 'My Jobs' }));
    expect(await screen.findByRole('button', { name: 'Quick report' })).toBeTruthy();
    expect(myJobsCalls(calls)).toBe(1);
    expect(
      await screen.findByText(
        'Your claim on this job expired, so it went back to the available jobs.',
        undefined,
        { timeout: 4000 },
      ),
    ).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Quick report' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Detailed report' })).toBeNull();
    expect(screen.queryByText(/Time left to submit/)).toBeNull();
    await waitFor(() => expect(myJobsCalls(calls)).toBe(2));
    // The server no longer lists the job: the notice stays until the tester dismisses it.
    await new Promise((r) => setTimeout(r, 200));
    expect(
      screen.getByText('Your claim on this job expired, so it went back to the available jobs.'),
    ).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByText(/Your claim on this job expired/)).toBeNull();
    expect(screen.getByText('You have no jobs yet. Claim one from Available Jobs.')).toBeTruthy();
  });

  it('refetches My Jobs after a 403 to a submit, so the stale card goes away', async () => {
    let released = false;
    const { calls } = mockFetch((c) =>
      c.url === '/api/tester/my-jobs'
        ? { body: { jobs: released ? [] : [claimedJob(3_600_000)] } }
        : { body: { jobs: [], next_cursor: null } },
    );
    const expiredDetail = 'Your claim on this job expired, so it went back to the available jobs.';
    mockXhr(() => {
      released = true;
      return { status: 403, body: { detail: expiredDetail, code: 'claim_expired' } };
    });
    renderWithStore(<TesterDashboard user={tester} />);
    await userEvent.click(screen.getByRole('tab', { name: 'My Jobs' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Quick report' }));
    const dialog = screen.getByRole('dialog');
    await userEvent.type(within(dialog).getByLabelText('Feedback'), 'The cart badge lags behind.');
    await userEvent.type(within(dialog).getByLabelText('Key finding 1'), 'Cart badge lags');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Submit Work' }));
    expect(await within(dialog).findByText(expiredDetail)).toBeTruthy();
    await waitFor(() => expect(myJobsCalls(calls)).toBe(2));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(
      await screen.findByText('You have no jobs yet. Claim one from Available Jobs.'),
    ).toBeTruthy();
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

  it('opens the Earnings tab from an e-mail link (/dashboard?tab=earnings), My Jobs for ?job=ID', async () => {
    mockFetch(() => ({ body: { jobs: [], next_cursor: null } }));
    const { unmount } = renderWithStore(<TesterDashboard user={tester} />, {
      route: '/dashboard?tab=earnings',
    });
    expect(screen.getByRole('tab', { name: 'Earnings' }).getAttribute('aria-selected')).toBe(
      'true',
    );
    unmount();
    renderWithStore(<TesterDashboard user={tester} />, { route: `/dashboard?job=${openJob.id}` });
    expect(screen.getByRole('tab', { name: 'My Jobs' }).getAttribute('aria-selected')).toBe('true');
  });
});
