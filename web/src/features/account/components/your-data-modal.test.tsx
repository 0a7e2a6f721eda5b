import '../../../test/setup';
import { scheduledDeletion } from '../../../test/privacy';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setToken } from '../../../lib/tokens';
import type { UserDto as User } from '@htm/contracts/identity';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage, type Call } from '../../../test/setup';
import YourDataModal from './your-data-modal';

const user = { id: 'u1', email: 'pat@gmail.com', name: 'Pat', type: 'poster' } as User;
const exportOf = (over: Record<string, unknown>) => ({
  id: 'e1',
  user_id: 'u1',
  status: 'building',
  parts_done: ['identity', 'jobs'],
  parts_total: 6,
  progress: 29,
  requested_at: '2026-11-26T05:00:00.000Z',
  ready_at: null,
  expires_at: null,
  size_bytes: null,
  requested_by_admin: false,
  next_allowed_at: '2099-11-27T05:00:00.000Z',
  ...over,
});

beforeEach(() => {
  resetStorage();
  setToken('t');
});

describe('Your data in the profile', () => {
  it('starts a download, shows its progress, then says the link was e-mailed', async () => {
    let privacyCalls = 0;
    const { calls } = mockFetch((c: Call) => {
      if (c.method === 'POST')
        return {
          status: 202,
          body: { export: exportOf({ status: 'pending', parts_done: [], progress: 0 }) },
        };
      privacyCalls += 1;
      if (privacyCalls === 1) return { body: { export: null, deletion: null } };
      if (privacyCalls === 2) return { body: { export: exportOf({}), deletion: null } };
      return {
        body: {
          export: exportOf({
            status: 'ready',
            progress: 100,
            parts_done: ['identity', 'jobs', 'payments', 'admin', 'notifications', 'analytics'],
            expires_at: '2099-11-27T05:00:00.000Z',
          }),
          deletion: null,
        },
      };
    });
    renderWithStore(
      <YourDataModal user={user} onClose={() => undefined} onDeleted={() => undefined} />,
    );
    await userEvent.click(await screen.findByRole('button', { name: 'Download my data' }));
    expect(calls.some((c) => c.method === 'POST' && /\/api\/me\/exports$/.test(c.url))).toBe(true);
    expect(await screen.findByText(/Preparing your download: 29%/)).toBeTruthy();
    expect(
      screen.getByText(/profile and sign-ins, jobs, reports and files \(2 of 6\)/),
    ).toBeTruthy();
    expect(
      await screen.findByText(/we e-mailed a link to pat@gmail.com/, {}, { timeout: 5000 }),
    ).toBeTruthy();
    expect(
      (screen.getByRole('button', { name: 'Download my data' }) as HTMLButtonElement).disabled,
    ).toBe(true);
  });

  it('refuses a deletion without the right e-mail, shows why the server refused, then reports the date', async () => {
    let refused = false;
    const { calls } = mockFetch((c: Call) => {
      if (c.method === 'POST' && !refused) {
        refused = true;
        return {
          status: 409,
          body: {
            detail:
              'Your account cannot be deleted yet. You are owed $0.82 that cannot be paid yet.',
            code: 'deletion_blocked',
          },
        };
      }
      if (c.method === 'POST')
        return {
          status: 202,
          body: scheduledDeletion,
        };
      return { body: { export: null, deletion: null } };
    });
    let deleted: string | null = null;
    renderWithStore(
      <YourDataModal user={user} onClose={() => undefined} onDeleted={(m) => (deleted = m)} />,
    );
    const input = await screen.findByLabelText(/Type your e-mail/);
    await userEvent.type(input, 'someone@gmail.com');
    await userEvent.click(screen.getByRole('button', { name: 'Delete my account' }));
    expect(await screen.findByText(/That is not the e-mail address of this account/)).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(0);

    await userEvent.clear(input);
    await userEvent.type(input, 'Pat@gmail.com');
    await userEvent.click(screen.getByRole('button', { name: 'Delete my account' }));
    expect(await screen.findByText(/You are owed \$0.82/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Delete my account' }));
    await waitFor(() => expect(deleted).toBe('2026-12-03T05:00:00.000Z'));
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([
      { email: 'Pat@gmail.com' },
      { email: 'Pat@gmail.com' },
    ]);
  });
});
