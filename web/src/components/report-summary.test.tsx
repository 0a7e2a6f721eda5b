import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { fireEvent, screen, within } from '@testing-library/react';
import { summaryFixture } from '@htm/contracts/testing';
import { renderWithStore } from '../test/render';
import { mockFetch, resetStorage, type Call } from '../test/setup';
import { axeFindings } from '../test/axe';
import { setToken } from '../lib/tokens';
import { JobSummary, PackSummary } from './report-summary';

/** Signed links, as a signed-in reader gets them. */
const summary = () => summaryFixture((path) => `/api/${path}?sig=x`);

beforeEach(() => {
  resetStorage();
  setToken('t');
  // jsdom has no media playback: play() and load() do nothing here.
  jest
    .spyOn(HTMLMediaElement.prototype, 'play')
    .mockImplementation(() => Promise.resolve(undefined));
  jest.spyOn(HTMLMediaElement.prototype, 'load').mockImplementation(() => undefined);
  jest.spyOn(HTMLMediaElement.prototype, 'pause').mockImplementation(() => undefined);
});

describe('the summary at the top of a report', () => {
  it('says what to fix first with its proof, what worked, how each thing to check went and SUS, accessibly', async () => {
    const { calls } = mockFetch(() => ({ body: summary() }));
    const { container } = renderWithStore(<JobSummary jobId="j1" />);
    const section = await screen.findByRole('region', { name: 'Fix first' });
    expect(calls[0].url).toMatch(/\/api\/jobs\/j1\/summary$/);
    const items = within(section)
      .getAllByRole('listitem')
      .filter((li) => li.id.startsWith('fix-first-'));
    expect(items.map((li) => li.id)).toEqual(['fix-first-1', 'fix-first-2']);
    expect(
      within(items[0]).getByText('Checkout forces account creation', { selector: 'strong' }),
    ).toBeTruthy();
    expect(within(items[0]).getByText('Blocker')).toBeTruthy();
    expect(items[0].textContent).toContain('3 of 5 testers · Buy a product as a new customer');
    expect(items[0].textContent).toContain(
      'The health check found this too: 2 form fields have no label.',
    );
    expect(within(items[0]).getByText('Proof: 2 findings, 2 moments, 1 screenshot')).toBeTruthy();
    expect(
      within(items[0])
        .getByRole('link', { name: "Sam's screenshot (opens in a new tab)" })
        .getAttribute('href'),
    ).toBe('/api/files/shot-1?sig=x');
    expect(
      within(items[0])
        .getByRole('link', { name: "Read Kim's finding: Must create an account to check out" })
        .getAttribute('href'),
    ).toBe('#finding-2');
    expect(section.textContent).toContain(
      'What worked: Find the shipping costs: done by 3 testers',
    );
    expect(screen.getByText('Buy a product as a new customer', { selector: 'p' })).toBeTruthy();
    // A thing to check nobody answered is not listed.
    expect(screen.queryByText('Find the shipping costs', { selector: 'p' })).toBeNull();
    expect(screen.getByText('50% (2 testers)')).toBeTruthy();
    expect(screen.getByText('4 min')).toBeTruthy();
    expect(screen.getByText('3.5 of 7 (2 testers)')).toBeTruthy();
    expect(
      screen.getByText(
        'Overall usability (SUS): 72.5 of 100 against an average of 68, from 2 testers. More usable than most sites.',
      ),
    ).toBeTruthy();
    expect(await axeFindings(container)).toEqual([]);
  });

  it('plays the reel clip by clip: next, previous, a chosen clip, a piece of proof, and the keys', async () => {
    mockFetch(() => ({ body: summary() }));
    renderWithStore(<JobSummary jobId="j1" />);
    const reel = await screen.findByRole('region', { name: 'Highlight reel' });
    const video = reel.querySelector('video')!;
    await screen.findByText('Clip 1 of 2:');
    expect(video.getAttribute('src')).toBe('/api/recordings/rec-1?sig=x#t=25.0');
    expect(
      screen.getByText(
        "2 clips, 27 s: the moment each top problem shows in the testers' recordings.",
      ),
    ).toBeTruthy();
    expect(within(reel).getByRole('button', { name: 'Previous clip' })).toHaveProperty(
      'disabled',
      true,
    );
    fireEvent.click(within(reel).getByRole('button', { name: 'Next clip' }));
    expect(video.getAttribute('src')).toBe('/api/recordings/rec-3?sig=x#t=0.0');
    expect(reel.textContent).toContain('Clip 2 of 2:');
    // N / P / K work anywhere in the player.
    fireEvent.keyDown(reel, { key: 'p' });
    expect(reel.textContent).toContain('Clip 1 of 2:');
    fireEvent.click(
      within(reel).getByRole('button', { name: /0:00–0:12 Pay <button> does nothing/ }),
    );
    expect(reel.textContent).toContain('Clip 2 of 2:');
    expect(
      within(reel)
        .getByRole('button', { name: /0:00–0:12/ })
        .getAttribute('aria-current'),
    ).toBe('true');
    // A piece of proof plays as one more clip (5 s before its moment to 10 s after).
    const proof = screen.getByText('Proof: 2 findings, 2 moments, 1 screenshot');
    fireEvent.click(proof);
    fireEvent.click(screen.getByRole('button', { name: "Play Kim's recording at 0:42" }));
    expect(await screen.findByText('Clip 3 of 3:')).toBeTruthy();
    expect(video.getAttribute('src')).toBe('/api/recordings/rec-2?sig=x#t=37.0');
    expect(
      within(reel).getByRole('button', { name: /0:37–0:52 Kim: Must create an account/ }),
    ).toBeTruthy();
  });

  it('says the summary is on its way while it is computed, and nothing before a report is in', async () => {
    mockFetch((c: Call) =>
      c.url.includes('/packs/p1/')
        ? { status: 404, body: { detail: 'wait', code: 'summary_pending' } }
        : { status: 404, body: { detail: 'none', code: 'no_submission' } },
    );
    const { container } = renderWithStore(
      <>
        <PackSummary packId="p1" />
        <JobSummary jobId="none" />
      </>,
    );
    expect(await screen.findByText(/The summary is being prepared/)).toBeTruthy();
    expect(container.querySelectorAll('section')).toHaveLength(0);
  });
});
