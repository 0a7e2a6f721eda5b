import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, within } from '@testing-library/react';
import { setToken } from '../../../lib/tokens';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage } from '../../../test/setup';
import { LevelCard } from './level-card';

beforeEach(() => {
  resetStorage();
  setToken('t');
});

const standing = {
  jobs_completed: 6,
  acceptance_rate_pct: 86,
  rating_avg: 4.3,
  rating_count: 4,
  level: 'trusted',
  priority_access: false,
  next_level: {
    level: 'top',
    needs: [
      'ratings from 1 more poster (3 different posters in all)',
      'an average of 4.5 stars or more, each poster counted once (yours: 4.3)',
    ],
  },
};

describe('Level card', () => {
  it("shows the tester's record, level and what the next level needs", async () => {
    const { calls } = mockFetch((c) =>
      c.url === '/api/tester/standing' ? { body: standing } : { body: {} },
    );
    renderWithStore(<LevelCard />);
    const card = await screen.findByRole('region', { name: 'Your level: Trusted' });
    const record = within(card).getByRole('list', { name: 'Your record' });
    expect(within(record).getByText('6').parentElement!.textContent).toBe('6 Jobs completed');
    expect(within(record).getByText('86%').parentElement!.textContent).toBe('86% Acceptance rate');
    expect(within(record).getByText('4.3 ★').parentElement!.textContent).toBe(
      '4.3 ★ Average rating (4 ratings)',
    );
    expect(
      within(card).getByText(/To reach Top \(and see newly paid jobs first\), you need:/),
    ).toBeTruthy();
    expect(
      within(card).getByText('ratings from 1 more poster (3 different posters in all)'),
    ).toBeTruthy();
    expect(
      within(card).getByText(
        'an average of 4.5 stars or more, each poster counted once (yours: 4.3)',
      ),
    ).toBeTruthy();
    expect(calls.map((c) => c.url)).toContain('/api/tester/standing');
  });

  it('shows a new tester dashes instead of rates they do not have yet', async () => {
    mockFetch(() => ({
      body: {
        ...standing,
        jobs_completed: 0,
        acceptance_rate_pct: null,
        rating_avg: null,
        rating_count: 0,
        level: 'new',
        next_level: { level: 'trusted', needs: ['5 more accepted jobs (5 in all)'] },
      },
    }));
    renderWithStore(<LevelCard />);
    const card = await screen.findByRole('region', { name: 'Your level: New' });
    expect(within(card).getAllByText('—')).toHaveLength(2);
    expect(within(card).getByText('Average rating (0 ratings)')).toBeTruthy();
    expect(within(card).getByText('To reach Trusted, you need:')).toBeTruthy();
    expect(within(card).getByText('5 more accepted jobs (5 in all)')).toBeTruthy();
  });

  it('tells a Top tester they see newly paid jobs first, with no next level', async () => {
    mockFetch(() => ({
      body: { ...standing, level: 'top', priority_access: true, next_level: null },
    }));
    renderWithStore(<LevelCard />);
    const card = await screen.findByRole('region', { name: 'Your level: Top' });
    expect(
      within(card).getByText(
        'As a Top tester you see newly paid jobs first, before everyone else.',
      ),
    ).toBeTruthy();
    expect(within(card).queryByText(/To reach/)).toBeNull();
  });
});
