import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserDto as User } from '@htm/contracts/identity';
import { TRACKER_MESSAGES } from '@htm/contracts/reports';
import { setToken } from '../../../lib/tokens';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage } from '../../../test/setup';
import PosterDashboard from './poster-dashboard';
import SettingsPage from './settings-page';

const poster = {
  id: 'p1',
  email: 'pat@gmail.com',
  name: 'Pat Poster',
  type: 'poster',
  location: 'USA',
  country: null,
  approved: true,
} as User;

beforeEach(() => {
  resetStorage();
  setToken('t');
});

describe('Settings and integrations', () => {
  it("keeps webhooks and issue trackers off a new owner's dashboard, one link away", async () => {
    mockFetch((c) => (c.url === '/api/jobs' ? { body: { jobs: [] } } : { body: {} }));
    renderWithStore(<PosterDashboard user={poster} />);
    expect(await screen.findByText(/No jobs yet/)).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Webhooks' })).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Issue trackers' })).toBeNull();
    expect(
      screen.getByRole('link', { name: 'Settings and integrations' }).getAttribute('href'),
    ).toBe('/dashboard/settings');
  });

  it('shows webhooks and both trackers, with a way back to the jobs', async () => {
    mockFetch((c) =>
      c.url === '/api/trackers'
        ? { body: { github: null, jira: null } }
        : { body: { endpoints: [] } },
    );
    renderWithStore(<SettingsPage />, { route: '/dashboard/settings' });
    expect(
      screen.getByRole('heading', { level: 1, name: 'Settings and integrations' }),
    ).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Webhooks' })).toBeTruthy();
    expect(screen.getByRole('form', { name: 'GitHub' })).toBeTruthy();
    expect(screen.getByRole('form', { name: 'Jira' })).toBeTruthy();
    expect(screen.getByRole('link', { name: /Back to your jobs/ }).getAttribute('href')).toBe(
      '/dashboard',
    );
  });

  it('shows what the tracker refused under the field to change, and stays unconnected', async () => {
    const detail =
      'GitHub refused this token: check that you copied all of it and that it has not expired.';
    const { calls } = mockFetch((c) => {
      if (c.url === '/api/trackers') return { body: { github: null, jira: null } };
      if (c.url === '/api/trackers/github')
        return {
          status: 400,
          body: { detail, code: 'tracker_unauthorized', errors: { token: [detail] } },
        };
      return { body: { endpoints: [] } };
    });
    renderWithStore(<SettingsPage />, { route: '/dashboard/settings' });
    const form = screen.getByRole('form', { name: 'GitHub' });
    await userEvent.type(screen.getByLabelText('Repository (owner/name)'), 'acme/shop');
    await userEvent.type(screen.getByLabelText(/Fine-grained token/), 'github_pat_madeup');
    await userEvent.click(screen.getByRole('button', { name: 'Connect GitHub' }));
    await waitFor(() => expect(form.textContent).toContain(detail));
    const token = screen.getByLabelText(/Fine-grained token/);
    expect(token.getAttribute('aria-invalid')).toBe('true');
    expect(calls.filter((c) => c.url === '/api/trackers/github')[0].body).toEqual({
      token: 'github_pat_madeup',
      repository: 'acme/shop',
    });
    expect(screen.queryByText(/Connected to/)).toBeNull();
  });

  it('says what is wrong with a Jira connection before sending it, then sends the corrected one', async () => {
    const { calls } = mockFetch((c) => {
      if (c.url === '/api/trackers') return { body: { github: null, jira: null } };
      if (c.url === '/api/trackers/jira') return { status: 201, body: {} };
      return { body: { endpoints: [] } };
    });
    renderWithStore(<SettingsPage />, { route: '/dashboard/settings' });
    const form = within(screen.getByRole('form', { name: 'Jira' }));
    await userEvent.type(form.getByLabelText('Site URL'), 'http://acme.atlassian.net');
    await userEvent.type(form.getByLabelText('Account e-mail'), 'pat@gmail.com');
    await userEvent.type(form.getByLabelText('API token'), 'jira-token');
    await userEvent.type(form.getByLabelText('Project key'), 'web');
    await userEvent.click(form.getByRole('button', { name: 'Connect Jira' }));
    expect(form.getByText(TRACKER_MESSAGES.siteHttps)).toBeTruthy();
    expect(form.getByText(TRACKER_MESSAGES.projectKey)).toBeTruthy();
    expect(form.getByLabelText('Site URL').getAttribute('aria-invalid')).toBe('true');
    expect(calls.filter((c) => c.url === '/api/trackers/jira')).toHaveLength(0);

    await userEvent.clear(form.getByLabelText('Site URL'));
    await userEvent.type(form.getByLabelText('Site URL'), 'https://acme.atlassian.net/');
    await userEvent.clear(form.getByLabelText('Project key'));
    await userEvent.type(form.getByLabelText('Project key'), 'WEB');
    await userEvent.click(form.getByRole('button', { name: 'Connect Jira' }));
    await waitFor(() =>
      expect(calls.filter((c) => c.url === '/api/trackers/jira')).toHaveLength(1),
    );
    expect(calls.find((c) => c.url === '/api/trackers/jira')?.body).toEqual({
      site_url: 'https://acme.atlassian.net',
      email: 'pat@gmail.com',
      api_token: 'jira-token',
      project_key: 'WEB',
    });
    await waitFor(() =>
      expect((form.getByLabelText('API token') as HTMLInputElement).value).toBe(''),
    );
  });
});
