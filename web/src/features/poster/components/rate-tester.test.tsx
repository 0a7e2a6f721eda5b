import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setToken } from '../../../lib/tokens';
import type { JobView as Job } from '@htm/contracts/jobs';
import { renderWithStore } from '../../../test/render';
import { mockFetch, resetStorage } from '../../../test/setup';
import { RateTester } from './rate-tester';

beforeEach(() => {
  resetStorage();
  setToken('poster-token');
});

const job = (over: Partial<Job> = {}): Job =>
  ({
    id: 'job-1',
    title: 'Bakery',
    url: 'https://bakery.example',
    status: 'completed',
    rating: null,
    ...over,
  }) as Job;

describe('rating the tester on the results screen', () => {
  it('asks for stars before sending anything', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: {} }));
    renderWithStore(<RateTester job={job()} />);
    await userEvent.click(screen.getByRole('button', { name: 'Save rating' }));
    expect(screen.getByText('Stars must be a whole number from 1 to 5')).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it('draws the choice as stars, each a radio a keyboard and a screen reader can use', async () => {
    mockFetch(() => ({ status: 201, body: {} }));
    const { container } = renderWithStore(<RateTester job={job()} />);
    const glyphs = () => [...container.querySelectorAll('.star__glyph')].map((g) => g.textContent);
    expect(glyphs()).toEqual(['☆', '☆', '☆', '☆', '☆']);
    const three = screen.getByRole('radio', { name: '3 stars' });
    await userEvent.click(three);
    expect(glyphs()).toEqual(['★', '★', '★', '☆', '☆']);
    // Five native radios of one group (the browser's arrow keys move along it), named for a screen reader.
    const radios = screen.getAllByRole('radio') as HTMLInputElement[];
    expect(radios.map((r) => r.name)).toEqual(Array(5).fill('stars'));
    expect(radios.map((r) => r.getAttribute('aria-label'))).toEqual([
      '1 star',
      '2 stars',
      '3 stars',
      '4 stars',
      '5 stars',
    ]);
    await userEvent.click(screen.getByRole('radio', { name: '1 star' }));
    expect(glyphs()).toEqual(['★', '☆', '☆', '☆', '☆']);
    expect(screen.getByRole('group', { name: 'Rate the tester' })).toBeTruthy();
  });

  it('sends the stars and the comment, then shows the rating', async () => {
    const { calls } = mockFetch(() => ({
      status: 201,
      body: { rating: { stars: 4, comment: 'Helpful notes', created_at: '2026-01-01T00:00:00Z' } },
    }));
    renderWithStore(<RateTester job={job()} />);
    await userEvent.click(screen.getByLabelText('4 stars'));
    await userEvent.type(screen.getByLabelText(/Comment/), 'Helpful notes');
    await userEvent.click(screen.getByRole('button', { name: 'Save rating' }));
    await waitFor(() => expect(screen.getByText('You rated this tester 4 out of 5.')).toBeTruthy());
    expect(calls[0]).toMatchObject({
      url: '/api/jobs/job-1/rating',
      method: 'POST',
      body: { stars: 4, comment: 'Helpful notes' },
    });
  });

  it("shows the server's refusal (already rated)", async () => {
    mockFetch(() => ({
      status: 409,
      body: { detail: 'You have already rated this job.', code: 'already_rated' },
    }));
    renderWithStore(<RateTester job={job()} />);
    await userEvent.click(screen.getByLabelText('5 stars'));
    await userEvent.click(screen.getByRole('button', { name: 'Save rating' }));
    await waitFor(() => expect(screen.getByText('You have already rated this job.')).toBeTruthy());
  });

  it('shows an existing rating instead of the form', () => {
    mockFetch(() => ({ status: 200, body: {} }));
    renderWithStore(
      <RateTester
        job={job({ rating: { stars: 3, comment: null, created_at: '2026-01-01T00:00:00Z' } })}
      />,
    );
    expect(screen.getByText('You rated this tester 3 out of 5.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Save rating' })).toBeNull();
  });
});
