import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setToken } from '../../../lib/tokens';
import type { UserDto as User } from '@htm/contracts/identity';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage, type Call, type FakeResponseInit } from '../../../test/setup';
import AdminDashboard from './admin-dashboard';

const admin: User = {
  id: 'a',
  email: 'admin@gmail.com',
  name: 'Admin',
  type: 'admin',
  location: 'USA',
  country: null,
  approved: true,
  released: false,
  created_at: '2026-01-01T00:00:00.000Z',
};
const job = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: `Job ${id}`,
  url: 'https://x.example',
  what_to_test: 'x',
  budget: 1,
  expected_completion_hours: 48,
  geo_rule: 'us_pr',
  requirements: ['a'],
  status,
  payment_status: 'paid',
  poster_id: 'p',
  tester_id: null,
  poster_info: { email: 'poster@gmail.com', name: 'Pat Poster' },
  completed_at: '2026-01-01T00:00:00Z',
  ...extra,
});

const PREVIEW = {
  jobs_total: 5,
  jobs_by_status: { open: 2, claimed: 1, completed: 2 },
  submissions: 3,
  paid_unfinished: 2,
  paid_unfinished_cents: 200,
  paid_completed: 2,
  paid_completed_cents: 200,
  unpaid: 1,
  job_requests: 1,
  confirmation: 'conf-token-1',
  expires_at: '2026-01-01T00:05:00Z',
};

function backend(overrides: (c: Call) => FakeResponseInit | undefined = () => undefined) {
  return mockFetch((c) => {
    const o = overrides(c);
    if (o) return o;
    if (c.url === '/api/jobs')
      return { body: { jobs: [job('open00001', 'open'), job('subm00001', 'submitted')] } };
    if (c.url === '/api/admin/financial-overview')
      return {
        body: {
          total_payments: 12,
          total_payouts: 4.1,
          platform_earnings: 2.16,
          pending_payouts_count: 3,
          completed_jobs_count: 12,
          total_refunds: 3,
          pending_refunds_count: 1,
        },
      };
    if (c.url === '/api/admin/available-testers')
      return {
        body: {
          testers: [
            { id: 'tst1', email: 't@gmail.com', name: 'Tess', approved: true, country: 'US' },
          ],
        },
      };
    if (c.url === '/api/admin/testers')
      return {
        body: {
          testers: [
            {
              id: 'tst1',
              email: 't@gmail.com',
              name: 'Tess',
              approved: true,
              country: 'US',
              strikes: 0,
            },
          ],
        },
      };
    if (c.url.startsWith('/api/admin/waitlist'))
      return {
        body: {
          entries: [
            {
              id: 'w1',
              email: 's@gmail.com',
              name: null,
              role: 'Tester (student)',
              url: null,
              note: null,
              approved: false,
              created_at: '2026-01-01T00:00:00Z',
            },
          ],
          total: 1,
          page: 1,
          page_size: 10,
        },
      };
    if (c.url.startsWith('/api/admin/leads'))
      return { body: { leads: [], total: 0, page: 1, page_size: 10 } };
    if (c.url.startsWith('/api/admin/audit'))
      return { body: { entries: [], total: 0, page: 1, page_size: 20 } };
    if (c.url.startsWith('/api/admin/feedback'))
      return { body: { feedback: [], total: 0, page: 1, page_size: 10 } };
    if (c.url === '/api/admin/clear-jobs/preview') return { body: PREVIEW };
    return { body: {} };
  });
}

beforeEach(() => {
  resetStorage();
  setToken('admin');
});

describe('Admin dashboard', () => {
  it('shows the financial overview and job counts', async () => {
    backend();
    renderWithStore(<AdminDashboard user={admin} />);
    expect(await screen.findByText('$2.16')).toBeTruthy();
    expect(screen.getByText('$12.00')).toBeTruthy();
    const money = screen.getByRole('list', { name: 'Financial overview' });
    expect(within(money).getByText(/Refunded/).textContent).toBe(
      '$3.00 Refunded (second payments, cleared jobs, unfilled pack slots)',
    );
    expect(within(money).getByText(/Refunds pending/).textContent).toBe('1 Refunds pending');
    const counts = screen.getByRole('list', { name: 'Job counts' });
    expect(within(counts).getByText('Submitted').textContent).toContain('1');
    expect(screen.queryByRole('table', { name: 'Earnings not paid' })).toBeNull();
  });

  it('lists acceptances the ledger refused to pay (no payment booked)', async () => {
    backend((c) =>
      c.url === '/api/admin/financial-overview'
        ? {
            body: {
              total_payments: 0,
              total_payouts: 0,
              platform_earnings: 0,
              pending_payouts_count: 0,
              completed_jobs_count: 0,
              total_refunds: 0,
              pending_refunds_count: 0,
              earning_mismatches: [
                {
                  job_id: 'job-1',
                  tester_id: 'tst1',
                  poster_id: 'p1',
                  title: 'Shop',
                  event_id: 'e1',
                  reason: 'no_payment',
                  recorded_at: '2026-01-01T00:00:00Z',
                },
              ],
            },
          }
        : undefined,
    );
    renderWithStore(<AdminDashboard user={admin} />);
    const table = await screen.findByRole('table', { name: 'Earnings not paid' });
    const row = within(table).getByText('Shop (job-1)').closest('tr')!;
    expect(within(row).getByText('tst1')).toBeTruthy();
    expect(within(row).getByText('No payment booked for this job')).toBeTruthy();
  });

  it("shows 'N events need a hand' when events are in dead letter, and replays them", async () => {
    let total = 3;
    const { calls } = backend((c) => {
      if (c.url === '/api/admin/dead-letters')
        return {
          body: {
            total,
            groups: total
              ? [
                  { group: 'jobs', count: 2 },
                  { group: 'notifications', count: 1 },
                ]
              : [],
          },
        };
      if (c.url === '/api/admin/dead-letters/replay' && c.method === 'POST') {
        total = 0;
        return {
          body: {
            replayed: 3,
            groups: [
              { group: 'jobs', count: 2 },
              { group: 'notifications', count: 1 },
            ],
          },
        };
      }
      return undefined;
    });
    renderWithStore(<AdminDashboard user={admin} />);
    const notice = await screen.findByRole('alert', { name: 'Events that need a hand' });
    expect(notice.textContent).toContain('3 events need a hand');
    expect(notice.textContent).toContain('jobs: 2, notifications: 1');
    await userEvent.click(within(notice).getByRole('button', { name: 'Replay' }));
    expect(await screen.findByText('Replayed 3 events.')).toBeTruthy();
    await waitFor(() =>
      expect(screen.queryByRole('alert', { name: 'Events that need a hand' })).toBeNull(),
    );
    expect(calls.filter((c) => c.url === '/api/admin/dead-letters/replay')).toHaveLength(1);
  });

  it('shows no dead-letter notice when every event was applied', async () => {
    backend((c) =>
      c.url === '/api/admin/dead-letters' ? { body: { total: 0, groups: [] } } : undefined,
    );
    renderWithStore(<AdminDashboard user={admin} />);
    expect(await screen.findByText('$2.16')).toBeTruthy();
    expect(screen.queryByRole('alert', { name: 'Events that need a hand' })).toBeNull();
  });

  it('loads signups 10 at a time, job requests 5 at a time and the waitlist 10 at a time', async () => {
    const { calls } = backend();
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    await screen.findAllByText('Pat Poster');
    await waitFor(() =>
      expect(calls.filter((c) => c.url.startsWith('/api/admin/waitlist'))).toHaveLength(3),
    );
    const urls = calls.filter((c) => c.url.startsWith('/api/admin/waitlist')).map((c) => c.url);
    expect(urls).toContain('/api/admin/waitlist?kind=signup&page=1&page_size=10');
    expect(urls).toContain('/api/admin/waitlist?kind=job_request&page=1&page_size=5');
    expect(urls).toContain('/api/admin/waitlist?kind=waitlist&page=1&page_size=10');
  });

  it('lists the waitlist (people without Gmail) and searches it with q', async () => {
    const { calls } = backend((c) =>
      c.url.startsWith('/api/admin/waitlist?kind=waitlist')
        ? {
            body: {
              entries: c.url.includes('q=')
                ? []
                : [
                    {
                      id: 'wl1',
                      email: 'nogmail@yahoo.com',
                      name: 'Yana Hoo',
                      role: 'tester',
                      kind: 'waitlist',
                      url: null,
                      note: 'Please add Outlook',
                      approved: false,
                      created_at: '2026-01-02T00:00:00Z',
                    },
                  ],
              total: c.url.includes('q=') ? 0 : 1,
              page: 1,
              page_size: 10,
            },
          }
        : undefined,
    );
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    const waitlist = await screen.findByRole('region', { name: 'Waitlist' });
    expect(await within(waitlist).findByText('nogmail@yahoo.com')).toBeTruthy();
    expect(within(waitlist).getByText('Yana Hoo')).toBeTruthy();
    expect(within(waitlist).getByText('Please add Outlook')).toBeTruthy();
    expect(within(waitlist).getByRole('heading').textContent).toBe('Waitlist (1)');

    await userEvent.type(within(waitlist).getByLabelText('Search waitlist'), 'zed');
    await waitFor(() =>
      expect(calls.map((c) => c.url)).toContain(
        '/api/admin/waitlist?kind=waitlist&page=1&page_size=10&q=zed',
      ),
    );
    expect(await within(waitlist).findByText('No entries match “zed”.')).toBeTruthy();
    expect(within(waitlist).queryByText('nogmail@yahoo.com')).toBeNull();
  });

  it('approves a waitlist entry with PATCH /api/admin/waitlist/{id}', async () => {
    const { calls } = backend();
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    const waitlist = await screen.findByRole('region', { name: 'Waitlist' });
    await userEvent.click(await within(waitlist).findByLabelText('Approved'));
    await waitFor(() =>
      expect(calls.find((c) => c.method === 'PATCH')).toMatchObject({
        url: '/api/admin/waitlist/w1',
        body: { approved: true },
      }),
    );
  });

  it("says 'Couldn't load waitlist — retry' on the waitlist and retries", async () => {
    let fail = true;
    backend((c) =>
      c.url.startsWith('/api/admin/waitlist?kind=waitlist') && fail
        ? { status: 500, body: '' }
        : undefined,
    );
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    const waitlist = await screen.findByRole('region', { name: 'Waitlist' });
    expect((await within(waitlist).findByRole('alert')).textContent).toBe(
      "Couldn't load waitlist — retry",
    );
    fail = false;
    await userEvent.click(within(waitlist).getByRole('button', { name: 'retry' }));
    expect(await within(waitlist).findByText('s@gmail.com')).toBeTruthy();
  });

  it('assigns an open job to an approved tester', async () => {
    const { calls } = backend();
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    await screen.findByRole('option', { name: 'Tess (US)' });
    await userEvent.selectOptions(screen.getByLabelText('Assign job open0000 to tester'), 'tst1');
    await userEvent.click(screen.getByRole('button', { name: 'Assign' }));
    await waitFor(() =>
      expect(
        calls.some(
          (c) =>
            c.url === '/api/jobs/open00001/accept' &&
            c.method === 'POST' &&
            (c.body as { tester_id?: string }).tester_id === 'tst1',
        ),
      ).toBe(true),
    );
  });

  it('lists for Assign only the testers who can take the job, or says why nobody can', async () => {
    backend((c) => {
      if (c.url === '/api/jobs')
        return {
          body: {
            jobs: [
              job('usjob0001', 'open'),
              job('cajob0001', 'open', { geo_rule: 'us_pr_ca' }),
              job('srjob0001', 'open', { assistive_tech: 'screen_reader' }),
            ],
          },
        };
      if (c.url === '/api/admin/available-testers')
        return {
          body: {
            testers: [
              {
                id: 'us1',
                email: 'u@gmail.com',
                name: 'Uma',
                approved: true,
                country: 'US',
                assistive_tech: [],
              },
              {
                id: 'ca1',
                email: 'c@gmail.com',
                name: 'Cal',
                approved: true,
                country: 'CA',
                assistive_tech: [],
              },
            ],
          },
        };
      return undefined;
    });
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    const options = async (id: string) => {
      const select = await screen.findByLabelText(`Assign job ${id.slice(0, 8)} to tester`);
      await within(select).findByRole('option', { name: 'Uma (US)' });
      return within(select)
        .getAllByRole('option')
        .map((o) => o.textContent)
        .slice(1);
    };
    // A Canadian may not take a US & PR job; both may take a US, PR & CA one.
    expect(await options('usjob0001')).toEqual(['Uma (US)']);
    expect(await options('cajob0001')).toEqual(['Uma (US)', 'Cal (CA)']);
    // Nobody uses a screen reader: no list, the reason instead.
    const row = screen.getByText('Job srjob0001').closest('tr')!;
    expect(within(row).queryByRole('combobox')).toBeNull();
    expect(
      within(row).getByText(/No approved tester can take it: none in an admitted country uses/),
    ).toBeTruthy();
  });

  it("shows testers' ratings and assistive technology in Manage, filters by it, and shows job ratings", async () => {
    const reader = {
      id: 'tst2',
      email: 'r@gmail.com',
      name: 'Rae Reader',
      approved: true,
      country: 'US',
      strikes: 0,
      assistive_tech: ['screen_reader'],
      rating_avg: 4.7,
      rating_count: 3,
    };
    const { calls } = backend((c) => {
      if (c.url === '/api/admin/testers?assistive_tech=screen_reader')
        return { body: { testers: [reader] } };
      if (c.url === '/api/jobs')
        return {
          body: {
            jobs: [
              job('done00001', 'completed', {
                assistive_tech: 'screen_reader',
                rating: { stars: 5, comment: 'Great notes', created_at: '2026-01-01T00:00:00Z' },
              }),
            ],
          },
        };
      return undefined;
    });
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    expect(await screen.findByText('Rated 5/5: “Great notes”')).toBeTruthy();
    const approvals = await screen.findByRole('region', { name: 'Tester approvals' });
    expect(await within(approvals).findByText(/no ratings yet/)).toBeTruthy();
    await userEvent.selectOptions(
      within(approvals).getByLabelText('Assistive technology'),
      'screen_reader',
    );
    expect(await within(approvals).findByText('Rae Reader')).toBeTruthy();
    expect(within(approvals).getByText(/rating 4\.7 \(3\)/)).toBeTruthy();
    expect(within(approvals).getByText('Assistive technology: a screen reader')).toBeTruthy();
    expect(within(approvals).queryByText('Tess')).toBeNull();
    expect(calls.some((c) => c.url === '/api/admin/testers?assistive_tech=screen_reader')).toBe(
      true,
    );
  });

  it("toasts the spec's admin fallback 'Failed to assign job' when an assignment fails", async () => {
    backend((c) =>
      c.url === '/api/jobs/open00001/accept' ? { status: 500, body: '' } : undefined,
    );
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    await screen.findByRole('option', { name: 'Tess (US)' });
    await userEvent.selectOptions(screen.getByLabelText('Assign job open0000 to tester'), 'tst1');
    await userEvent.click(screen.getByRole('button', { name: 'Assign' }));
    expect((await screen.findByText('Failed to assign job')).closest('.toast')).toBeTruthy();
    expect(screen.queryByText('Failed to accept job')).toBeNull();
  });

  it("toggles a signup's approval and toasts 'Failed to update approval status' on failure", async () => {
    const { calls } = backend((c) =>
      c.method === 'PATCH' ? { status: 500, body: '' } : undefined,
    );
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    const signups = await screen.findByRole('region', { name: 'Tester signups' });
    await userEvent.click(await within(signups).findByLabelText('Approved'));
    expect(await screen.findByText('Failed to update approval status')).toBeTruthy();
    expect(calls.find((c) => c.method === 'PATCH')).toMatchObject({
      url: '/api/admin/waitlist/w1',
      body: { approved: true },
    });
  });

  it('shows one approval state for a signup that became a tester account, and a switch in either list changes it', async () => {
    let approved = true;
    const { calls } = backend((c) => {
      if (c.url === '/api/admin/testers')
        return {
          body: {
            testers: [
              {
                id: 'tst1',
                email: 's@gmail.com',
                name: 'Sam',
                approved,
                country: 'US',
                strikes: 0,
              },
            ],
          },
        };
      if (c.url === '/api/admin/approve-tester/tst1') {
        approved = (c.body as { approved: boolean }).approved;
        return { body: { user: { id: 'tst1', approved } } };
      }
      return undefined;
    });
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    const signups = await screen.findByRole('region', { name: 'Tester signups' });
    const testers = screen.getByRole('region', { name: 'Tester approvals' });
    // The signup's own flag says false, the tester account says approved: one state, approved.
    const signupSwitch = (await within(signups).findByLabelText(/Approved/)) as HTMLInputElement;
    await waitFor(() => expect(signupSwitch.checked).toBe(true));
    // Un-approving in Tester approvals (after its confirmation) unticks the signup too.
    await userEvent.click(await within(testers).findByLabelText('Approved'));
    await userEvent.click(within(testers).getByRole('button', { name: 'Yes, un-approve' }));
    await waitFor(() => expect(signupSwitch.checked).toBe(false));
    expect(calls.filter((c) => c.method === 'PATCH').map((c) => c.url)).toEqual([
      '/api/admin/approve-tester/tst1',
    ]);
    // And the signup's switch approves the tester account itself.
    await userEvent.click(signupSwitch);
    await waitFor(() => expect(approved).toBe(true));
    await waitFor(() =>
      expect((within(testers).getByLabelText('Approved') as HTMLInputElement).checked).toBe(true),
    );
  });

  it('says how many claimed jobs un-approving a tester releases, before anything is sent', async () => {
    const { calls } = backend((c) =>
      c.url === '/api/jobs'
        ? {
            body: {
              jobs: [
                job('held00001', 'claimed', { tester_id: 'tst1' }),
                job('held00003', 'claimed', { tester_id: 'tst1' }),
                // A revision stays with its tester (the rules release claimed jobs only).
                job('held00002', 'revision_requested', { tester_id: 'tst1' }),
                job('othr00001', 'claimed', { tester_id: 'someone' }),
              ],
            },
          }
        : undefined,
    );
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    const testers = await screen.findByRole('region', { name: 'Tester approvals' });
    await userEvent.click(await within(testers).findByLabelText('Approved'));
    const ask = within(testers).getByRole('group', { name: 'Un-approve Tess?' });
    expect(ask.textContent).toContain(
      'Un-approve Tess? 2 claimed jobs will be released to other testers.',
    );
    expect(calls.some((c) => c.method === 'PATCH')).toBe(false);
    await userEvent.click(within(ask).getByRole('button', { name: 'Keep approved' }));
    expect(calls.some((c) => c.method === 'PATCH')).toBe(false);
    expect((within(testers).getByLabelText('Approved') as HTMLInputElement).checked).toBe(true);
    await userEvent.click(within(testers).getByLabelText('Approved'));
    await userEvent.click(within(testers).getByRole('button', { name: 'Yes, un-approve' }));
    await waitFor(() =>
      expect(
        calls.find((c) => c.method === 'PATCH' && c.url === '/api/admin/approve-tester/tst1')?.body,
      ).toEqual({ approved: false }),
    );
  });

  it("says 'Couldn't load waitlist — retry' and retries", async () => {
    let fail = true;
    backend((c) =>
      c.url.startsWith('/api/admin/waitlist') && fail ? { status: 500, body: '' } : undefined,
    );
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    const signups = await screen.findByRole('region', { name: 'Tester signups' });
    expect((await within(signups).findByRole('alert')).textContent).toBe(
      "Couldn't load waitlist — retry",
    );
    fail = false;
    await userEvent.click(within(signups).getByRole('button', { name: 'retry' }));
    expect(await within(signups).findByText('s@gmail.com')).toBeTruthy();
  });

  it('accepts and completes a submitted job after a confirmation, with one request for a double-click', async () => {
    const { calls } = backend();
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Accept & complete' }));
    const completes = () =>
      calls.filter((c) => c.url === '/api/jobs/subm00001/complete' && c.method === 'PATCH');
    expect(completes()).toHaveLength(0);
    expect(screen.getByRole('group', { name: /Accept the work on #subm0000/ })).toBeTruthy();
    await userEvent.dblClick(screen.getByRole('button', { name: 'Yes, accept & complete' }));
    await waitFor(() => expect(completes()).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 50));
    expect(completes()).toHaveLength(1);
  });

  it('sends nothing when the admin cancels Accept & complete', async () => {
    const { calls } = backend();
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Accept & complete' }));
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(calls.some((c) => c.url.endsWith('/complete'))).toBe(false);
    expect(screen.getByRole('button', { name: 'Accept & complete' })).toBeTruthy();
  });

  it('opens the Review Submission modal from All jobs, shows the work and requests a revision as admin', async () => {
    let reviewed = false;
    const { calls } = backend((c) => {
      if (c.url === '/api/jobs' && reviewed)
        return { body: { jobs: [job('subm00001', 'revision_requested', { revision_count: 1 })] } };
      if (c.url === '/api/jobs/subm00001/submission')
        return {
          body: {
            id: 's1',
            job_id: 'subm00001',
            revision: 0,
            submitted_at: '2026-01-01T00:00:00Z',
            locked: false,
            submitted_by_snapshot: { name: 'Tess', location: 'USA' },
            human_preview: {
              device_used: 'iPhone 13',
              browser_used: 'Safari',
              key_findings_bullets: ['Cart count lags', 'Price hidden', 'Slow images'],
              small_image_url: null,
            },
            requirement_responses: [{ requirement_index: 0, response_text: 'It is in the footer' }],
            general_feedback: 'Nice shop overall',
            file_urls: ['/api/files/f1?sig=x'],
          },
        };
      if (c.url === '/api/jobs/subm00001/review') {
        reviewed = true;
        return {
          body: {
            payment_processed: false,
            revision_count: 1,
            job: job('subm00001', 'revision_requested', { revision_count: 1 }),
          },
        };
      }
      return undefined;
    });
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Review submission' }));
    const modal = await screen.findByRole('dialog', { name: 'Review Submission' });
    expect(await within(modal).findByText('Cart count lags')).toBeTruthy();
    expect(within(modal).getByText('It is in the footer')).toBeTruthy();
    expect(within(modal).getByText('Nice shop overall')).toBeTruthy();
    const jobLoads = calls.filter((c) => c.url === '/api/jobs').length;
    await userEvent.click(within(modal).getByLabelText(/^Request revision/));
    await userEvent.type(
      within(modal).getByLabelText('What should the tester change?'),
      'Please check on mobile too',
    );
    await userEvent.type(within(modal).getByLabelText(/Specific issues/), 'No screenshot');
    await userEvent.click(within(modal).getByRole('button', { name: 'Submit Review' }));
    await waitFor(() => expect(reviewed).toBe(true));
    const review = calls.find((c) => c.url === '/api/jobs/subm00001/review')!;
    expect(review.method).toBe('POST');
    expect(review.headers.Authorization).toBe('Bearer admin');
    expect(review.body).toEqual({
      decision: 'request_revision',
      reason: 'Please check on mobile too',
      specific_issues: ['No screenshot'],
    });
    // The answer's job (revision requested) replaces the row: the list is not read again (#50).
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Review submission' })).toBeNull(),
    );
    expect(screen.queryByRole('dialog', { name: 'Review Submission' })).toBeNull();
    expect(calls.filter((c) => c.url === '/api/jobs').length).toBe(jobLoads);
  });

  it('clears all jobs only after a preview that says what is deleted, refunded and kept, and reports failure', async () => {
    const { calls } = backend((c) =>
      c.url === '/api/admin/clear-jobs' ? { status: 502, body: '' } : undefined,
    );
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Actions' }));
    await userEvent.click(screen.getByRole('button', { name: 'Clear all jobs' }));
    const dialog = await screen.findByRole('dialog', { name: 'Clear all jobs?' });
    expect(dialog.textContent).toContain(
      'This permanently deletes 5 jobs (2 open, 1 claimed, 2 completed), 3 submissions and 1 job request.',
    );
    expect(dialog.textContent).toContain('Refunded: 2 paid jobs nobody finished ($2.00)');
    expect(dialog.textContent).toContain(
      'Kept: 2 completed jobs ($2.00): the testers keep their earnings',
    );
    expect(calls.filter((c) => c.url === '/api/admin/clear-jobs/preview')).toHaveLength(1);
    expect(calls.some((c) => c.url === '/api/admin/clear-jobs')).toBe(false);
    await userEvent.click(screen.getByRole('button', { name: 'Yes, clear all jobs' }));
    expect(await screen.findByText('Failed to clear jobs')).toBeTruthy();
    const clears = calls.filter((c) => c.url === '/api/admin/clear-jobs');
    expect(clears).toHaveLength(1);
    expect(clears[0]!.body).toEqual({ confirmation: 'conf-token-1' });
  });

  it('shows the new counts again when the jobs changed since the preview (409)', async () => {
    let previews = 0;
    const { calls } = backend((c) => {
      if (c.url === '/api/admin/clear-jobs/preview') {
        previews++;
        return { body: { ...PREVIEW, jobs_total: 5 + previews, confirmation: `conf-${previews}` } };
      }
      if (c.url === '/api/admin/clear-jobs')
        return {
          status: 409,
          body: {
            detail:
              'The jobs changed since the preview, so nothing was cleared. Please review the new counts and confirm again.',
            code: 'clear_preview_stale',
          },
        };
      return undefined;
    });
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Actions' }));
    await userEvent.click(screen.getByRole('button', { name: 'Clear all jobs' }));
    await screen.findByText(/This permanently deletes 6 jobs/);
    await userEvent.click(screen.getByRole('button', { name: 'Yes, clear all jobs' }));
    expect(await screen.findByText(/The jobs changed since the preview/)).toBeTruthy();
    expect(await screen.findByText(/This permanently deletes 7 jobs/)).toBeTruthy();
    expect(calls.filter((c) => c.url === '/api/admin/clear-jobs')).toHaveLength(1);
  });

  it('does not count or label an unpaid job as Open', async () => {
    backend((c) =>
      c.url === '/api/jobs'
        ? {
            body: {
              jobs: [
                job('open00001', 'open'),
                job('unpd00001', 'open', { payment_status: 'unpaid' }),
              ],
            },
          }
        : undefined,
    );
    renderWithStore(<AdminDashboard user={admin} />);
    const counts = await screen.findByRole('list', { name: 'Job counts' });
    await waitFor(() => expect(within(counts).getByText('All').textContent).toBe('2 All'));
    expect(within(counts).getByText('Open').textContent).toBe('1 Open');
    expect(within(counts).getByText('Unpaid').textContent).toBe('1 Unpaid');
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    const table = await screen.findByRole('table', { name: 'All jobs' });
    const unpaidRow = within(table).getByText('Job unpd00001').closest('tr')!;
    const badges = [...unpaidRow.querySelectorAll('.badge')].map((b) => b.textContent);
    expect(badges).toEqual(['unpaid']);
    const paidRow = within(table).getByText('Job open00001').closest('tr')!;
    expect([...paidRow.querySelectorAll('.badge')].map((b) => b.textContent)).toEqual(['open']);
  });

  it('shows feedback entries in Actions, and pages leads back and forth with Page N of M', async () => {
    const leads = (page: number) =>
      Array.from({ length: page === 3 ? 1 : 10 }, (_, i) => ({
        id: `l${page}-${i}`,
        email: `lead${page}-${i}@gmail.com`,
        message: 'Need help',
        created_at: '2026-01-01T00:00:00Z',
      }));
    const { calls } = backend((c) => {
      if (c.url.startsWith('/api/admin/leads')) {
        const page = Number(new URL(c.url, 'http://x').searchParams.get('page'));
        return { body: { leads: leads(page), total: 21, page, page_size: 10 } };
      }
      if (c.url.startsWith('/api/admin/feedback'))
        return {
          body: {
            feedback: [
              {
                id: 'f1',
                email: 'fan@gmail.com',
                message: 'The menu is hard to find',
                page_url: 'https://humantest.example/dashboard',
                created_at: '2026-01-02T00:00:00Z',
              },
            ],
            total: 1,
            page: 1,
            page_size: 10,
          },
        };
      return undefined;
    });
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Actions' }));
    const feedback = await screen.findByRole('region', { name: 'Feedback' });
    expect(await within(feedback).findByText('The menu is hard to find')).toBeTruthy();
    expect(within(feedback).getByText('fan@gmail.com')).toBeTruthy();
    const leadsPanel = screen.getByRole('region', { name: 'Developer leads' });
    expect(await within(leadsPanel).findByText('Page 1 of 3')).toBeTruthy();
    await userEvent.click(within(leadsPanel).getByRole('button', { name: 'Next' }));
    expect(await within(leadsPanel).findByText('lead2-0@gmail.com')).toBeTruthy();
    expect(within(leadsPanel).getByText('Page 2 of 3')).toBeTruthy();
    await userEvent.click(within(leadsPanel).getByRole('button', { name: 'Previous' }));
    expect(await within(leadsPanel).findByText('lead1-0@gmail.com')).toBeTruthy();
    expect(calls.some((c) => c.url.includes('/api/admin/leads') && c.url.includes('page=2'))).toBe(
      true,
    );
  });

  it('offers no Approved switch on job requests (only on signups and the waitlist)', async () => {
    backend((c) =>
      c.url.startsWith('/api/admin/waitlist') && c.url.includes('kind=job_request')
        ? {
            body: {
              entries: [
                {
                  id: 'jr1',
                  email: 'owner@gmail.com',
                  name: null,
                  role: 'Site owner',
                  url: 'https://shop.example',
                  note: 'Check the checkout',
                  approved: false,
                  created_at: '2026-01-01T00:00:00Z',
                },
              ],
              total: 1,
              page: 1,
              page_size: 5,
            },
          }
        : undefined,
    );
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Manage' }));
    const requests = await screen.findByRole('region', { name: 'Job requests' });
    expect(await within(requests).findByText('Check the checkout')).toBeTruthy();
    expect(within(requests).queryByRole('checkbox')).toBeNull();
    const signups = screen.getByRole('region', { name: 'Tester signups' });
    expect(await within(signups).findByRole('checkbox', { name: 'Approved' })).toBeTruthy();
  });

  it("says 'Failed to load leads (status)' and 'Couldn't load leads — retry'", async () => {
    backend((c) => (c.url.startsWith('/api/admin/leads') ? { status: 503, body: '' } : undefined));
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Actions' }));
    const alert = await screen.findByText(/Couldn't load leads/);
    expect(alert.textContent).toContain('Failed to load leads (503)');
    expect(alert.textContent).toContain("Couldn't load leads — retry");
  });

  it('says how many of each were cleared, in the singular for one', async () => {
    backend((c) =>
      c.url === '/api/admin/clear-jobs'
        ? {
            body: {
              jobs_deleted: 1,
              submissions_deleted: 5,
              waitlist_deleted: 1,
              refunded_jobs: 1,
            },
          }
        : undefined,
    );
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Actions' }));
    await userEvent.click(screen.getByRole('button', { name: 'Clear all jobs' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Yes, clear all jobs' }));
    expect(
      await screen.findByText('Cleared 1 job, 5 submissions, 1 job request. Refunding 1 paid job.'),
    ).toBeTruthy();
  });

  it('runs payouts', async () => {
    const { calls } = backend((c) =>
      c.url === '/api/admin/payouts/run'
        ? {
            body: {
              paid: [{ tester_id: 't', amount: 0.82, payout_id: 'po', job_id: 'j' }],
              failed: [],
              skipped_unconnected: 1,
            },
          }
        : undefined,
    );
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'Actions' }));
    await userEvent.click(screen.getByRole('button', { name: 'Run payouts' }));
    expect(calls.some((c) => c.url === '/api/admin/payouts/run')).toBe(false);
    await userEvent.dblClick(screen.getByRole('button', { name: 'Yes, run payouts' }));
    expect(await screen.findByText(/1 paid, 0 failed, 1 skipped/)).toBeTruthy();
    expect(calls.filter((c) => c.url === '/api/admin/payouts/run').map((c) => c.method)).toEqual([
      'POST',
    ]);
  });

  it('shows completed and revision_requested jobs in History, 10 at first', async () => {
    const many = Array.from({ length: 12 }, (_, i) =>
      job(`done${String(i).padStart(5, '0')}`, 'completed'),
    );
    backend((c) =>
      c.url === '/api/jobs'
        ? {
            body: {
              jobs: [...many, job('rev000001', 'revision_requested'), job('open00001', 'open')],
            },
          }
        : undefined,
    );
    renderWithStore(<AdminDashboard user={admin} />);
    await screen.findByText('$2.16');
    await userEvent.click(screen.getByRole('tab', { name: 'History' }));
    expect(screen.getAllByRole('row')).toHaveLength(11);
    await userEvent.click(screen.getByRole('button', { name: 'Show 10 more' }));
    expect(screen.getAllByRole('row')).toHaveLength(14);
    expect(screen.queryByText('Job open00001')).toBeNull();
  });

  it('lists the admin actions in History, filters them by action and exports them as CSV', async () => {
    const entry = (
      id: number,
      action: string,
      details: Record<string, unknown>,
      target: string,
    ) => ({
      id,
      at: '2026-01-02T10:00:00Z',
      actor_id: 'admin-1234567',
      action,
      target,
      details,
      correlation_id: 'corr-abcdef123',
    });
    const { calls } = backend((c) => {
      if (c.url.startsWith('/api/admin/audit.csv')) return { body: 'id,at\r\n' };
      if (c.url.startsWith('/api/admin/audit'))
        return {
          body: {
            entries: c.url.includes('action=payout.sent')
              ? [entry(2, 'payout.sent', { amount_cents: 82 }, 'tester:tst100000')]
              : [
                  entry(
                    3,
                    'jobs.cleared',
                    { jobs_deleted: 4, submissions_deleted: 2, refunded_jobs: 1 },
                    'jobs:all',
                  ),
                  entry(2, 'payout.sent', { amount_cents: 82 }, 'tester:tst100000'),
                  entry(1, 'tester.approved', { email: 't@gmail.com' }, 'tester:tst100000'),
                ],
            total: 3,
            page: 1,
            page_size: 20,
          },
        };
      return undefined;
    });
    renderWithStore(<AdminDashboard user={admin} />);
    await userEvent.click(screen.getByRole('tab', { name: 'History' }));
    const table = await screen.findByRole('table', { name: 'Admin actions' });
    expect(
      within(table)
        .getAllByRole('row')
        .map((r) => r.textContent),
    ).toEqual([
      'WhenActionWhatWhoRequest',
      expect.stringContaining(
        'All jobs cleared4 jobs, 2 submissions deleted; 1 paid jobs refunded#admin-12corr-abc',
      ),
      expect.stringContaining('Payout sent$0.82 to tester #tst10000'),
      expect.stringContaining('Tester approvedt@gmail.com'),
    ]);
    await userEvent.selectOptions(screen.getByLabelText('Action'), 'payout.sent');
    await waitFor(() =>
      expect(
        within(screen.getByRole('table', { name: 'Admin actions' })).getAllByRole('row'),
      ).toHaveLength(2),
    );
    expect(
      calls.some(
        (c) => c.url.includes('/api/admin/audit?') && c.url.includes('action=payout.sent'),
      ),
    ).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: 'Export audit CSV' }));
    await waitFor(() =>
      expect(calls.some((c) => c.url === '/api/admin/audit.csv?action=payout.sent')).toBe(true),
    );
  });
});
