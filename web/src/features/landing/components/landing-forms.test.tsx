import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { LEAD_MESSAGES, TESTER_SIGNUP_ROLES, WAITLIST_MESSAGES } from '@htm/contracts/admin';
import { WHO_CAN_TEST } from '@htm/contracts/marketplace';
import { FeedbackForm } from '../../../components/feedback-form';
import { setToken } from '../../../lib/tokens';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage } from '../../../test/setup';
import { MSG, TESTER_ROLES } from '../landing-rules';
import { DeveloperLeadForm } from './developer-lead-form';
import { JobRequestForm } from './job-request-form';
import { LandingPage } from './landing-page';
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
      'urlLocal',
      'urlRequired',
      'nameTooShort',
      'needsRequired',
    ] as const) {
      expect(MSG[k]).toBe(WAITLIST_MESSAGES[k]);
    }
    expect(MSG.thoughtsRequired).toBe(LEAD_MESSAGES.thoughtsRequired);
    expect(MSG.failure).toBe(LEAD_MESSAGES.failure);
    expect(MSG.thoughtsTooLong).toBe(LEAD_MESSAGES.thoughtsTooLong);
    expect([...TESTER_ROLES]).toEqual([...TESTER_SIGNUP_ROLES]);
  });
});

describe('waitlist form', () => {
  it("keeps submit disabled until name and email are both filled, saying 'Please fill in all fields'", async () => {
    mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<WaitlistForm />);
    const button = screen.getByRole('button', { name: 'Join Waitlist' });
    expect((button as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByRole('button', { description: 'Please fill in all fields' })).toBe(button);
    await userEvent.type(screen.getByLabelText('Name'), 'Ann');
    expect((button as HTMLButtonElement).disabled).toBe(true);
    await userEvent.type(screen.getByLabelText('Email'), '   ');
    expect((button as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('Please fill in all fields')).toBeTruthy();
    await userEvent.type(screen.getByLabelText('Email'), 'a@b.co');
    expect((button as HTMLButtonElement).disabled).toBe(false);
    expect(screen.queryByText('Please fill in all fields')).toBeNull();
  });

  it('says what is wrong with each field (a one-letter name, an e-mail without a domain) and sends nothing', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<WaitlistForm />);
    await userEvent.type(screen.getByLabelText('Name'), 'J');
    await userEvent.type(screen.getByLabelText('Email'), 'jo@outlook');
    await userEvent.click(screen.getByRole('button', { name: 'Join Waitlist' }));
    expect(screen.getByText('Name must be at least 2 characters')).toBeTruthy();
    expect(screen.getByText('Please enter a valid email address')).toBeTruthy();
    expect(screen.queryByText('Please fill in all fields')).toBeNull();
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
    // The name is not sent again as the note: an empty note is left out.
    expect(calls[0].body).toEqual({
      email: 'ann@yahoo.com',
      role: 'tester',
      name: 'Ann Lee',
    });
    expect((screen.getByLabelText('Name') as HTMLInputElement).value).toBe('');
    expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('');
  });

  it('sends what was written in the optional note as the note, and clears it on success', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<WaitlistForm />);
    await userEvent.type(screen.getByLabelText('Name'), 'Ann Lee');
    await userEvent.type(screen.getByLabelText('Email'), 'ann@yahoo.com');
    await userEvent.type(screen.getByLabelText(/^Note/), '  I use Outlook ');
    await userEvent.click(screen.getByRole('button', { name: 'Join Waitlist' }));
    await screen.findByRole('status');
    expect(calls[0].body).toEqual({
      email: 'ann@yahoo.com',
      role: 'tester',
      name: 'Ann Lee',
      note: 'I use Outlook',
    });
    expect((screen.getByLabelText(/^Note/) as HTMLInputElement).value).toBe('');
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

  it('accepts a contact typed without https (linkedin.com/in/x) and sends it with https://', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<TesterSignupForm />);
    await fill();
    await userEvent.type(screen.getByLabelText(/Contact info/), 'linkedin.com/in/tess');
    await userEvent.click(screen.getByRole('button', { name: 'Sign Up to Test' }));
    expect(await screen.findByRole('status')).toBeTruthy();
    expect((calls[0].body as { url: string }).url).toBe('https://linkedin.com/in/tess');
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

  it("answers a network failure with the spec's 'Failed to sign up. Please try again.', keeping what was typed", async () => {
    mockFetch(() => 'network-error');
    renderWithStore(<TesterSignupForm />);
    await fill();
    await userEvent.click(screen.getByRole('button', { name: 'Sign Up to Test' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Failed to sign up. Please try again.',
    );
    expect((screen.getByLabelText('Gmail address') as HTMLInputElement).value).toBe(
      'tess@gmail.com',
    );
  });

  it('refuses a non-Gmail address (she could never sign in) and offers the waitlist with it', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<TesterSignupForm />);
    await fill('tina@yahoo.com');
    await userEvent.click(screen.getByRole('button', { name: 'Sign Up to Test' }));
    expect(screen.getByText(MSG.gmailOnly)).toBeTruthy();
    expect(calls).toHaveLength(0);
    const waitlist = screen.getByRole('form', { name: 'Join the waitlist' });
    expect((within(waitlist).getByLabelText('Email') as HTMLInputElement).value).toBe(
      'tina@yahoo.com',
    );
    await userEvent.type(within(waitlist).getByLabelText('Name'), 'Tina');
    await userEvent.click(within(waitlist).getByRole('button', { name: 'Join Waitlist' }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].body).toMatchObject({ email: 'tina@yahoo.com', role: 'tester', name: 'Tina' });
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

  it('keeps a signed-out request as the Post New Job draft and offers "Sign in with Google to continue"', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<JobRequestForm />);
    // Before sending, the form says plainly what happens next.
    expect(screen.getByText(MSG.jobRequestNext)).toBeTruthy();
    expect(MSG.jobRequestNext).toBe(
      'What happens next: sign in with Google, Post New Job opens with this filled in, and you pay $1 at checkout. Nothing is charged before that.',
    );
    await fill();
    await userEvent.click(screen.getByRole('button', { name: 'Request My $1 Test' }));
    const link = screen.getByRole('link', { name: 'Sign in with Google to continue' });
    expect(link.getAttribute('href')).toBe('/api/auth/google?intent=poster');
    expect(screen.queryByText('Please sign in first')).toBeNull();
    expect(calls).toHaveLength(0);
    expect(JSON.parse(sessionStorage.getItem('draft:post-job')!)).toEqual({
      title: 'Test shop.example',
      url: 'https://shop.example',
      what_to_test: 'Checkout on mobile',
      // The one sentence once: the things to check are the poster's to write.
      requirements: [''],
    });
    expect(sessionStorage.getItem('draft:post-job-after-sign-in')).toBe('true');
    expect((screen.getByLabelText('Website URL') as HTMLInputElement).value).toBe(
      'https://shop.example',
    );
  });

  it('refuses a site no tester could open, like Post New Job does', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<JobRequestForm signedIn />);
    for (const [url, message] of [
      ['http://localhost:3000', MSG.urlLocal],
      ['https://exa mple.com', MSG.urlInvalid],
      ['http://a', MSG.urlLocal],
    ]) {
      await userEvent.clear(screen.getByLabelText('Website URL'));
      await userEvent.type(screen.getByLabelText('Website URL'), url);
      await userEvent.click(screen.getByRole('button', { name: 'Open Post New Job' }));
      expect(screen.getByText(message)).toBeTruthy();
    }
    expect(MSG.urlLocal).toBe(
      'Local addresses cannot be tested: enter an address testers can open on the internet',
    );
    expect(calls).toHaveLength(0);
  });

  it('requires email, a URL and testing needs', async () => {
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

  it('signed in, opens Post New Job with the request instead of filing a manual one', async () => {
    setToken('t');
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(
      <Routes>
        <Route path="/" element={<JobRequestForm signedIn />} />
        <Route path="/dashboard" element={<p>Dashboard</p>} />
      </Routes>,
    );
    // The account's e-mail is known: not asked for.
    expect(screen.queryByLabelText('Your email')).toBeNull();
    expect(screen.getByText(MSG.jobRequestNextSignedIn)).toBeTruthy();
    await userEvent.type(screen.getByLabelText('Website URL'), 'https://shop.example');
    await userEvent.type(screen.getByLabelText('What should testers look at?'), 'Checkout');
    await userEvent.click(screen.getByRole('button', { name: 'Open Post New Job' }));
    expect(await screen.findByText('Dashboard')).toBeTruthy();
    expect(calls).toHaveLength(0);
    expect(JSON.parse(sessionStorage.getItem('draft:post-job')!)).toMatchObject({
      url: 'https://shop.example',
      what_to_test: 'Checkout',
    });
    expect(sessionStorage.getItem('draft:post-job-after-sign-in')).toBe('true');
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

  it('says a message over 5,000 characters is too long instead of "Something went wrong"', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: { success: true } }));
    renderWithStore(<DeveloperLeadForm />);
    await userEvent.type(screen.getByLabelText('Your email'), 'dev@gmail.com');
    await userEvent.click(screen.getByLabelText('Your thoughts'));
    await userEvent.paste('x'.repeat(5001));
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(screen.getByText('Your message must be 5000 characters or less')).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it("shows the server's reason when it refuses the lead", async () => {
    mockFetch(() => ({
      status: 400,
      body: { detail: 'Invalid', code: 'validation_error', errors: { message: ['Too spammy'] } },
    }));
    renderWithStore(<DeveloperLeadForm />);
    await userEvent.type(screen.getByLabelText('Your email'), 'dev@gmail.com');
    await userEvent.type(screen.getByLabelText('Your thoughts'), 'Need a Shopify fix');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect((await screen.findByRole('alert')).textContent).toContain('Too spammy');
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

describe('who can test from where', () => {
  it('is said on the landing (tester section) and in the tester signup form, Canada included', () => {
    mockFetch(() => ({ status: 200, body: {} }));
    renderWithStore(<LandingPage signedIn={false} />);
    const section = document.getElementById('tester-signup')!;
    expect(
      within(section)
        .getByText(/Who can test from where\./)
        .closest('p')!.textContent,
    ).toContain(WHO_CAN_TEST.summary);
    expect(WHO_CAN_TEST.summary).toMatch(/United States, Puerto Rico and Canada/);
  });

  it('is said above the tester signup fields', () => {
    renderWithStore(<TesterSignupForm />);
    const form = screen.getByRole('form', { name: 'Tester signup' });
    expect(within(form).getByText(WHO_CAN_TEST.summary)).toBeTruthy();
  });
});

describe('landing page: assistive-technology testers', () => {
  it('says site owners can ask for a tester who uses a screen reader, on the page and in the FAQ', () => {
    mockFetch(() => ({ status: 200, body: {} }));
    renderWithStore(<LandingPage signedIn={false} />);
    expect(screen.getByText(/Ask for a test by someone who\s+uses a screen reader/)).toBeTruthy();
    expect(screen.getByText('Can someone who uses a screen reader test my site?')).toBeTruthy();
    expect(screen.getByText(/choose 'Tested by someone who uses a screen reader'/)).toBeTruthy();
  });
});

describe('every landing form when the server cannot be reached', () => {
  const CANT_REACH = "Can't reach HumanTest — your draft is kept; try again in a moment";

  it('says so in the feedback, lead and waitlist forms, keeping what was typed', async () => {
    mockFetch(() => 'network-error');
    setToken('t');
    const feedback = renderWithStore(<FeedbackForm />);
    await userEvent.type(screen.getByLabelText('Your email'), 'me@gmail.com');
    await userEvent.type(screen.getByLabelText('Feedback'), 'The menu is hard to find');
    await userEvent.click(screen.getByRole('button', { name: 'Send Feedback' }));
    expect((await screen.findByRole('alert')).textContent).toBe(CANT_REACH);
    expect((screen.getByLabelText('Feedback') as HTMLTextAreaElement).value).toBe(
      'The menu is hard to find',
    );
    feedback.unmount();

    const lead = renderWithStore(<DeveloperLeadForm />);
    await userEvent.type(screen.getByLabelText('Your email'), 'dev@gmail.com');
    await userEvent.type(screen.getByLabelText('Your thoughts'), 'Need a Shopify fix');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect((await screen.findByRole('alert')).textContent).toBe(CANT_REACH);
    lead.unmount();

    const waitlist = renderWithStore(<WaitlistForm />);
    await userEvent.type(screen.getByLabelText('Name'), 'Ann');
    await userEvent.type(screen.getByLabelText('Email'), 'ann@yahoo.com');
    await userEvent.click(screen.getByRole('button', { name: 'Join Waitlist' }));
    expect((await screen.findByRole('alert')).textContent).toBe(CANT_REACH);
    waitlist.unmount();
  });
});
