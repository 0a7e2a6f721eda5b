import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setToken } from '../../../lib/tokens';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage, type Call } from '../../../test/setup';
import SignInsModal from './sign-ins-modal';

const now = new Date().toISOString();
const sessions = [
  {
    id: 'a1',
    device: 'Chrome on Windows',
    user_agent: 'x',
    created_at: now,
    last_used_at: now,
    expires_at: now,
    current: true,
  },
  {
    id: 'b2',
    device: 'Safari on iPhone',
    user_agent: 'y',
    created_at: now,
    last_used_at: now,
    expires_at: now,
    current: false,
  },
];

beforeEach(() => {
  resetStorage();
  setToken('t');
});

function server() {
  let list = sessions;
  return mockFetch((c: Call) => {
    if (c.method === 'DELETE') {
      list = list.filter((s) => !c.url.endsWith(`/${s.id}`));
      return { body: { success: true } };
    }
    if (c.url.endsWith('/api/auth/logout-all')) return { body: { success: true, ended: 2 } };
    return { body: { sessions: list } };
  });
}

describe('Sign-ins in the account', () => {
  it('lists every signed-in browser, marks this one, and signs another one out after asking', async () => {
    const { calls } = server();
    let signedOut = false;
    renderWithStore(
      <SignInsModal onClose={() => undefined} onSignedOut={() => (signedOut = true)} />,
    );
    const list = await screen.findByRole('list', { name: 'Sign-ins' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(2);
    const phone = within(list).getByText('Safari on iPhone').closest('li')!;
    expect(
      within(within(list).getByText('Chrome on Windows').closest('li')!).getByText('This browser'),
    ).toBeTruthy();

    await userEvent.click(within(phone).getByRole('button', { name: 'Sign out' }));
    await userEvent.click(within(phone).getByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(screen.queryByText('Safari on iPhone')).toBeNull());
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual([
      '/api/auth/sessions/b2',
    ]);
    expect(signedOut).toBe(false);
  });

  it('logs out everywhere and then signs this tab out', async () => {
    const { calls } = server();
    let signedOut = false;
    renderWithStore(
      <SignInsModal onClose={() => undefined} onSignedOut={() => (signedOut = true)} />,
    );
    await screen.findByRole('list', { name: 'Sign-ins' });
    await userEvent.click(screen.getByRole('button', { name: 'Log out everywhere' }));
    await userEvent.click(screen.getByRole('button', { name: 'Log out everywhere' }));
    await waitFor(() => expect(signedOut).toBe(true));
    expect(calls.some((c) => c.method === 'POST' && c.url === '/api/auth/logout-all')).toBe(true);
  });
});
