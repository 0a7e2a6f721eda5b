import '../../../test/setup';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { browser } from '../../../lib/browser';
import { pendingTelemetry, resetTelemetry } from '../../../lib/telemetry';
import { setToken } from '../../../lib/tokens';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage } from '../../../test/setup';
import { keepJobRequestForAfterSignIn } from '../../../lib/drafts';
import PostJobLauncher from './post-job-launcher';
import { POSTING_FAILED, POSTING_UNANSWERED, PostJobModal } from './post-job-modal';
import { PAYMENT_NOT_STARTED } from './pay-now';

const realAssign = browser.assign;
let assigned: string[] = [];

beforeEach(() => {
  resetStorage();
  resetTelemetry();
  setToken('poster-token');
  assigned = [];
  browser.assign = (u: string) => void assigned.push(u);
});
afterEach(() => {
  browser.assign = realAssign;
});

const open = () => renderWithStore(<PostJobModal onClose={() => undefined} />);
const fillBasics = async () => {
  await userEvent.type(screen.getByLabelText('Job title'), 'Test my bakery');
  await userEvent.type(screen.getByLabelText('Website URL'), 'https://bakery.example');
  await userEvent.type(screen.getByLabelText('What to test'), 'Ordering a cake');
};
const URL_MESSAGE = 'Please enter a valid URL starting with http:// or https://';
/** The error text shown under the Website URL field (its aria-describedby), if any. */
const urlFieldError = () => {
  const ids = screen.getByLabelText('Website URL').getAttribute('aria-describedby') ?? '';
  return ids
    .split(' ')
    .map((id) => document.getElementById(id))
    .find((el) => el?.className === 'field__error')?.textContent;
};
const submit = () => userEvent.click(screen.getByRole('button', { name: 'Post Job & Pay $1' }));

describe('Post New Job modal', () => {
  it('requires title, url, what to test and at least one thing to check', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: {} }));
    open();
    await submit();
    expect(screen.getByText('Title is required')).toBeTruthy();
    expect(screen.getByText('URL is required')).toBeTruthy();
    expect(screen.getByText('Please describe what to test')).toBeTruthy();
    expect(screen.getByText('Please add at least one thing to check.')).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it('adds up to 10 requirements and always keeps one', async () => {
    mockFetch(() => ({ status: 201, body: {} }));
    open();
    const remove1 = screen.getByRole('button', {
      name: 'Remove thing to check 1',
    }) as HTMLButtonElement;
    expect(remove1.disabled).toBe(true);
    const add = screen.getByRole('button', { name: '+ Add another' }) as HTMLButtonElement;
    for (let i = 0; i < 9; i++) await userEvent.click(add);
    expect(screen.getAllByLabelText(/^Thing to check \d+$/)).toHaveLength(10);
    expect(add.disabled).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: 'Remove thing to check 10' }));
    expect(screen.getAllByLabelText(/^Thing to check \d+$/)).toHaveLength(9);
    expect(add.disabled).toBe(false);
  });

  it('counts characters up to 300 and rejects a longer requirement', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: {} }));
    open();
    await fillBasics();
    const input = screen.getByLabelText('Thing to check 1');
    await userEvent.click(input);
    await userEvent.paste('x'.repeat(301));
    expect(screen.getByText('301/300')).toBeTruthy();
    await submit();
    expect(screen.getByText('Each thing to check must be 300 characters or less')).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it('posts the job with budget 1 and goes to the checkout page', async () => {
    const { calls } = mockFetch(() => ({
      status: 201,
      body: {
        checkout_url: '/api/payments/local/checkout/cs_local_1',
        session_id: 'cs_local_1',
        job: { id: 'j1' },
      },
    }));
    open();
    await fillBasics();
    await userEvent.type(screen.getByLabelText('Thing to check 1'), 'Can I find the price?');
    await userEvent.click(screen.getByRole('button', { name: '+ Add another' }));
    await userEvent.selectOptions(screen.getByLabelText('Who may test'), 'us_pr_ca');
    await submit();
    await waitFor(() => expect(assigned).toEqual(['/api/payments/local/checkout/cs_local_1']));
    expect(calls[0].url).toBe('/api/jobs');
    expect(calls[0].body).toEqual({
      title: 'Test my bakery',
      url: 'https://bakery.example',
      what_to_test: 'Ordering a cake',
      requirements: ['Can I find the price?'],
      budget: 1,
      expected_completion_hours: 48,
      geo_rule: 'us_pr_ca',
      fresh_eyes: true,
      recording_required: false,
      assistive_tech: null,
      testers: 1,
    });
    expect(pendingTelemetry().map((e) => e.name)).toEqual(['post_job_attempt', 'post_job_success']);
  });

  it('says in words when the job is saved but payments cannot answer, and Pay now tries again', async () => {
    const PAYMENT_DOWN =
      'Payments are not answering right now. Your job is saved unpaid; please try paying again in a moment.';
    let checkoutAnswers = 0;
    const { calls } = mockFetch((c) => {
      if (c.url === '/api/jobs')
        return {
          status: 201,
          body: {
            checkout_url: null,
            session_id: null,
            job: { id: 'j9' },
            payment_error: PAYMENT_DOWN,
          },
        };
      checkoutAnswers++;
      return {
        body:
          checkoutAnswers === 1
            ? {
                checkout_url: null,
                session_id: null,
                job: { id: 'j9' },
                payment_error: PAYMENT_DOWN,
              }
            : {
                checkout_url: '/api/payments/local/checkout/cs_local_9',
                session_id: 'cs_local_9',
                job: { id: 'j9' },
              },
      };
    });
    let closed = 0;
    renderWithStore(<PostJobModal onClose={() => closed++} />);
    await fillBasics();
    await userEvent.type(screen.getByLabelText('Thing to check 1'), 'Can I find the price?');
    await submit();
    // The modal stays, saying why (not a toast that fades), and the job is saved.
    expect(await screen.findByRole('dialog', { name: 'Job saved, not paid yet' })).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toBe(PAYMENT_DOWN);
    expect(screen.getByText(/pay now, or later with Pay now on its card/)).toBeTruthy();
    expect(assigned).toEqual([]);
    // Payments still down: the words stay; then it answers and the browser goes to the checkout.
    await userEvent.click(screen.getByRole('button', { name: 'Pay $1 now' }));
    await waitFor(() => expect(checkoutAnswers).toBe(1));
    expect(screen.getByRole('alert').textContent).toBe(PAYMENT_DOWN);
    await userEvent.click(screen.getByRole('button', { name: 'Pay $1 now' }));
    await waitFor(() => expect(assigned).toEqual(['/api/payments/local/checkout/cs_local_9']));
    expect(calls.filter((c) => c.url === '/api/jobs/j9/checkout')).toHaveLength(2);
    expect(closed).toBe(0);
  });

  it('offers Pay later, which closes the modal (the job card keeps Pay now)', async () => {
    mockFetch(() => ({
      status: 201,
      body: { checkout_url: null, session_id: null, job: { id: 'j8' } },
    }));
    let closed = 0;
    renderWithStore(<PostJobModal onClose={() => closed++} />);
    await fillBasics();
    await userEvent.type(screen.getByLabelText('Thing to check 1'), 'Can I find the price?');
    await submit();
    expect((await screen.findByRole('alert')).textContent).toBe(PAYMENT_NOT_STARTED);
    await userEvent.click(screen.getByRole('button', { name: 'Pay later' }));
    expect(closed).toBe(1);
  });

  it('says the job may be saved when the answer is lost on the way (504)', async () => {
    mockFetch(() => ({
      status: 504,
      body: { detail: 'The jobs service did not answer in time.', code: 'upstream_timeout' },
    }));
    open();
    await fillBasics();
    await userEvent.type(screen.getByLabelText('Thing to check 1'), 'Can I find the price?');
    await submit();
    expect(await screen.findByText(POSTING_UNANSWERED)).toBeTruthy();
  });

  it('sends the fresh-eyes switch (on by default), the recording switch (off by default) and the assistive technology the poster asks for', async () => {
    const { calls } = mockFetch(() => ({
      status: 201,
      body: {
        checkout_url: '/api/payments/local/checkout/cs_local_2',
        session_id: 'cs_local_2',
        job: { id: 'j2' },
      },
    }));
    open();
    await fillBasics();
    await userEvent.type(screen.getByLabelText('Thing to check 1'), 'Read the menu aloud');
    const fresh = screen.getByLabelText(
      'A tester who has not seen my site before',
    ) as HTMLInputElement;
    expect(fresh.checked).toBe(true);
    await userEvent.click(fresh);
    // Off by default: a recording is asked for only when the poster says so.
    const recording = screen.getByLabelText(
      "A screen recording with the tester's voice, at least 3 minutes (checked before you see the report)",
    ) as HTMLInputElement;
    expect(recording.checked).toBe(false);
    await userEvent.click(recording);
    await userEvent.selectOptions(
      screen.getByLabelText('Assistive technology'),
      'Tested by someone who uses a screen reader',
    );
    await submit();
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].body).toMatchObject({
      fresh_eyes: false,
      recording_required: true,
      assistive_tech: 'screen_reader',
    });
  });

  it('orders several testers in one checkout, showing the price as the count changes', async () => {
    const { calls } = mockFetch(() => ({
      status: 201,
      body: {
        checkout_url: '/api/payments/local/checkout/cs_local_5',
        session_id: 'cs_local_5',
        job: { id: 'j1' },
        jobs: [{ id: 'j1' }, { id: 'j2' }, { id: 'j3' }, { id: 'j4' }, { id: 'j5' }],
        pack: { id: 'p1', size: 5 },
      },
    }));
    open();
    await fillBasics();
    await userEvent.type(screen.getByLabelText('Thing to check 1'), 'Can I check out on my phone?');
    expect(screen.getByTestId('pack-price').textContent).toBe('1 tester: $1');
    await userEvent.selectOptions(screen.getByLabelText('How many testers'), '5 testers');
    expect(screen.getByTestId('pack-price').textContent).toMatch(/^5 testers × \$1 = \$5\./);
    await userEvent.click(screen.getByRole('button', { name: 'Post Job & Pay $5' }));
    await waitFor(() => expect(assigned).toEqual(['/api/payments/local/checkout/cs_local_5']));
    expect(calls[0].body).toMatchObject({ testers: 5, budget: 1 });
  });

  it("shows 'Failed to create job: {reason}' with the server's reason", async () => {
    mockFetch(() => ({
      status: 400,
      body: {
        detail: 'Budget is fixed at $1',
        code: 'invalid',
        errors: { budget: ['Budget is fixed at $1'] },
      },
    }));
    open();
    await fillBasics();
    await userEvent.type(screen.getByLabelText('Thing to check 1'), 'Price');
    await submit();
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Failed to create job: Budget is fixed at $1',
    );
    expect(assigned).toEqual([]);
    expect(pendingTelemetry().map((e) => e.name)).toEqual(['post_job_attempt', 'post_job_failure']);
  });

  const LOCAL_MESSAGE =
    'Local addresses cannot be tested: enter an address testers can open on the internet';
  it.each([
    ['https://exa mple.com', URL_MESSAGE],
    ['example.com', URL_MESSAGE],
    ['ftp://example.com', URL_MESSAGE],
    ['javascript:alert(1)', URL_MESSAGE],
    ['http://localhost', LOCAL_MESSAGE],
    ['http://app.localhost:3000', LOCAL_MESSAGE],
    ['http://a', LOCAL_MESSAGE],
    ['http://192.168.1.1', LOCAL_MESSAGE],
    ['http://127.0.0.1:8080', LOCAL_MESSAGE],
    ['http://169.254.169.254', LOCAL_MESSAGE],
  ])(
    'says what is wrong with %s under the Website URL field and sends nothing',
    async (url, message) => {
      const { calls } = mockFetch(() => ({ status: 201, body: {} }));
      open();
      await userEvent.type(screen.getByLabelText('Job title'), 'Test my bakery');
      await userEvent.type(screen.getByLabelText('Website URL'), url);
      await userEvent.type(screen.getByLabelText('What to test'), 'Ordering a cake');
      await userEvent.type(screen.getByLabelText('Thing to check 1'), 'Price');
      await submit();
      expect(urlFieldError()).toBe(message);
      expect(screen.queryByRole('alert')).toBeNull();
      expect(calls).toHaveLength(0);
    },
  );

  it("shows the server's url error under the Website URL field, not at the bottom", async () => {
    mockFetch(() => ({
      status: 400,
      body: { detail: URL_MESSAGE, code: 'invalid', errors: { url: [URL_MESSAGE] } },
    }));
    open();
    await fillBasics();
    await userEvent.type(screen.getByLabelText('Thing to check 1'), 'Price');
    await submit();
    await waitFor(() => expect(urlFieldError()).toBe(URL_MESSAGE));
    expect(screen.getByLabelText('Website URL').getAttribute('aria-invalid')).toBe('true');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(assigned).toEqual([]);
  });

  it("says the server cannot be reached (not 're-login') and keeps the draft when the network fails", async () => {
    mockFetch(() => 'network-error');
    open();
    await fillBasics();
    await userEvent.type(screen.getByLabelText('Thing to check 1'), 'Price');
    await submit();
    expect((await screen.findByRole('alert')).textContent).toBe(
      "Can't reach HumanTest — your draft is kept; try again in a moment",
    );
    expect(JSON.parse(sessionStorage.getItem('draft:post-job')!)).toMatchObject({
      title: 'Test my bakery',
      requirements: ['Price'],
    });
  });

  it('asks to retry once and then re-login when the session cannot be refreshed', async () => {
    mockFetch(() => ({ status: 401, body: { detail: 'Token expired', code: 'unauthorized' } }));
    open();
    await fillBasics();
    await userEvent.type(screen.getByLabelText('Thing to check 1'), 'Price');
    await submit();
    expect((await screen.findByRole('alert')).textContent).toBe(POSTING_FAILED);
    expect(POSTING_FAILED).toBe('Posting failed. Please retry once; if it fails again, re-login.');
  });
});

describe('Post New Job drafts', () => {
  it('asks before Esc or Cancel throws a typed form away; Keep editing keeps it', async () => {
    mockFetch(() => ({ status: 201, body: {} }));
    let closed = 0;
    renderWithStore(<PostJobModal onClose={() => void closed++} />);
    await userEvent.type(screen.getByLabelText('Job title'), 'Bakery');
    await userEvent.keyboard('{Escape}');
    expect(closed).toBe(0);
    expect(screen.getByRole('alertdialog', { name: 'Discard your draft?' })).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Keep editing' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect((screen.getByLabelText('Job title') as HTMLInputElement).value).toBe('Bakery');
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await userEvent.click(screen.getByRole('button', { name: 'Discard draft' }));
    expect(closed).toBe(1);
    expect(sessionStorage.getItem('draft:post-job')).toBeNull();
  });

  it('closes an empty form at once', async () => {
    mockFetch(() => ({ status: 201, body: {} }));
    let closed = 0;
    renderWithStore(<PostJobModal onClose={() => void closed++} />);
    await userEvent.keyboard('{Escape}');
    expect(closed).toBe(1);
  });

  it('reopens with the draft of this tab and forgets it once the job is posted', async () => {
    mockFetch(() => ({
      status: 201,
      body: { checkout_url: '/checkout/1', session_id: 's1', job: {} },
    }));
    const first = open();
    await fillBasics();
    first.unmount();
    open();
    expect((screen.getByLabelText('Job title') as HTMLInputElement).value).toBe('Test my bakery');
    expect((screen.getByLabelText('What to test') as HTMLTextAreaElement).value).toBe(
      'Ordering a cake',
    );
    await userEvent.type(screen.getByLabelText('Thing to check 1'), 'Price');
    await submit();
    await waitFor(() => expect(assigned).toEqual(['/checkout/1']));
    expect(sessionStorage.getItem('draft:post-job')).toBeNull();
  });
});

describe('after a signed-out job request on the landing page', () => {
  it('opens Post New Job by itself once, prefilled with the URL and text, ready to pay', async () => {
    const { calls } = mockFetch(() => ({
      status: 201,
      body: { checkout_url: '/checkout/2', session_id: 's2', job: {} },
    }));
    keepJobRequestForAfterSignIn(
      'https://www.bakery.example/order',
      'Order a cake\nFind the opening hours',
    );
    // Signing in mounts the dashboard twice (loading, then the signed-in user): it still opens.
    renderWithStore(<PostJobLauncher />).unmount();
    const first = renderWithStore(<PostJobLauncher />);
    expect(screen.getByRole('dialog', { name: 'Post New Job' })).toBeTruthy();
    expect((screen.getByLabelText('Job title') as HTMLInputElement).value).toBe(
      'Test bakery.example',
    );
    expect((screen.getByLabelText('Website URL') as HTMLInputElement).value).toBe(
      'https://www.bakery.example/order',
    );
    // Each sentence once: the first line is what to test, the next ones the things to check.
    expect((screen.getByLabelText('What to test') as HTMLTextAreaElement).value).toBe(
      'Order a cake',
    );
    expect((screen.getByLabelText('Thing to check 1') as HTMLInputElement).value).toBe(
      'Find the opening hours',
    );
    expect(screen.queryByLabelText('Thing to check 2')).toBeNull();
    await submit();
    await waitFor(() => expect(assigned).toEqual(['/checkout/2']));
    expect(calls[0].body).toMatchObject({
      title: 'Test bakery.example',
      url: 'https://www.bakery.example/order',
      what_to_test: 'Order a cake',
      requirements: ['Find the opening hours'],
    });
    first.unmount();
    renderWithStore(<PostJobLauncher />);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('puts a one-line request in What to test only, leaving Thing to check 1 for the poster', async () => {
    mockFetch(() => ({
      status: 201,
      body: { checkout_url: '/checkout/3', session_id: 's3', job: {} },
    }));
    keepJobRequestForAfterSignIn('https://bakery.example', 'Can I order a birthday cake?');
    renderWithStore(<PostJobLauncher />);
    expect((screen.getByLabelText('What to test') as HTMLTextAreaElement).value).toBe(
      'Can I order a birthday cake?',
    );
    expect((screen.getByLabelText('Thing to check 1') as HTMLInputElement).value).toBe('');
  });
});
