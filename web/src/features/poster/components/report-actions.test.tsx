import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setToken } from '../../../lib/tokens';
import type { JobView as Job } from '@htm/contracts/jobs';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage } from '../../../test/setup';
import { ReportActions } from './report-actions';
import { WebhooksSettings } from './webhooks-settings';

beforeEach(() => {
  resetStorage();
  setToken('poster-token');
});

const job = { id: 'job-12345678', title: 'Bakery', status: 'completed' } as Job;

describe('sharing the report', () => {
  it('makes a share link, shows it with its expiry, and revokes it', async () => {
    const { calls } = mockFetch((c) =>
      c.method === 'POST'
        ? { status: 201, body: { url: '/r/tok', token: 'tok', expires_at: '2026-12-26T10:00:00Z' } }
        : { status: 204, body: '' },
    );
    renderWithStore(<ReportActions job={job} />);
    await userEvent.click(screen.getByRole('button', { name: 'Share link' }));
    const input = await screen.findByLabelText(/Anyone with this link can read the report/);
    expect((input as HTMLInputElement).value).toBe(`${window.location.origin}/r/tok`);
    expect(screen.getByText(/Works until/)).toBeTruthy();
    expect(
      calls.filter((c) => c.url === '/api/jobs/job-12345678/share').map((c) => c.method),
    ).toEqual(['POST']);
    await userEvent.click(screen.getByRole('button', { name: 'Revoke link' }));
    await waitFor(() => expect(screen.queryByLabelText(/Anyone with this link/)).toBeNull());
    expect(
      calls.filter((c) => c.url === '/api/jobs/job-12345678/share').map((c) => c.method),
    ).toEqual(['POST', 'DELETE']);
    expect(screen.getByRole('button', { name: 'Share link' })).toBeTruthy();
  });

  it('says why a link cannot be made', async () => {
    mockFetch(() => ({
      status: 409,
      body: {
        detail: 'There is no report to share yet: no work has been submitted for this job.',
        code: 'no_submission',
      },
    }));
    renderWithStore(<ReportActions job={job} />);
    await userEvent.click(screen.getByRole('button', { name: 'Share link' }));
    await waitFor(() => expect(screen.getByText(/no report to share yet/)).toBeTruthy());
  });
});

describe('send findings to an issue tracker', () => {
  it('lists the findings in the order shown above them (worst first) and sends each by its own index', async () => {
    const none = { steps: null, expected: null, actual: null, at_ms: null };
    const { calls } = mockFetch((c) => {
      if (c.url === '/api/trackers')
        return { body: { github: { repository: 'acme/site' }, jira: null } };
      if (c.url.endsWith('/issues')) return { body: { issues: [] } };
      if (c.url.endsWith('/submission'))
        return {
          body: {
            human_preview: { key_findings_bullets: ['Odd spacing', 'Checkout crashes'] },
            findings: [
              { text: 'Odd spacing', severity: 'cosmetic', ...none },
              { text: 'Checkout crashes', severity: 'blocker', ...none },
            ],
          },
        };
      return { status: 201, body: { finding_index: 1, tracker: 'github', url: 'https://x/1' } };
    });
    renderWithStore(<ReportActions job={job} />);
    const heading = await screen.findByRole('heading', {
      name: 'Send findings to your issue tracker',
    });
    const items = within(heading.parentElement!.querySelector('ol')!).getAllByRole('listitem');
    expect(items.map((li) => li.textContent)).toEqual([
      expect.stringContaining('Checkout crashes'),
      expect.stringContaining('Odd spacing'),
    ]);
    await userEvent.click(within(items[0]).getByRole('button', { name: 'Send to GitHub' }));
    await waitFor(() =>
      expect(calls.some((c) => c.url === '/api/jobs/job-12345678/findings/1/issue')).toBe(true),
    );
  });
});

describe('webhooks settings', () => {
  it('checks the address, shows the secret once, and lists the endpoint', async () => {
    let endpoints: unknown[] = [];
    const { calls } = mockFetch((c) => {
      if (c.method === 'POST') {
        endpoints = [
          {
            id: 'ep1',
            url: 'https://hooks.example/in',
            events: [],
            created_at: '2026-01-01T00:00:00Z',
            disabled_at: null,
          },
        ];
        return { status: 201, body: { ...(endpoints[0] as object), secret: 'whsec_abc' } };
      }
      return { status: 200, body: { endpoints } };
    });
    renderWithStore(<WebhooksSettings />);
    await userEvent.type(screen.getByLabelText('Endpoint URL'), 'ftp://x');
    await userEvent.click(screen.getByRole('button', { name: 'Add endpoint' }));
    expect(screen.getByRole('alert').textContent).toContain('starting with https://');
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(0);
    await userEvent.clear(screen.getByLabelText('Endpoint URL'));
    await userEvent.type(screen.getByLabelText('Endpoint URL'), 'https://hooks.example/in');
    await userEvent.click(screen.getByRole('button', { name: 'Add endpoint' }));
    expect(((await screen.findByLabelText('Signing secret')) as HTMLInputElement).value).toBe(
      'whsec_abc',
    );
    // Listed as an endpoint (not only named in the secret's notice).
    await waitFor(() =>
      expect(within(screen.getByRole('list')).getByText('https://hooks.example/in')).toBeTruthy(),
    );
    await userEvent.click(screen.getByRole('button', { name: 'I have copied it' }));
    expect(screen.queryByLabelText('Signing secret')).toBeNull();
  });
});
