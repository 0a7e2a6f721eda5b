import '../../../test/setup';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { browser } from '../../../lib/browser';
import { pendingTelemetry, resetTelemetry } from '../../../lib/telemetry';
import { setToken } from '../../../lib/tokens';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage } from '../../../test/setup';
import { POSTING_FAILED, PostJobModal } from './post-job-modal';

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
    });
    expect(pendingTelemetry().map((e) => e.name)).toEqual(['post_job_attempt', 'post_job_success']);
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

  it.each([
    'https://exa mple.com',
    'example.com',
    'ftp://example.com',
    'javascript:alert(1)',
    'http://localhost',
    'http://app.localhost:3000',
    'http://a',
    'http://192.168.1.1',
    'http://127.0.0.1:8080',
    'http://169.254.169.254',
  ])('shows the URL message under the Website URL field for %s and sends nothing', async (url) => {
    const { calls } = mockFetch(() => ({ status: 201, body: {} }));
    open();
    await userEvent.type(screen.getByLabelText('Job title'), 'Test my bakery');
    await userEvent.type(screen.getByLabelText('Website URL'), url);
    await userEvent.type(screen.getByLabelText('What to test'), 'Ordering a cake');
    await userEvent.type(screen.getByLabelText('Thing to check 1'), 'Price');
    await submit();
    expect(urlFieldError()).toBe(URL_MESSAGE);
    expect(screen.queryByRole('alert')).toBeNull();
    expect(calls).toHaveLength(0);
  });

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

  it('asks to retry once and then re-login when the session cannot be refreshed or the network fails', async () => {
    mockFetch(() => 'network-error');
    open();
    await fillBasics();
    await userEvent.type(screen.getByLabelText('Thing to check 1'), 'Price');
    await submit();
    expect((await screen.findByRole('alert')).textContent).toBe(POSTING_FAILED);
    expect(POSTING_FAILED).toBe('Posting failed. Please retry once; if it fails again, re-login.');
  });
});
