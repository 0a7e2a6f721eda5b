import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen } from '@testing-library/react';
import { setToken } from '../../../lib/tokens';
import { renderWithStore } from '../../../test/render';
import { jobView } from '../../../test/job-view';
import { mockFetch, resetStorage } from '../../../test/setup';
import PaymentCancel from './payment-cancel';
import PaymentSuccess from './payment-success';

beforeEach(() => {
  resetStorage();
  setToken('t');
});

describe('payment return pages', () => {
  it("shows the job is live when the status is 'paid', with a dashboard link", async () => {
    const { calls } = mockFetch(() => ({
      body: { payment_status: 'paid', job_id: '12345678-abcd' },
    }));
    renderWithStore(<PaymentSuccess />, { route: '/payment/success?session_id=cs_local_42' });
    expect((await screen.findByText(/Your job is live and visible to testers/)).textContent).toBe(
      'Payment received! Your job is live and visible to testers.',
    );
    expect(calls[0].url).toBe('/api/payments/checkout/status/cs_local_42');
    expect(screen.getByRole('link', { name: 'Go to Dashboard' }).getAttribute('href')).toBe(
      '/dashboard',
    );
  });

  it('says how many testers were ordered, what happens next and by when', async () => {
    const slot = (id: string) =>
      jobView({
        id,
        title: 'Bakery',
        pack_id: 'pack-1',
        paid_at: '2026-03-02T10:00:00.000Z',
        expected_completion_hours: 48,
      });
    mockFetch((c) =>
      c.url === '/api/jobs'
        ? { body: { jobs: [slot('j1'), slot('j2'), slot('j3'), jobView({ id: 'other' })] } }
        : { body: { payment_status: 'paid', job_id: 'j1' } },
    );
    renderWithStore(<PaymentSuccess />, { route: '/payment/success?session_id=cs_local_43' });
    const next = await screen.findByRole('heading', { name: 'What happens next' });
    const list = next.nextElementSibling as HTMLElement;
    expect(list.textContent).toContain('3 testers each claim “Bakery” and test your site');
    expect(list.textContent).toContain('accept it or ask for one free revision');
    expect(list.textContent).toMatch(/Results expected by .*2026/);
  });

  it("says 'Payment is still processing. Please wait...' and polls until paid", async () => {
    let n = 0;
    const { calls } = mockFetch(() => ({
      body: { payment_status: n++ < 1 ? 'unpaid' : 'paid', job_id: 'j' },
    }));
    renderWithStore(<PaymentSuccess />, { route: '/payment/success?session_id=cs_1' });
    expect(await screen.findByText('Payment is still processing. Please wait...')).toBeTruthy();
    expect(
      await screen.findByText(/visible to testers/, undefined, { timeout: 4000 }),
    ).toBeTruthy();
    expect(calls.length).toBeGreaterThanOrEqual(2);
  });

  it('asks a signed-out browser to sign in to check, without claiming the payment was received', async () => {
    resetStorage();
    mockFetch(() => ({
      status: 401,
      body: { detail: 'Authentication required.', code: 'unauthorized' },
    }));
    renderWithStore(<PaymentSuccess />, { route: '/payment/success?session_id=cs_elsewhere' });
    expect(
      await screen.findByText(
        'Sign in to see whether your payment went through and your job is live.',
      ),
    ).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(
      'Sign in to check your payment',
    );
    expect(document.body.textContent).not.toMatch(/received/i);
    expect(screen.getByRole('link', { name: 'Sign in to see your job' }).getAttribute('href')).toBe(
      '/api/auth/google?intent=poster',
    );
  });

  for (const [what, answer] of [
    [
      '404 (a made-up session id)',
      { status: 404, body: { detail: 'Unknown checkout session.', code: 'not_found' } },
    ],
    ['a 5xx', { status: 503, body: { detail: 'Service unavailable.', code: 'unavailable' } }],
    ['a network failure', 'network-error'],
  ] as const) {
    it(`says verification failed, never "received", when the status check fails with ${what}`, async () => {
      mockFetch(() => answer as never);
      renderWithStore(<PaymentSuccess />, { route: '/payment/success?session_id=cs_bad' });
      expect((await screen.findByRole('alert')).textContent).toBe(
        'Payment verification failed. Please contact support if payment was made.',
      );
      expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Payment not confirmed');
      expect(document.body.textContent).not.toMatch(/received/i);
      expect(screen.getByRole('link', { name: 'Go to Dashboard' })).toBeTruthy();
    });
  }

  it("says 'still processing' (not failed) for an expired checkout", async () => {
    mockFetch(() => ({ body: { payment_status: 'expired', job_id: 'j' } }));
    renderWithStore(<PaymentSuccess />, { route: '/payment/success?session_id=cs_old' });
    expect(await screen.findByText('Payment is still processing. Please wait...')).toBeTruthy();
    expect(screen.queryByText(/verification failed/)).toBeNull();
  });

  it('says verification failed, under a matching heading, without a session id', () => {
    const { calls } = mockFetch(() => ({ body: {} }));
    renderWithStore(<PaymentSuccess />, { route: '/payment/success' });
    expect(screen.getByRole('alert').textContent).toBe(
      'Payment verification failed. Please contact support if payment was made.',
    );
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Payment not confirmed');
    expect(calls).toHaveLength(0);
  });

  it('says a second payment of a paid job is being refunded, then that it was refunded', async () => {
    let n = 0;
    const { calls } = mockFetch(() => ({
      body: { payment_status: n++ < 1 ? 'refund_pending' : 'refunded', job_id: 'j' },
    }));
    renderWithStore(<PaymentSuccess />, { route: '/payment/success?session_id=cs_dup' });
    expect(
      await screen.findByText(
        'This job was already paid. This second payment will be refunded automatically.',
      ),
    ).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('This job was already paid');
    expect(
      await screen.findByText(
        'This job was already paid. This second payment has been refunded.',
        undefined,
        { timeout: 4000 },
      ),
    ).toBeTruthy();
    expect(screen.queryByText(/Your job is live/)).toBeNull();
    const seen = calls.length;
    await new Promise((r) => setTimeout(r, 2500));
    expect(calls.length).toBe(seen); // refunded is final: no more polling
  });

  it('keeps checking under "Checking your payment" for a status it does not know', async () => {
    mockFetch(() => ({ body: { payment_status: 'settling', job_id: 'j' } }));
    renderWithStore(<PaymentSuccess />, { route: '/payment/success?session_id=cs_2' });
    expect(await screen.findByText('Payment is still processing. Please wait...')).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Checking your payment');
  });

  it('shows the cancel message', () => {
    renderWithStore(<PaymentCancel />, { route: '/payment/cancel' });
    expect(screen.getByRole('alert').textContent).toBe(
      'Payment cancelled. Your job was not published.',
    );
  });
});
