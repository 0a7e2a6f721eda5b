import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { getToken, setToken } from '../../../lib/tokens';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage } from '../../../test/setup';
import { WHO_CAN_TEST } from '@htm/contracts/marketplace';
import { rememberIntent } from '../../../lib/sign-in-intent';
import { ChooseRole } from './choose-role';

beforeEach(() => {
  resetStorage();
  setToken('first');
});

describe('Choose Your Role', () => {
  it('requires role and location, and for testers a country (their location follows it)', async () => {
    const { calls } = mockFetch(() => ({ body: {} }));
    renderWithStore(<ChooseRole />);
    await userEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByText('Please choose a role')).toBeTruthy();
    expect(screen.getByText('Please choose a location')).toBeTruthy();
    // Focus goes to the first field in reading order that needs an answer: the role, above Location.
    await waitFor(() =>
      expect(document.activeElement).toBe(screen.getByRole('radio', { name: /Site owner/ })),
    );
    expect(screen.queryByLabelText('Country')).toBeNull();
    await userEvent.click(screen.getByLabelText(/Tester/));
    // A tester is asked where they are, not which market: no Location to pick.
    expect(screen.queryByLabelText('Location')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByText('Please choose a country')).toBeTruthy();
    expect(screen.queryByText('Please choose a location')).toBeNull();
    expect(calls).toHaveLength(0);
  });

  it('clears a field error once that field changes', async () => {
    mockFetch(() => ({ body: {} }));
    renderWithStore(<ChooseRole />);
    await userEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByText('Please choose a role')).toBeTruthy();
    await userEvent.click(screen.getByLabelText(/Site owner/));
    expect(screen.queryByText('Please choose a role')).toBeNull();
    expect(screen.getByText('Please choose a location')).toBeTruthy();
    await userEvent.selectOptions(screen.getByLabelText('Location'), 'USA');
    expect(screen.queryByText('Please choose a location')).toBeNull();
  });

  it('posts users/init and stores the fresh token', async () => {
    const { calls } = mockFetch(() => ({
      body: { user: { id: 'u', type: 'tester' }, access_token: 'second' },
    }));
    let done = false;
    renderWithStore(<ChooseRole onDone={() => (done = true)} />);
    await userEvent.click(screen.getByLabelText(/Tester/));
    // A Canadian tester picks only the country (recorded with the USA market).
    await userEvent.selectOptions(screen.getByLabelText('Country'), 'CA');
    await userEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(done).toBe(true));
    expect(calls[0].url).toBe('/api/users/init');
    expect(calls[0].body).toEqual({ type: 'tester', location: 'USA', country: 'CA' });
    expect(getToken()).toBe('second');
  });

  it("sends no country for a poster and shows 'Initialization failed' on failure", async () => {
    const { calls } = mockFetch(() => ({ status: 500, body: '' }));
    renderWithStore(<ChooseRole />);
    await userEvent.click(screen.getByLabelText(/Site owner/));
    await userEvent.selectOptions(screen.getByLabelText('Location'), 'USA');
    await userEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Initialization failed');
    expect(calls[0].body).toEqual({ type: 'poster', location: 'USA' });
  });

  it('makes the location follow a US or PR country', async () => {
    const { calls } = mockFetch(() => ({ body: { user: { id: 'u' }, access_token: 'x' } }));
    renderWithStore(<ChooseRole />);
    await userEvent.click(screen.getByLabelText(/Tester/));
    await userEvent.selectOptions(screen.getByLabelText('Country'), 'PR');
    await userEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].body).toEqual({ type: 'tester', location: 'PR', country: 'PR' });
  });

  it('offers a way out: Logout', async () => {
    mockFetch(() => ({ body: {} }));
    let out = 0;
    renderWithStore(<ChooseRole onLogout={() => void out++} />);
    await userEvent.click(screen.getByRole('button', { name: 'Logout' }));
    expect(out).toBe(1);
  });

  it('preselects the role the visitor set out with (Tester Login), and explains the country', async () => {
    mockFetch(() => ({ body: {} }));
    rememberIntent('tester');
    renderWithStore(<ChooseRole />);
    expect((screen.getByLabelText(/Tester/) as HTMLInputElement).checked).toBe(true);
    expect(screen.getByText(WHO_CAN_TEST.summary)).toBeTruthy();
    expect(screen.getByLabelText('Country').getAttribute('aria-describedby')).toBeTruthy();
    expect(screen.getByText(WHO_CAN_TEST.country)).toBeTruthy();
  });

  it("preselects site owner after 'Get Your Site Tested', and nothing without an intent", async () => {
    mockFetch(() => ({ body: {} }));
    rememberIntent('poster');
    const { unmount } = renderWithStore(<ChooseRole />);
    expect((screen.getByLabelText(/Site owner/) as HTMLInputElement).checked).toBe(true);
    expect(screen.queryByText(WHO_CAN_TEST.summary)).toBeNull();
    unmount();
    resetStorage();
    renderWithStore(<ChooseRole />);
    expect((screen.getByLabelText(/Site owner/) as HTMLInputElement).checked).toBe(false);
    expect((screen.getByLabelText(/Tester/) as HTMLInputElement).checked).toBe(false);
  });
});
