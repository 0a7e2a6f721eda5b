import '../test/setup';
import { scheduledDeletion } from '../test/privacy';
import { beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { LOGOUT_MARK_KEY, getToken, setToken } from '../lib/tokens';
import { mockFetch, resetStorage } from '../test/setup';
import { App } from './app';
import { makeStore } from './store';

const poster = {
  id: 'u1',
  email: 'pat@gmail.com',
  name: 'Pat Poster',
  type: 'poster',
  location: 'USA',
  country: null,
  approved: true,
};

function go(path: string) {
  window.history.replaceState(null, '', path);
}

beforeAll(async () => {
  // Load the lazily imported modules up front: jest's ESM loader cannot link a dynamic
  // import that is still in flight when a test ends.
  // (one at a time: concurrent dynamic imports race inside jest's ESM loader).
  const loaders = [
    () => import('../features/landing/components/waitlist-form'),
    () => import('../features/landing/components/tester-signup-form'),
    () => import('../features/landing/components/job-request-form'),
    () => import('../features/landing/components/developer-lead-form'),
    () => import('../components/feedback-form'),
    () => import('../features/landing/components/live-proof'),
    () => import('./shell'),
    () => import('../features/poster/components/poster-dashboard'),
    () => import('../features/poster/components/post-job-launcher'),
    () => import('../features/tester/components/tester-dashboard'),
    () => import('../features/admin/components/admin-dashboard'),
    () => import('../lib/api'),
  ];
  for (const load of loaders) await load();
});

beforeEach(() => {
  resetStorage();
  go('/');
});

describe('app routes and session', () => {
  it('shows the landing page with its banner, anchors and sign-in link', async () => {
    mockFetch(() => ({ status: 201, body: { success: true } }));
    const { container } = render(<App store={makeStore()} />);
    expect(
      screen.getByText('$1 for the human quirks AI skips - real eyes for real users.'),
    ).toBeTruthy();
    for (const id of [
      'samples',
      'who',
      'job-request',
      'who-continued',
      'how',
      'faq',
      'tester-signup',
    ]) {
      expect(container.querySelector(`#${id}`)).toBeTruthy();
    }
    expect(screen.getByRole('link', { name: 'Sign in with Google' }).getAttribute('href')).toBe(
      '/api/auth/google',
    );
    expect(screen.getByRole('link', { name: 'Tester Login' }).getAttribute('href')).toBe(
      '/login/tester',
    );
    expect(screen.getAllByText(/one free revision/i).length).toBeGreaterThan(0);
    expect(screen.getByText(/Testers who repeatedly fail are released/)).toBeTruthy();
    // The lazily loaded forms arrive.
    expect(await screen.findByRole('form', { name: 'Tester signup' })).toBeTruthy();
  });

  it('header buttons scroll to their sections', async () => {
    mockFetch(() => ({ body: {} }));
    const scrolled: string[] = [];
    Element.prototype.scrollIntoView = jest.fn(function (this: Element) {
      scrolled.push(this.id);
    }) as unknown as Element['scrollIntoView'];
    render(<App store={makeStore()} />);
    const nav = screen.getByRole('navigation', { name: 'Main' });
    await userEvent.click(within(nav).getByRole('button', { name: 'Start Testing & Earning' }));
    await userEvent.click(within(nav).getByRole('button', { name: 'Get Your Site Tested' }));
    await userEvent.click(within(nav).getByRole('button', { name: 'See Samples' }));
    expect(scrolled).toEqual(['tester-signup', 'job-request', 'samples']);
    expect(document.activeElement?.id).toBe('samples');
  });

  it('shows Secure Tester Login at /login/tester', () => {
    mockFetch(() => ({ body: {} }));
    go('/login/tester');
    render(<App store={makeStore()} />);
    expect(screen.getByRole('heading', { name: 'Secure Tester Login' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Continue with Google' }).getAttribute('href')).toBe(
      '/api/auth/google?intent=tester',
    );
    expect(screen.getByRole('link', { name: 'Back to Home' }).getAttribute('href')).toBe('/');
  });

  it('trades #session_id for a token, clears the hash and opens the dashboard', async () => {
    const { calls, fn } = mockFetch((c) => {
      if (c.url === '/api/auth/session') return { body: { access_token: 'T1' } };
      if (c.url === '/api/me') return { body: poster };
      return { body: { jobs: [] } };
    });
    go('/#session_id=S-123');
    render(<App store={makeStore()} />);
    expect(await screen.findByRole('heading', { name: 'Welcome, Pat' })).toBeTruthy();
    expect(calls[0]).toMatchObject({
      url: '/api/auth/session',
      method: 'POST',
      body: { session_id: 'S-123' },
    });
    // With the browser's cookies: the sign-in nonce cookie set by the redirect must go along.
    expect((fn.mock.calls[0][1] as RequestInit).credentials).toBe('include');
    expect(getToken()).toBe('T1');
    expect(window.location.hash).toBe('');
    expect(window.location.pathname).toBe('/dashboard');
    expect(calls.find((c) => c.url === '/api/me')?.headers.Authorization).toBe('Bearer T1');
  });

  it('keeps "Signing you in…" up until the dashboard: the landing page the sign-in came back to never shows', async () => {
    mockFetch((c) => {
      if (c.url === '/api/auth/session') return { body: { access_token: 'T1' } };
      if (c.url === '/api/me') return { body: { ...poster, type: null, location: null } };
      return { body: {} };
    });
    go('/#session_id=S-124');
    const landingShown: string[] = [];
    const watch = new MutationObserver(() => {
      // The signed-in landing page's job form offers "Open Post New Job": a test (or a user)
      // looking for the dashboard's Post New Job would take it for the dashboard.
      if (document.querySelector('.landing')) landingShown.push(window.location.pathname);
    });
    watch.observe(document.body, { childList: true, subtree: true });
    try {
      render(<App store={makeStore()} />);
      expect(screen.getByText('Signing you in…')).toBeTruthy();
      expect(await screen.findByRole('heading', { name: 'Choose Your Role' })).toBeTruthy();
    } finally {
      watch.disconnect();
    }
    expect(landingShown).toEqual([]);
    expect(window.location.pathname).toBe('/dashboard');
  });

  it('shows the gmail_only message with the waitlist offer', async () => {
    mockFetch(() => ({ body: {} }));
    go('/#auth_error=gmail_only');
    render(<App store={makeStore()} />);
    const alert = screen.getByRole('alert', { name: 'Sign-in problem' });
    expect(within(alert).getByRole('heading').textContent).toBe(
      'Other e-mail providers coming soon',
    );
    expect(await within(alert).findByRole('form', { name: 'Join the waitlist' })).toBeTruthy();
    expect(window.location.hash).toBe('');
  });

  it('sends tester_not_approved to the tester login with its message', async () => {
    mockFetch(() => ({ body: {} }));
    go('/#auth_error=tester_not_approved');
    render(<App store={makeStore()} />);
    expect(await screen.findByRole('heading', { name: 'Secure Tester Login' })).toBeTruthy();
    expect(window.location.pathname).toBe('/login/tester');
    expect(screen.getByRole('alert').textContent).toMatch(/not approved yet/);
  });

  it('tells someone not signed up as a tester so, with the way to the signup form', async () => {
    mockFetch(() => ({ body: {} }));
    go('/#auth_error=tester_signup_needed');
    render(<App store={makeStore()} />);
    expect(await screen.findByRole('heading', { name: 'Secure Tester Login' })).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toMatch(/not signed up as a tester yet/);
    expect(screen.getByRole('alert').textContent).not.toMatch(/not approved/);
    expect(screen.getByRole('link', { name: 'Sign up to test' }).getAttribute('href')).toBe(
      '/#tester-signup',
    );
  });

  it('tells someone who signed up on the landing page that the signup waits for approval, without asking them to sign up again', async () => {
    mockFetch(() => ({ body: {} }));
    go('/#auth_error=tester_signup_pending');
    render(<App store={makeStore()} />);
    expect(await screen.findByRole('heading', { name: 'Secure Tester Login' })).toBeTruthy();
    expect(window.location.pathname).toBe('/login/tester');
    expect(screen.getByRole('status').textContent).toMatch(/has not approved your signup yet/);
    expect(screen.getByRole('status').textContent).toMatch(/no need to sign up again/);
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.queryByRole('link', { name: 'Sign up to test' })).toBeNull();
  });

  it('tells a site owner this is the tester entrance, with the site owner sign-in', async () => {
    mockFetch(() => ({ body: {} }));
    go('/#auth_error=site_owner_account');
    render(<App store={makeStore()} />);
    expect(await screen.findByRole('heading', { name: 'Secure Tester Login' })).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toMatch(/site owner account/);
    expect(screen.getByRole('link', { name: 'Sign in as a site owner' }).getAttribute('href')).toBe(
      '/api/auth/google?intent=poster',
    );
  });

  it('sends tester_released to the tester login with the paused-account message', async () => {
    mockFetch(() => ({ body: {} }));
    go('/#auth_error=tester_released');
    render(<App store={makeStore()} />);
    expect(await screen.findByRole('heading', { name: 'Secure Tester Login' })).toBeTruthy();
    expect(window.location.pathname).toBe('/login/tester');
    expect(screen.getByRole('alert').textContent).toMatch(/paused after missed deadlines/);
  });

  it("shows 'Google authentication failed' for google_failed", () => {
    mockFetch(() => ({ body: {} }));
    go('/#auth_error=google_failed');
    render(<App store={makeStore()} />);
    expect(screen.getByRole('heading', { name: 'Google authentication failed' })).toBeTruthy();
  });

  it("on auth-expired clears the user and shows 'Session expired. Please log in again.'", async () => {
    setToken('stale');
    const { calls } = mockFetch(() => ({
      status: 401,
      body: { detail: 'expired', code: 'unauthorized' },
    }));
    go('/dashboard');
    render(<App store={makeStore()} />);
    expect(await screen.findByText('Session expired. Please log in again.')).toBeTruthy();
    // The spec's banner copy, beside the login screen's message.
    expect(screen.getByText('Session expired. Re-login required.').getAttribute('role')).toBe(
      'status',
    );
    expect(window.location.pathname).toBe('/login');
    expect(getToken()).toBeNull();
    expect(calls.filter((c) => c.url === '/api/auth/refresh')).toHaveLength(1);
  });

  it("asks a user without a type to 'Choose Your Role'", async () => {
    setToken('t');
    mockFetch((c) => (c.url === '/api/me' ? { body: { ...poster, type: null } } : { body: {} }));
    go('/dashboard');
    render(<App store={makeStore()} />);
    expect(await screen.findByRole('heading', { name: 'Choose Your Role' })).toBeTruthy();
  });

  it('shows the signed-in shell and logs out', async () => {
    setToken('t');
    const { calls } = mockFetch((c) =>
      c.url === '/api/me'
        ? { body: poster }
        : c.url === '/api/auth/logout'
          ? { body: { success: true } }
          : { body: { jobs: [] } },
    );
    go('/dashboard');
    render(<App store={makeStore()} />);
    await screen.findByRole('heading', { name: 'Welcome, Pat' });
    const header = screen.getByRole('banner');
    expect(within(header).getByText('Pat Poster')).toBeTruthy();
    expect(within(header).getByText('Site owner')).toBeTruthy();
    expect(within(header).getByText('USA')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Send Feedback' }));
    expect(screen.getByRole('dialog', { name: 'Send Feedback' })).toBeTruthy();
    await userEvent.keyboard('{Escape}');
    // The account's settings sit in the Account menu (one list at every width), not in a strip.
    expect(within(header).queryByRole('button', { name: 'Your data' })).toBeNull();
    const account = within(header).getByRole('button', { name: /Account/ });
    expect(account.getAttribute('aria-expanded')).toBe('false');
    await userEvent.click(account);
    expect(account.getAttribute('aria-expanded')).toBe('true');
    expect(
      within(header)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(expect.arrayContaining(['E-mail settings', 'Sign-ins', 'Your data']));
    await userEvent.keyboard('{Escape}');
    expect(account.getAttribute('aria-expanded')).toBe('false');
    expect(document.activeElement).toBe(account);
    await userEvent.click(account);
    await userEvent.click(within(header).getByRole('button', { name: 'Your data' }));
    expect(await screen.findByRole('dialog', { name: /data/i })).toBeTruthy();
    expect(within(header).queryByRole('button', { name: 'Sign-ins' })).toBeNull();
    await userEvent.keyboard('{Escape}');
    await userEvent.click(within(header).getByRole('button', { name: 'Logout' }));
    await waitFor(() => expect(window.location.pathname).toBe('/'));
    expect(calls.some((c) => c.url === '/api/auth/logout' && c.method === 'POST')).toBe(true);
    expect(getToken()).toBeNull();
    expect(window.localStorage.getItem(LOGOUT_MARK_KEY)).toBeTruthy();
    expect(await screen.findByRole('link', { name: 'Sign in with Google' })).toBeTruthy();
  });

  it("shows a tester's location (USA, as the specification does), and Canada right after Update Your Profile", async () => {
    setToken('t');
    let me = {
      ...poster,
      name: 'Tess Tester',
      type: 'tester',
      location: 'USA',
      country: 'US',
    };
    mockFetch((c) => {
      if (c.url === '/api/me') return { body: me };
      if (c.url === '/api/users/profile') {
        // Canada is neither location: identity keeps 'USA' as the location.
        me = { ...me, country: 'CA' };
        return { body: { user: me, access_token: 't2' } };
      }
      return { body: { jobs: [], next_cursor: null } };
    });
    go('/dashboard');
    render(<App store={makeStore()} />);
    const header = await screen.findByRole('banner');
    await within(header).findByText('Tess Tester');
    expect(within(header).getByText('USA')).toBeTruthy();
    expect(within(header).queryByText('US')).toBeNull();
    await userEvent.click(await screen.findByRole('button', { name: 'Update Your Profile' }));
    await userEvent.selectOptions(screen.getByLabelText('Country'), 'CA');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(within(header).getByText('Canada')).toBeTruthy());
    expect(within(header).queryByText('USA')).toBeNull();
  });

  it('opens Settings and integrations at its own URL (a reload lands there) and goes back to the jobs', async () => {
    setToken('t');
    mockFetch((c) =>
      c.url === '/api/me'
        ? { body: poster }
        : c.url === '/api/trackers'
          ? { body: { github: null, jira: null } }
          : { body: { jobs: [], endpoints: [] } },
    );
    go('/dashboard/settings');
    render(<App store={makeStore()} />);
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Settings and integrations' }),
    ).toBeTruthy();
    await userEvent.click(screen.getByRole('link', { name: /Back to your jobs/ }));
    expect(await screen.findByRole('heading', { name: 'Welcome, Pat' })).toBeTruthy();
    expect(window.location.pathname).toBe('/dashboard');
    await userEvent.click(screen.getByRole('link', { name: 'Settings and integrations' }));
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Settings and integrations' }),
    ).toBeTruthy();
    expect(window.location.pathname).toBe('/dashboard/settings');
  });

  it('lands on when the account will be deleted (not "Session expired") after confirming the deletion', async () => {
    setToken('t');
    let deleted = false;
    mockFetch((c) => {
      if (c.method === 'POST' && c.url.includes('deletion')) {
        deleted = true;
        return {
          status: 202,
          body: scheduledDeletion,
        };
      }
      // Every sign-in has ended: any further call of the old session is refused.
      if (deleted) return { status: 401, body: { detail: 'Session ended', code: 'unauthorized' } };
      if (c.url === '/api/me') return { body: poster };
      return { body: { jobs: [], export: null, deletion: null } };
    });
    go('/dashboard');
    render(<App store={makeStore()} />);
    await screen.findByRole('heading', { name: 'Welcome, Pat' });
    await userEvent.click(screen.getByRole('button', { name: /Account/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Your data' }));
    await userEvent.type(await screen.findByLabelText(/Type your e-mail/), 'pat@gmail.com');
    await userEvent.click(screen.getByRole('button', { name: 'Delete my account' }));
    expect(
      await screen.findByRole('heading', { name: 'Your account is scheduled for deletion' }),
    ).toBeTruthy();
    expect(window.location.pathname).toBe('/account-deleted');
    expect(screen.getByRole('status').textContent).toMatch(
      /^Your account will be deleted on .*2026.*; sign in before then to cancel\.$/,
    );
    expect(screen.queryByText(/Session expired/)).toBeNull();
    expect(getToken()).toBeNull();
  });

  it("opens Your data from the data-download e-mail's link (/dashboard?open=your-data), for a poster too", async () => {
    setToken('t');
    mockFetch((c) =>
      c.url === '/api/me' ? { body: poster } : { body: { jobs: [], export: null, deletion: null } },
    );
    go('/dashboard?open=your-data');
    render(<App store={makeStore()} />);
    expect(await screen.findByRole('dialog', { name: 'Your data' })).toBeTruthy();
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(window.location.search).toBe('');
  });

  it('returns to the signed-out view at once when another tab logs out', async () => {
    setToken('t');
    mockFetch((c) => (c.url === '/api/me' ? { body: poster } : { body: { jobs: [] } }));
    go('/dashboard');
    render(<App store={makeStore()} />);
    await screen.findByRole('heading', { name: 'Welcome, Pat' });
    // What the other tab's Logout leaves in the shared localStorage, and the event it fires here.
    window.localStorage.setItem(LOGOUT_MARK_KEY, 'logout-in-tab-1');
    window.dispatchEvent(
      new StorageEvent('storage', { key: LOGOUT_MARK_KEY, newValue: 'logout-in-tab-1' }),
    );
    await waitFor(() => expect(window.location.pathname).toBe('/'));
    expect(await screen.findByRole('link', { name: 'Sign in with Google' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Logout' })).toBeNull();
    expect(getToken()).toBeNull();
  });

  it('does not reopen the dashboard on reload with a token stored before a logout in another tab', async () => {
    setToken('t'); // this tab's token, stored before the other tab logged out
    window.localStorage.setItem(LOGOUT_MARK_KEY, 'logout-in-tab-1');
    document.cookie = 'XSRF-TOKEN=x; path=/';
    const { calls } = mockFetch((c) =>
      c.url === '/api/auth/refresh'
        ? { status: 401, body: { detail: 'Please sign in.', code: 'unauthorized' } }
        : { body: poster },
    );
    go('/dashboard');
    render(<App store={makeStore()} />);
    await waitFor(() => expect(window.location.pathname).toBe('/login'));
    expect(calls.some((c) => c.url === '/api/auth/refresh')).toBe(true);
    expect(screen.queryByRole('button', { name: 'Logout' })).toBeNull();
    expect(calls.some((c) => c.url === '/api/me')).toBe(false);
    expect(getToken()).toBeNull();
  });

  it('keeps a token stored after the last logout (signing in again)', () => {
    window.localStorage.setItem(LOGOUT_MARK_KEY, 'earlier-logout');
    setToken('fresh');
    expect(getToken()).toBe('fresh');
  });

  it('opens the job an e-mail linked to after signing in (/dashboard?job=ID kept across the sign-in)', async () => {
    mockFetch((c) => {
      if (c.url === '/api/auth/session') return { body: { access_token: 'T1' } };
      if (c.url === '/api/me') return { body: poster };
      return { body: { jobs: [] } };
    });
    go('/dashboard?job=job-1');
    const first = render(<App store={makeStore()} />);
    expect(window.location.pathname).toBe('/login');
    first.unmount();
    // Back from Google in the same tab.
    go('/#session_id=S-9');
    render(<App store={makeStore()} />);
    expect(await screen.findByRole('heading', { name: 'Welcome, Pat' })).toBeTruthy();
    expect(`${window.location.pathname}${window.location.search}`).toBe('/dashboard?job=job-1');
  });

  it('shows a loading state, not the sign-in page, while a reload restores the session on a slow network', async () => {
    document.cookie = 'XSRF-TOKEN=x; path=/';
    let answer!: () => void;
    const held = new Promise<void>((r) => (answer = r));
    mockFetch(async (c) => {
      if (c.url === '/api/auth/refresh') {
        await held;
        return { body: { access_token: 'fresh' } };
      }
      return { body: c.url === '/api/me' ? poster : { jobs: [] } };
    });
    go('/dashboard');
    render(<App store={makeStore()} />);
    expect(screen.getByRole('status').textContent).toBe('Starting your session…');
    expect(screen.queryByRole('heading', { name: 'Sign in' })).toBeNull();
    expect(window.location.pathname).toBe('/dashboard');
    answer();
    expect(await screen.findByRole('button', { name: 'Logout' })).toBeTruthy();
    expect(window.location.pathname).toBe('/dashboard');
    expect(screen.queryByRole('heading', { name: 'Sign in' })).toBeNull();
  });

  it('redirects /dashboard to the login screen when signed out', () => {
    mockFetch(() => ({ body: {} }));
    go('/dashboard');
    render(<App store={makeStore()} />);
    expect(window.location.pathname).toBe('/login');
    expect(screen.getByRole('heading', { name: 'Sign in' })).toBeTruthy();
  });
});
