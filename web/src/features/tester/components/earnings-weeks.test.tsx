import '../../../test/setup';
import { describe, expect, it } from '@jest/globals';
import { render, screen, within } from '@testing-library/react';
import { weeklyEarnings } from './earnings-by-week';
import { EarningsWeeks } from './earnings-weeks';

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();

describe('Earnings of the last 12 weeks', () => {
  it('sums dated earnings per ISO week (Monday to Sunday), oldest first, leaving older ones out', () => {
    const now = new Date('2026-11-26T12:00:00Z'); // a Thursday
    const weeks = weeklyEarnings(
      [
        { amount: 0.82, completed_at: '2026-11-23T00:00:00Z' }, // Monday of this week
        { amount: 0.82, completed_at: '2026-11-26T09:00:00Z' },
        { amount: 0.82, completed_at: '2026-11-22T23:59:59Z' }, // Sunday: the week before
        { amount: 0.82, completed_at: '2026-09-06T10:00:00Z' }, // 12th week back: left out
      ],
      now,
    );
    expect(weeks).toHaveLength(12);
    expect(weeks[0].week).toBe('2026-09-07');
    expect(weeks[11]).toEqual({ week: '2026-11-23', label: 'Nov 23', amount_usd: 1.64, jobs: 2 });
    expect(weeks[10]).toEqual({ week: '2026-11-16', label: 'Nov 16', amount_usd: 0.82, jobs: 1 });
    expect(weeks.reduce((n, w) => n + w.jobs, 0)).toBe(3);
  });

  it('offers the chart as a table for screen readers, with a summary', async () => {
    render(
      <EarningsWeeks
        rows={[
          { amount: 0.82, completed_at: daysAgo(0) },
          { amount: 0.82, completed_at: daysAgo(0) },
          { amount: 0.82, completed_at: daysAgo(21) },
        ]}
      />,
    );
    const figure = screen.getByRole('figure', { name: /^Earnings, last 12 weeks/ });
    expect(within(figure).getByRole('img').getAttribute('aria-label')).toMatch(
      /^Earnings, last 12 weeks: \$2\.46 from 3 jobs; best week: \w{3} \d{1,2}, \$1\.64$/,
    );
    expect(within(figure).getByText('Show as a table').tagName).toBe('SUMMARY');
    const table = within(figure).getByRole('table', {
      name: 'Earnings, last 12 weeks',
      hidden: true,
    });
    const rows = within(table).getAllByRole('row', { hidden: true });
    expect(rows).toHaveLength(13); // the header and 12 weeks
    expect(rows[12].textContent).toMatch(/\$1\.642$/);
  });

  it('says when nothing was earned in these weeks', () => {
    render(<EarningsWeeks rows={[]} />);
    expect(screen.getByText('Nothing earned in these weeks yet')).toBeTruthy();
  });
});
