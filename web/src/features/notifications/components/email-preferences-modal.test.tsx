import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setToken } from '../../../lib/tokens';
import type { UserDto as User } from '@htm/contracts/identity';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage, type Call } from '../../../test/setup';
import EmailPreferencesModal from './email-preferences-modal';

const all = {
  job_claimed: true,
  work_submitted: true,
  auto_accepted: true,
  tester_approved: true,
  revision_requested: true,
  submission_accepted: true,
  tester_paid: false,
};

beforeEach(() => {
  resetStorage();
  setToken('t');
});

describe('E-mail settings in the profile', () => {
  it("shows a tester's kinds as they are and saves a switch turned off", async () => {
    const { calls } = mockFetch((c: Call) =>
      c.method === 'PATCH'
        ? { body: { preferences: { ...all, ...(c.body as object) } } }
        : { body: { preferences: all } },
    );
    const user = { id: 'u1', email: 'tess@gmail.com', name: 'Tess', type: 'tester' } as User;
    let closed = false;
    renderWithStore(<EmailPreferencesModal user={user} onClose={() => (closed = true)} />);

    const paid = await screen.findByRole('checkbox', { name: 'You were paid out' });
    expect((paid as HTMLInputElement).checked).toBe(false);
    expect(screen.queryByRole('checkbox', { name: 'A tester is on your job' })).toBeNull();
    await userEvent.click(
      screen.getByRole('checkbox', { name: 'The poster asked for a revision' }),
    );
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(closed).toBe(true));
    const patch = calls.find((c) => c.method === 'PATCH')!;
    expect(patch.url).toMatch(/\/api\/notifications\/preferences$/);
    expect(patch.body).toEqual({
      tester_approved: true,
      revision_requested: false,
      submission_accepted: true,
      tester_paid: false,
    });
  });
});
