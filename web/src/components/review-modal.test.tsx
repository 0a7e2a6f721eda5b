import '../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setToken } from '../lib/tokens';
import { jobView } from '../test/job-view';
import { renderWithStore } from '../test/render';
import { mockFetch, resetStorage, type Call } from '../test/setup';
import { ReviewModal } from './review-modal';

const job = jobView({
  id: 'abcdef12-3456-7890-aaaa-bbbbbbbbbbbb',
  requirements: ['Find the price', 'Order'],
  status: 'submitted',
  auto_accept_at: new Date(Date.now() + 50 * 3600_000).toISOString(),
});

const submission = (locked: boolean) => ({
  id: 's1',
  job_id: job.id,
  revision: 0,
  submitted_at: new Date().toISOString(),
  locked,
  auto_accept_at: job.auto_accept_at,
  submitted_by_snapshot: { name: 'Tess', location: 'USA' },
  human_preview: {
    device_used: 'iPhone 13',
    browser_used: 'Safari',
    key_findings_bullets: ['Cart count lags', 'Price hidden', 'Slow images'],
    small_image_url: null,
  },
  requirement_responses: locked
    ? null
    : [{ requirement_index: 0, response_text: 'It is in the footer' }],
  general_feedback: locked ? null : 'Nice shop overall',
  file_urls: locked ? null : ['/api/files/f1?sig=x'],
  file_names: locked ? null : [null],
});

function backend(locked = true) {
  return mockFetch((c: Call) => {
    if (c.url.endsWith('/submission')) return { body: submission(locked) };
    if (c.url.endsWith('/review'))
      return {
        body: { payment_processed: true, revision_count: 0, job: { ...job, status: 'completed' } },
      };
    return { body: { jobs: [] } };
  });
}

beforeEach(() => {
  resetStorage();
  setToken('t');
});

describe('Review Submission modal', () => {
  it('shows the preview and the auto-accept countdown while locked', async () => {
    backend(true);
    renderWithStore(<ReviewModal job={job} onClose={() => undefined} />);
    expect(await screen.findByText('Cart count lags')).toBeTruthy();
    expect(screen.getByText('iPhone 13')).toBeTruthy();
    expect(
      screen.getByText(/Full results unlock when you accept, or automatically in 2d 1h/),
    ).toBeTruthy();
    expect(screen.queryByText('It is in the footer')).toBeNull();
  });

  it('enables Submit Review only once a decision is chosen', async () => {
    backend(true);
    renderWithStore(<ReviewModal job={job} onClose={() => undefined} />);
    await screen.findByText('Cart count lags');
    const submit = screen.getByRole('button', { name: 'Submit Review' }) as HTMLButtonElement;
    expect(submit.disabled).toBe(true);
    await userEvent.click(screen.getByLabelText(/Accept/));
    expect(submit.disabled).toBe(false);
  });

  it('does not offer Reject: the choice is disabled and says the rule where it is', async () => {
    const { calls } = backend(true);
    renderWithStore(<ReviewModal job={job} onClose={() => undefined} />);
    await screen.findByText('Cart count lags');
    const reject = screen.getByLabelText(/Reject/) as HTMLInputElement;
    expect(reject.disabled).toBe(true);
    expect(reject.closest('label')!.textContent).toContain(
      'Rejection not supported in MVP. Request revision instead.',
    );
    await userEvent.click(reject);
    expect(reject.checked).toBe(false);
    expect(
      (screen.getByRole('button', { name: 'Submit Review' }) as HTMLButtonElement).disabled,
    ).toBe(true);
    expect(calls.some((c) => c.url.endsWith('/review'))).toBe(false);
  });

  it('requires a reason for a revision and sends it', async () => {
    const { calls } = backend(true);
    renderWithStore(<ReviewModal job={job} onClose={() => undefined} />);
    await screen.findByText('Cart count lags');
    await userEvent.click(screen.getByLabelText(/^Request revision/));
    await userEvent.click(screen.getByRole('button', { name: 'Submit Review' }));
    expect(screen.getByText('Please say what the tester should change')).toBeTruthy();
    await userEvent.type(
      screen.getByLabelText('What should the tester change?'),
      'Please check on mobile too',
    );
    await userEvent.click(screen.getByRole('button', { name: 'Submit Review' }));
    await waitFor(() => expect(calls.some((c) => c.url.endsWith('/review'))).toBe(true));
    const review = calls.find((c) => c.url.endsWith('/review'))!;
    expect(review.body).toEqual({
      decision: 'request_revision',
      reason: 'Please check on mobile too',
      specific_issues: [],
    });
  });

  it('sends the specific issues, one per line, with the revision', async () => {
    const { calls } = backend(true);
    renderWithStore(<ReviewModal job={job} onClose={() => undefined} />);
    await screen.findByText('Cart count lags');
    await userEvent.click(screen.getByLabelText(/^Request revision/));
    await userEvent.type(
      screen.getByLabelText('What should the tester change?'),
      'Please check on mobile too',
    );
    await userEvent.type(
      screen.getByLabelText(/Specific issues/),
      'Checkout button not tested{enter}{enter}  No screenshot of the cart  {enter}',
    );
    await userEvent.click(screen.getByRole('button', { name: 'Submit Review' }));
    await waitFor(() => expect(calls.some((c) => c.url.endsWith('/review'))).toBe(true));
    expect(calls.find((c) => c.url.endsWith('/review'))!.body).toEqual({
      decision: 'request_revision',
      reason: 'Please check on mobile too',
      specific_issues: ['Checkout button not tested', 'No screenshot of the cart'],
    });
  });

  it('refuses more than 20 specific issues before sending', async () => {
    const { calls } = backend(true);
    renderWithStore(<ReviewModal job={job} onClose={() => undefined} />);
    await screen.findByText('Cart count lags');
    await userEvent.click(screen.getByLabelText(/^Request revision/));
    await userEvent.type(screen.getByLabelText('What should the tester change?'), 'Redo it');
    await userEvent.click(screen.getByLabelText(/Specific issues/));
    await userEvent.paste(Array.from({ length: 21 }, (_, i) => `Issue ${i + 1}`).join('\n'));
    await userEvent.click(screen.getByRole('button', { name: 'Submit Review' }));
    expect(screen.getByText('You can list at most 20 specific issues')).toBeTruthy();
    expect(calls.some((c) => c.url.endsWith('/review'))).toBe(false);
  });

  it('disables the revision choice once the free revision is used', async () => {
    backend(true);
    renderWithStore(<ReviewModal job={{ ...job, revision_count: 1 }} onClose={() => undefined} />);
    await screen.findByText('Cart count lags');
    expect((screen.getByLabelText(/^Request revision/) as HTMLInputElement).disabled).toBe(true);
  });

  it("shows 'Failed to review job' when the review fails without detail", async () => {
    mockFetch((c) =>
      c.url.endsWith('/submission') ? { body: submission(true) } : { status: 500, body: '' },
    );
    renderWithStore(<ReviewModal job={job} onClose={() => undefined} />);
    await screen.findByText('Cart count lags');
    await userEvent.click(screen.getByLabelText(/Accept/));
    await userEvent.click(screen.getByRole('button', { name: 'Submit Review' }));
    expect((await screen.findByText('Failed to review job')).className).toContain(
      'form-msg--error',
    );
  });

  it('shows full results with file downloads once unlocked', async () => {
    backend(false);
    renderWithStore(
      <ReviewModal job={{ ...job, status: 'completed' }} onClose={() => undefined} />,
    );
    expect(await screen.findByText('It is in the footer')).toBeTruthy();
    expect(screen.getByText('Nice shop overall')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Download' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Submit Review' })).toBeNull();
  });

  it("is titled 'Results' once accepted, shows only answered checklist items and names files 'Screenshot N'", async () => {
    backend(false);
    renderWithStore(
      <ReviewModal job={{ ...job, status: 'completed' }} onClose={() => undefined} />,
    );
    expect(await screen.findByRole('dialog', { name: 'Results' })).toBeTruthy();
    await screen.findByText('It is in the footer');
    // 'Order' got no answer: no empty row, no 'No answer'.
    expect(screen.queryByText('Order')).toBeNull();
    expect(screen.queryByText('No answer')).toBeNull();
    expect(screen.getByRole('link', { name: 'Screenshot 1' }).getAttribute('href')).toBe(
      '/api/files/f1?sig=x',
    );
    // The screenshot itself, shown inline (not only a link to the file).
    expect(screen.getByRole('img', { name: 'Screenshot 1' }).getAttribute('src')).toBe(
      '/api/files/f1?sig=x',
    );
    expect(screen.queryByText(/result-1/)).toBeNull();
  });

  it('changes its title from Review Submission to Results when the poster accepts', async () => {
    backend(false);
    renderWithStore(<ReviewModal job={job} onClose={() => undefined} />);
    expect(screen.getByRole('dialog', { name: 'Review Submission' })).toBeTruthy();
    await screen.findByText('Cart count lags');
    await userEvent.click(screen.getByLabelText(/Accept/));
    await userEvent.click(screen.getByRole('button', { name: 'Submit Review' }));
    expect(await screen.findByRole('dialog', { name: 'Results' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Submit Review' })).toBeNull();
  });

  it('shows a Quick report (no checklist answers) without any checklist rows', async () => {
    mockFetch((c: Call) =>
      c.url.endsWith('/submission')
        ? { body: { ...submission(false), requirement_responses: [], file_urls: [] } }
        : { body: { jobs: [] } },
    );
    renderWithStore(
      <ReviewModal job={{ ...job, status: 'completed' }} onClose={() => undefined} />,
    );
    expect(await screen.findByText('Nice shop overall')).toBeTruthy();
    expect(screen.queryByText('Answers to your checklist')).toBeNull();
    expect(screen.queryByText('Find the price')).toBeNull();
    expect(screen.queryByText('No answer')).toBeNull();
    expect(screen.getByRole('heading', { name: 'Feedback' })).toBeTruthy();
  });
});

describe('result file names', () => {
  it("uses a sanitised file name from the link, else 'Screenshot N' with the file type's extension", async () => {
    const { fileLabel, downloadName } = await import('./job-results');
    expect(fileLabel('/api/files/9f1c2?sig=x', 0)).toBe('Screenshot 1');
    expect(fileLabel('/files/cart%20page.png', 1)).toBe('cart page.png');
    expect(fileLabel('/files/..%2F..%2Fetc.png', 1)).toBe('Screenshot 2');
    expect(downloadName('/api/files/9f1c2?sig=x', 2, 'image/jpeg')).toBe('screenshot-3.jpg');
  });

  it("prefers the tester's own file name the server kept, and saves under it", async () => {
    const { fileLabel, downloadName } = await import('./job-results');
    expect(fileLabel('/api/files/9f1c2?sig=x', 0, 'Checkout – step 2.png')).toBe(
      'Checkout _ step 2.png',
    );
    expect(fileLabel('/api/files/9f1c2?sig=x', 0, 'Café menü.jpg')).toBe('Café menü.jpg');
    expect(fileLabel('/api/files/9f1c2?sig=x', 1, null)).toBe('Screenshot 2');
    expect(downloadName('/api/files/9f1c2?sig=x', 0, 'image/png', 'cart.png')).toBe('cart.png');
  });
});
