import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setToken } from '../../../lib/tokens';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage } from '../../../test/setup';
import { PrivacyTab } from './privacy-tab';

Element.prototype.scrollIntoView = function () {} as Element['scrollIntoView'];

const ID = '3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

beforeEach(() => {
  resetStorage();
  setToken('admin');
});

describe('Privacy: a request for a user who asked by e-mail', () => {
  it('says what is wrong with the user id and sends nothing', async () => {
    const { calls } = mockFetch(() => ({ body: { exports: [], deletions: [] } }));
    renderWithStore(<PrivacyTab />);
    await userEvent.click(screen.getByRole('button', { name: 'Run a data export' }));
    expect(screen.getByText('Enter the user id of the person who wrote in.')).toBeTruthy();
    await userEvent.type(screen.getByLabelText('User id'), 'pat@gmail.com');
    await userEvent.click(screen.getByRole('button', { name: 'Run a data export' }));
    expect(screen.getByText(/A user id looks like 3f2b…-…/)).toBeTruthy();
    expect(screen.getByLabelText('User id').getAttribute('aria-invalid')).toBe('true');
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(0);
  });

  it('runs an export, and schedules a deletion with the e-mail typed', async () => {
    const { calls } = mockFetch((c) =>
      c.method === 'POST' ? { status: 202, body: {} } : { body: { exports: [], deletions: [] } },
    );
    renderWithStore(<PrivacyTab />);
    const deletion = screen.getByRole('button', { name: 'Schedule account deletion' });
    expect((deletion as HTMLButtonElement).disabled).toBe(true);
    await userEvent.type(screen.getByLabelText('User id'), ` ${ID} `);
    await userEvent.click(screen.getByRole('button', { name: 'Run a data export' }));
    expect((await screen.findByRole('status')).textContent).toBe(
      'Export started: the user gets the link by e-mail.',
    );
    await userEvent.type(screen.getByLabelText(/Their e-mail/), 'pat@gmail.com');
    await userEvent.click(deletion);
    await waitFor(() => expect(calls.filter((c) => c.method === 'POST')).toHaveLength(2));
    const posts = calls.filter((c) => c.method === 'POST');
    expect(posts[0].url).toBe(`/api/admin/users/${ID}/export`);
    expect(posts[1]).toMatchObject({
      url: `/api/admin/users/${ID}/deletion`,
      body: { email: 'pat@gmail.com' },
    });
  });
});
