import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { LEAD_MESSAGES, TESTER_SIGNUP_ROLES, WAITLIST_MESSAGES } from '@htm/contracts/admin';
import { FeedbackForm } from '../../../components/feedback-form';
import { setToken } from '../../../lib/tokens';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage } from '../../../test/setup';
import { MSG, TESTER_ROLES } from '../landing-rules';
import { DeveloperLeadForm } from './developer-lead-form';
import { JobRequestForm } from './job-request-form';
import { TesterSignupForm } from './tester-signup-form';
import { WaitlistForm } from './waitlist-form';

beforeEach(() => resetStorage());

describe('landing messages', () => {
  it('are the same words as the shared contracts', () => {
    for (const k of [
      'fillAllFields',
      'waitlistSuccess',
      'waitlistFailure',
      'alreadySignedUp',
      'signupFailure',
      'signInFirst',
      'jobRequestFailure',
      'roleRequired',
      'urlInvalid',
      'urlRequired',
      'needsRequired',
    ] as const) {
      expect(MSG[k]).toBe(WAITLIST_MESSAGES[k]);
    }
    expect(MSG.thoughtsRequired).toBe(LEAD_MESSAGES.thoughtsRequired);
    expect(MSG.failure).toBe(LEAD_MESSAGES.failure);
    expect([...TESTER_ROLES]).toEqual([...TESTER_SIGNUP_ROLES]);
  });
});

describe('waitlist form', () => {
  it('keeps submit disabled until name and email are both filled', async () => {
    mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<WaitlistForm />);
    const button = screen.getByRole('button', { name: 'Join Waitlist' });
    expect((button as HTMLButtonElement).disabled).toBe(true);
    await userEvent.type(screen.getByLabelText('Name'), 'Ann');
    expect((button as HTMLButtonElement).disabled).toBe(true);
    await userEvent.type(screen.getByLabelText('Email'), '   ');
    expect((button as HTMLButtonElement).disabled).toBe(true);
    await userEvent.type(screen.getByLabelText('Email'), 'a@b.co');
    expect((button as HTMLButtonElement).disabled).toBe(false);
  });

  it("says 'Please fill in all fields' for a one-letter name and sends nothing", async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<WaitlistForm />);
    await userEvent.type(screen.getByLabelText('Name'), 'A');
    await userEvent.type(screen.getByLabelText('Email'), 'a@yahoo.com');
    await userEvent.click(screen.getByRole('button', { name: 'Join Waitlist' }));
    expect(screen.getByRole('alert').textContent).toBe('Please fill in all fields');
    expect(calls).toHaveLength(0);
  });

  it('sends trimmed lowercased email with role tester, shows success and clears the fields', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<WaitlistForm />);
    await userEvent.type(screen.getByLabelText('Name'), '  Ann Lee ');
    await userEvent.type(screen.getByLabelText('Email'), '  Ann@Yahoo.COM ');
    await userEvent.click(screen.getByRole('button', { name: 'Join Waitlist' }));
    expect((await screen.findByRole('status')).textContent).toBe(
      "Successfully joined waitlist! We'll notify you when we support all email providers.",
    );
    expect(calls[0].url).toBe('/api/waitlist');
    expect(calls[0].method).toBe('POST');
    expect(calls[0].body).toEqual({
      email: 'ann@yahoo.com',
      role: 'tester',
      name: 'Ann Lee',
      note: 'Ann Lee',
    });
    expect((screen.getByLabelText('Name') as HTMLInputElement).value).toBe('');
    expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('');
  });

  it("shows 'Failed to join waitlist' when the answer is not a success", async () => {
    mockFetch(() => ({ status: 500, body: 'oops' }));
    renderWithStore(<WaitlistForm />);
    await userEvent.type(screen.getByLabelText('Name'), 'Ann');
    await userEvent.type(screen.getByLabelText('Email'), 'ann@yahoo.com');
    await userEvent.click(screen.getByRole('button', { name: 'Join Waitlist' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to join waitlist');
    expect((screen.getByLabelText('Name') as HTMLInputElement).value).toBe('Ann');
  });
});

describe('tester signup form', () => {
  const fill = async (email = 'tess@gmail.com', role: string = 'Tester (student)') => {
    if (email) await userEvent.type(screen.getByLabelText('Gmail address'), email);
    if (role) await userEvent.selectOptions(screen.getByLabelText('Which describes you?'), role);
  };

  it('offers the four tester roles', () => {
    renderWithStore(<TesterSignupForm />);
    const options = within(screen.getByLabelText('Which describes you?'))
      .getAllByRole('option')
      .map((o) => o.textContent);
    expect(options.slice(1)).toEqual([
      'Tester (9-to-5)',
      'Tester (Global community)',
      'Tester (indie/agency)',
      'Tester (student)',
    ]);
  });

  it('requires email and role, and contact info must be a URL', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<TesterSignupForm />);
    await userEvent.type(screen.getByLabelText(/Contact info/), 'my linkedin');
    await userEvent.click(screen.getByRole('button', { name: 'Sign Up to Test' }));
    expect(screen.getByText('Email is required')).toBeTruthy();
    expect(screen.getByText('Please choose a role')).toBeTruthy();
    expect(
      screen.getByText('Please enter a valid URL (starting with http:// or https://)'),
    ).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it('sends email, role, contact url and about-you as note', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<TesterSignupForm />);
    await fill();
    await userEvent.type(screen.getByLabelText(/Contact info/), 'https://linkedin.com/in/tess');
    await userEvent.type(screen.getByLabelText(/About you/), 'CS student');
    await userEvent.click(screen.getByRole('button', { name: 'Sign Up to Test' }));
    expect(await screen.findByRole('status')).toBeTruthy();
    expect(calls[0].body).toEqual({
      email: 'tess@gmail.com',
      role: 'Tester (student)',
      url: 'https://linkedin.com/in/tess',
      note: 'CS student',
    });
  });

  it("answers 409 with 'Already signed up! You'll hear from us soon.'", async () => {
    mockFetch(() => ({ status: 409, body: { detail: 'duplicate', code: 'conflict' } }));
    renderWithStore(<TesterSignupForm />);
    await fill();
    await userEvent.click(screen.getByRole('button', { name: 'Sign Up to Test' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      "Already signed up! You'll hear from us soon.",
    );
  });

  it("answers a network failure with 'Failed to sign up. Please try again.'", async () => {
    mockFetch(() => 'network-error');
    renderWithStore(<TesterSignupForm />);
    await fill();
    await userEvent.click(screen.getByRole('button', { name: 'Sign Up to Test' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Failed to sign up. Please try again.',
    );
  });
});

describe('job request form', () => {
  const fill = async () => {
    await userEvent.type(screen.getByLabelText('Your email'), 'owner@gmail.com');
    await userEvent.type(screen.getByLabelText('Website URL'), 'https://shop.example');
    await userEvent.type(
      screen.getByLabelText('What should testers look at?'),
      'Checkout on mobile',
    );
  };

  it("requires sign-in: 'Please sign in first'", async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<JobRequestForm />);
    await fill();
    await userEvent.click(screen.getByRole('button', { name: 'Request My $1 Test' }));
    expect(screen.getByRole('alert').textContent).toBe('Please sign in first');
    expect(calls).toHaveLength(0);
  });

  it('refuses a site no tester could open, like Post New Job does', async () => {
    setToken('t');
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<JobRequestForm />);
    for (const url of ['http://localhost:3000', 'https://exa mple.com', 'http://a']) {
      await userEvent.clear(screen.getByLabelText('Website URL'));
      await userEvent.type(screen.getByLabelText('Website URL'), url);
      await userEvent.click(screen.getByRole('button', { name: 'Request My $1 Test' }));
      expect(
        screen.getByText('Please enter a valid URL (starting with http:// or https://)'),
      ).toBeTruthy();
    }
    expect(calls).toHaveLength(0);
  });

  it('requires email, a URL and testing needs', async () => {
    setToken('t');
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<JobRequestForm />);
    await userEvent.type(screen.getByLabelText('Website URL'), 'not a url');
    await userEvent.click(screen.getByRole('button', { name: 'Request My $1 Test' }));
    expect(screen.getByText('Email is required')).toBeTruthy();
    expect(
      screen.getByText('Please enter a valid URL (starting with http:// or https://)'),
    ).toBeTruthy();
    expect(screen.getByText('Please describe your testing needs')).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it("sends a waitlist entry with role 'Site owner' and the bearer token", async () => {
    setToken('t');
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<JobRequestForm />);
    await fill();
    await userEvent.click(screen.getByRole('button', { name: 'Request My $1 Test' }));
    expect(await screen.findByRole('status')).toBeTruthy();
    expect(calls[0].body).toEqual({
      email: 'owner@gmail.com',
      role: 'Site owner',
      url: 'https://shop.example',
      note: 'Checkout on mobile',
    });
    expect(calls[0].headers.Authorization).toBe('Bearer t');
  });

  it("shows 'Failed to create job. Please try again.' on failure", async () => {
    setToken('t');
    mockFetch(() => ({ status: 500, body: { detail: 'x', code: 'internal' } }));
    renderWithStore(<JobRequestForm />);
    await fill();
    await userEvent.click(screen.getByRole('button', { name: 'Request My $1 Test' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Failed to create job. Please try again.',
    );
  });
});

describe('developer lead form', () => {
  it('requires thoughts', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<DeveloperLeadForm />);
    expect(screen.getByRole('heading', { name: 'Looking for a Developer?' })).toBeTruthy();
    await userEvent.type(screen.getByLabelText('Your email'), 'dev@gmail.com');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(screen.getByText('Please share your thoughts')).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it('posts to /api/leads and shows the failure text', async () => {
    const { calls } = mockFetch(() => ({ status: 503 }));
    renderWithStore(<DeveloperLeadForm />);
    await userEvent.type(screen.getByLabelText('Your email'), 'dev@gmail.com');
    await userEvent.type(screen.getByLabelText('Your thoughts'), 'Need a Shopify fix');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Something went wrong. Please try again.',
    );
    expect(calls[0].url).toBe('/api/leads');
    expect(calls[0].body).toEqual({ email: 'dev@gmail.com', message: 'Need a Shopify fix' });
  });
});

describe('feedback form', () => {
  it('requires email and feedback', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<FeedbackForm />);
    await userEvent.click(screen.getByRole('button', { name: 'Send Feedback' }));
    expect(screen.getByText('Email is required')).toBeTruthy();
    expect(screen.getByText('Feedback is required')).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it('posts email, message and the page URL', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true, id: '1' } }));
    renderWithStore(<FeedbackForm />);
    await userEvent.type(screen.getByLabelText('Your email'), 'me@gmail.com');
    await userEvent.type(screen.getByLabelText('Feedback'), 'Love it');
    await userEvent.click(screen.getByRole('button', { name: 'Send Feedback' }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].url).toBe('/api/feedback');
    expect(calls[0].body).toEqual({
      email: 'me@gmail.com',
      message: 'Love it',
      page_url: window.location.href,
    });
    expect(await screen.findByRole('status')).toBeTruthy();
  });

  it("shows the server's detail, else 'Failed to submit feedback'", async () => {
    mockFetch(() => ({
      status: 429,
      body: { detail: 'Too many requests, slow down', code: 'rate_limited' },
    }));
    renderWithStore(<FeedbackForm />);
    await userEvent.type(screen.getByLabelText('Your email'), 'me@gmail.com');
    await userEvent.type(screen.getByLabelText('Feedback'), 'Hi');
    await userEvent.click(screen.getByRole('button', { name: 'Send Feedback' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Too many requests, slow down');
  });
});
