import '../../../test/setup';
import { beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage } from '../../../test/setup';
import { resetSiteInfo } from '../../../lib/site-info';
import { LandingPage } from './landing-page';

beforeAll(async () => {
  // The landing's lazily loaded parts, one at a time (jest's ESM loader cannot link a dynamic
  // import still in flight when a test ends, and concurrent ones race).
  const loaders = [
    () => import('./waitlist-form'),
    () => import('./tester-signup-form'),
    () => import('./job-request-form'),
    () => import('./developer-lead-form'),
    () => import('../../../components/feedback-form'),
    () => import('./live-proof'),
    () => import('../../../lib/api'),
  ];
  for (const load of loaders) await load();
});

beforeEach(() => resetStorage());

const proofAnswer = (proof: unknown) =>
  mockFetch((c) =>
    c.url.includes('/api/public/proof') ? { body: { proof } } : { status: 200, body: {} },
  );

describe('landing page: proof and policies', () => {
  it('links the example report from the hero and the samples, and the policies and contact from the footer', () => {
    proofAnswer(null);
    renderWithStore(<LandingPage signedIn={false} />);
    const examples = screen
      .getAllByRole('link', { name: /example report/i })
      .map((a) => a.getAttribute('href'));
    // Hero, samples and footer.
    expect(examples).toEqual(['/example-report', '/example-report', '/example-report']);
    const footer = screen.getByRole('contentinfo');
    // No contact configured: no placeholder address, no operator line.
    expect(within(footer).queryByRole('link', { name: /@/ })).toBeNull();
    expect(footer.textContent).not.toMatch(/humantest\.example|Run by/);
    for (const [name, href] of [
      ['Terms', '/terms'],
      ['Privacy', '/privacy'],
      ['Refunds', '/refunds'],
      ['Tester Login', '/login/tester'],
    ])
      expect(within(footer).getByRole('link', { name }).getAttribute('href')).toBe(href);
  });

  it("shows the operator and the contact e-mail the gateway's configuration names", () => {
    proofAnswer(null);
    document.head.insertAdjacentHTML(
      'beforeend',
      '<meta name="htm:operator" content="Example Labs LLC"><meta name="htm:support-email" content="help@example-labs.example">',
    );
    resetSiteInfo();
    try {
      renderWithStore(<LandingPage signedIn={false} />);
      const footer = screen.getByRole('contentinfo');
      expect(within(footer).getByText('Run by Example Labs LLC.')).toBeTruthy();
      expect(
        within(footer)
          .getByRole('link', { name: 'help@example-labs.example' })
          .getAttribute('href'),
      ).toBe('mailto:help@example-labs.example');
    } finally {
      document.head.querySelectorAll('meta[name^="htm:"]').forEach((m) => m.remove());
      resetSiteInfo();
    }
  });

  it("sells today's product: recording, severity, share link and PDF, several testers", () => {
    proofAnswer(null);
    renderWithStore(<LandingPage signedIn={false} />);
    const price = screen.getByRole('complementary', { name: 'Pricing' });
    const text = price.textContent ?? '';
    expect(text).not.toContain('3 key findings + screenshots');
    for (const promise of [
      /recording of their screen and voice/,
      /ranked by severity/,
      /share link, a PDF/,
      /several testers/,
    ])
      expect(text).toMatch(promise);
  });

  it('shows live proof from real data once there is enough of it', async () => {
    const { calls } = proofAnswer({ tests_delivered: 1234, median_hours_to_first_result: 6.5 });
    renderWithStore(<LandingPage signedIn={false} />);
    const proof = await screen.findByText(/tests delivered/);
    expect(proof.closest('p')!.textContent).toBe(
      '1,234 tests delivered, median time to first result 6.5 hours.',
    );
    expect(calls.some((c) => c.url === '/api/public/proof')).toBe(true);
  });

  it('shows no proof while there is too little data, or when it cannot be loaded', async () => {
    const { calls } = proofAnswer(null);
    const first = renderWithStore(<LandingPage signedIn={false} />);
    await waitFor(() => expect(calls.some((c) => c.url === '/api/public/proof')).toBe(true));
    await screen.findByRole('form', { name: 'Tester signup' });
    expect(screen.queryByText(/tests delivered/)).toBeNull();
    first.unmount();
    mockFetch((c) => (c.url.includes('/api/public/proof') ? { status: 503, body: {} } : {}));
    renderWithStore(<LandingPage signedIn={false} />);
    await screen.findByRole('form', { name: 'Tester signup' });
    expect(screen.queryByText(/tests delivered/)).toBeNull();
  });

  it('shows only one waitlist form at a time (the sign-in problem offers its own)', async () => {
    proofAnswer(null);
    const normal = renderWithStore(<LandingPage signedIn={false} />);
    expect(await screen.findAllByRole('form', { name: 'Join the waitlist' })).toHaveLength(1);
    normal.unmount();
    renderWithStore(
      <LandingPage
        signedIn={false}
        authError={{ code: 'gmail_only', message: 'Please sign in with a Gmail account' }}
      />,
    );
    await screen.findByRole('form', { name: 'Tester signup' });
    const forms = screen.getAllByRole('form', { name: 'Join the waitlist' });
    expect(forms).toHaveLength(1);
    expect(screen.getByRole('alert', { name: 'Sign-in problem' }).contains(forms[0])).toBe(true);
  });
});
