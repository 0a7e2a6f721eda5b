import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserDto as User } from '@htm/contracts/identity';
import { setToken } from '../../../lib/tokens';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage } from '../../../test/setup';
import { ProfileModal } from './profile-modal';

Element.prototype.scrollIntoView = function () {} as Element['scrollIntoView'];

beforeEach(() => {
  resetStorage();
  setToken('t');
});

const tester: User = {
  id: 't1',
  email: 'tess@gmail.com',
  name: 'Tess',
  type: 'tester',
  location: 'USA',
  country: null,
  approved: true,
  released: false,
  created_at: '2026-01-01T00:00:00.000Z',
};

describe('Update Your Profile', () => {
  it("says 'Please choose a country' without one, and sends nothing", async () => {
    const { calls } = mockFetch(() => ({ body: {} }));
    renderWithStore(<ProfileModal user={tester} onClose={() => undefined} />);
    await userEvent.click(screen.getByLabelText('I use a screen reader'));
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByText('Please choose a country')).toBeTruthy();
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText('Country')));
    expect(calls).toHaveLength(0);
  });

  it('sends the country and the assistive technology in the order they were ticked', async () => {
    const { calls } = mockFetch(() => ({
      body: { user: { ...tester, country: 'PR' }, access_token: 'newer' },
    }));
    let closed = false;
    renderWithStore(<ProfileModal user={tester} onClose={() => (closed = true)} />);
    await userEvent.selectOptions(screen.getByLabelText('Country'), 'PR');
    await userEvent.click(screen.getByLabelText('I use captions'));
    await userEvent.click(screen.getByLabelText('I use only a keyboard'));
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(closed).toBe(true));
    expect(calls[0]).toMatchObject({
      url: '/api/users/profile',
      method: 'PATCH',
      body: { country: 'PR', assistive_tech: ['captions', 'keyboard_only'] },
    });
  });

  it("shows the server's reason, else 'Failed to update profile'", async () => {
    mockFetch(() => ({ status: 500, body: '' }));
    renderWithStore(<ProfileModal user={{ ...tester, country: 'US' }} onClose={() => undefined} />);
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to update profile');
  });
});
