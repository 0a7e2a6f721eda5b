import { describe, expect, it } from '@jest/globals';
import { freshEyesBlocks, siteHost, siteKey } from './fresh-eyes.js';
import { inPriorityWindow, isTopRated } from './claim-job.js';

describe('fresh eyes', () => {
  it('treats hosts case-insensitively and ignores a leading www.', () => {
    expect(siteHost('https://WWW.Bakery.Example/cakes?x=1')).toBe('bakery.example');
    expect(siteHost('http://shop.bakery.example:8080/')).toBe('shop.bakery.example');
    expect(siteHost('https://www2.bakery.example')).toBe('www2.bakery.example');
  });

  it('blocks a tester who tested the same poster site only when the job asks for fresh eyes', () => {
    const job = { freshEyes: true, posterId: 'p1', siteHost: 'bakery.example' };
    expect(freshEyesBlocks(job, [siteKey('p1', 'bakery.example')])).toBe(true);
    expect(
      freshEyesBlocks(job, [siteKey('p2', 'bakery.example'), siteKey('p1', 'pastry.example')]),
    ).toBe(false);
    expect(freshEyesBlocks({ ...job, freshEyes: false }, [siteKey('p1', 'bakery.example')])).toBe(
      false,
    );
  });
});

describe('priority window', () => {
  it('calls a tester top-rated at an average of 4.5 (one decimal, half up) over at least 3 ratings', () => {
    expect(isTopRated(14, 3)).toBe(true); // 4.67
    expect(isTopRated(89, 20)).toBe(true); // 4.45 shows as 4.5
    expect(isTopRated(88, 20)).toBe(false); // 4.4
    expect(isTopRated(10, 2)).toBe(false); // two ratings are not enough
  });

  it('hides a job from others for the window after payment, only where a top-rated tester exists, never when 0', () => {
    const now = new Date('2026-01-01T12:00:00Z');
    const job = { paidAt: new Date('2026-01-01T11:55:00Z'), geoRule: 'us_pr_ca' };
    const others = { topRated: false, windowRules: ['us_pr_ca' as const] };
    expect(inPriorityWindow(job, others, 600_000, now)).toBe(true);
    expect(inPriorityWindow(job, { ...others, topRated: true }, 600_000, now)).toBe(false);
    expect(inPriorityWindow(job, { ...others, windowRules: [] }, 600_000, now)).toBe(false);
    expect(inPriorityWindow(job, others, 0, now)).toBe(false);
    expect(inPriorityWindow(job, others, 240_000, now)).toBe(false); // paid 5 minutes ago, 4-minute window
  });
});
