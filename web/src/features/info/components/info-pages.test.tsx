import '../../../test/setup';
import { describe, expect, it } from '@jest/globals';
import { screen, within } from '@testing-library/react';
import { renderWithStore } from '../../../test/render';
import { resetSiteInfo } from '../../../lib/site-info';

// jsdom has no layout: the page's scroll to its top is a no-op here.
window.scrollTo = (() => undefined) as typeof window.scrollTo;
import ExampleReportPage from './example-report';
import { PrivacyPage, RefundPage, TermsPage } from './policy-pages';

describe('the public example report', () => {
  it('shows a complete report as a poster sees it: findings worst first with steps, checklist answers, feedback', () => {
    renderWithStore(<ExampleReportPage />);
    expect(screen.getByRole('heading', { level: 1, name: 'Example report' })).toBeTruthy();
    const report = screen.getByRole('article', { name: /The report/ });
    expect(within(report).getByRole('heading', { name: 'Key findings' })).toBeTruthy();
    const findings = within(report)
      .getAllByRole('listitem')
      .filter((li) => li.classList.contains('finding-card'));
    expect(findings.map((f) => f.querySelector('.severity')?.textContent)).toEqual([
      'blocker',
      'major',
      'minor',
    ]);
    expect(within(findings[0]).getByText('Steps to reproduce')).toBeTruthy();
    expect(within(report).getByRole('heading', { name: 'Answers to your checklist' })).toBeTruthy();
    expect(within(report).getByText(/Is it clear when the cake can be picked up/)).toBeTruthy();
    expect(within(report).getByRole('heading', { name: 'General feedback' })).toBeTruthy();
    expect(within(report).getByText('Completed')).toBeTruthy();
    expect(
      screen.getByRole('link', { name: 'Get your site tested for $1' }).getAttribute('href'),
    ).toBe('/#job-request');
  });
});

describe('the example report shows the report a poster really gets', () => {
  it('has the screen recording with findings on its timeline, the screenshot inline and what three testers agree on', () => {
    renderWithStore(<ExampleReportPage />);
    const report = screen.getByRole('article', { name: /The report/ });
    const video = report.querySelector('video');
    expect(video?.getAttribute('src')).toBe('/example/recording.webm');
    // Each pinned finding can be played from its moment.
    expect(
      within(report).getAllByRole('button', { name: /^Play the recording at 0:0\d/ }).length,
    ).toBe(3);
    expect(
      within(report).getByRole('img', { name: 'checkout-saturday.png' }).getAttribute('src'),
    ).toBe('/example/screenshot.png');
    const agree = within(report).getByRole('region', { name: /What they agree on/ });
    expect(within(agree).getByText('3 of 3 testers:')).toBeTruthy();
    expect(within(report).getByText(/share link .* PDF download/)).toBeTruthy();
  });
});

describe('the policy pages', () => {
  it.each([
    ['Terms of Service', TermsPage, /\$0\.82 for each accepted job/],
    ['Privacy Policy', PrivacyPage, /never see or store your card number/],
    ['Refund Policy', RefundPage, /second payment is refunded automatically/],
  ] as const)(
    '%s has its heading, its content, who runs HumanTest, the contact and the footer',
    (title, Page, text) => {
      document.head.insertAdjacentHTML(
        'beforeend',
        '<meta name="htm:operator" content="Example Labs LLC"><meta name="htm:operator-address" content="1 Main St, Springfield"><meta name="htm:support-email" content="help@example-labs.example">',
      );
      resetSiteInfo();
      try {
        renderWithStore(<Page />);
        expect(screen.getByRole('heading', { level: 1, name: title })).toBeTruthy();
        expect(screen.getByText(text)).toBeTruthy();
        expect(screen.getByRole('main')).toBeTruthy();
        expect(screen.getByRole('heading', { name: 'Who we are' })).toBeTruthy();
        expect(
          screen.getByText(/HumanTest is run by Example Labs LLC, 1 Main St, Springfield\./),
        ).toBeTruthy();
        expect(
          within(screen.getByRole('main')).getAllByRole('link', {
            name: 'help@example-labs.example',
          }).length,
        ).toBeGreaterThan(0);
        expect(
          within(screen.getByRole('contentinfo')).getByRole('link', {
            name: 'help@example-labs.example',
          }),
        ).toBeTruthy();
        expect(document.title).toBe(`${title} · HumanTest`);
      } finally {
        document.head.querySelectorAll('meta[name^="htm:"]').forEach((m) => m.remove());
        resetSiteInfo();
      }
    },
  );

  it('names no operator and no placeholder address when none is configured', () => {
    renderWithStore(<TermsPage />);
    expect(screen.queryByRole('heading', { name: 'Who we are' })).toBeNull();
    expect(document.body.textContent).not.toMatch(/humantest\.example/);
    expect(screen.getByRole('link', { name: 'home page' }).getAttribute('href')).toBe('/');
  });
});
