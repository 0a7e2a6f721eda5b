import '../../../test/setup';
import { describe, expect, it } from '@jest/globals';
import { screen, within } from '@testing-library/react';
import { renderWithStore } from '../../../test/render';
import { SUPPORT_EMAIL } from '../../../lib/config';

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

describe('the policy pages', () => {
  it.each([
    ['Terms of Service', TermsPage, /\$0\.82 for each accepted job/],
    ['Privacy Policy', PrivacyPage, /never see or store your card number/],
    ['Refund Policy', RefundPage, /second payment is refunded automatically/],
  ] as const)(
    '%s has its heading, its content, the contact and the footer',
    (title, Page, text) => {
      renderWithStore(<Page />);
      expect(screen.getByRole('heading', { level: 1, name: title })).toBeTruthy();
      expect(screen.getByText(text)).toBeTruthy();
      expect(screen.getByRole('main')).toBeTruthy();
      expect(
        within(screen.getByRole('contentinfo')).getByRole('link', { name: SUPPORT_EMAIL }),
      ).toBeTruthy();
      expect(document.title).toBe(`${title} · HumanTest`);
    },
  );
});
