import { describe, expect, it } from '@jest/globals';
import { inPriorityWindow, isTopRated } from './claim-job.js';

describe('priority window', () => {
  it('calls a tester top-rated at an average of 4.5 (one decimal, half up) from at least 3 posters', () => {
    const one = (stars: number) => ({ sum: stars, count: 1 });
    expect(isTopRated([one(5), one(5), one(4)])).toBe(true); // 4.67
    expect(
      isTopRated([...Array(9)].map(() => one(5)).concat([...Array(11)].map(() => one(4)))),
    ).toBe(true); // 4.45 shows as 4.5
    expect(
      isTopRated([...Array(8)].map(() => one(5)).concat([...Array(12)].map(() => one(4)))),
    ).toBe(false); // 4.4
    expect(isTopRated([one(5), one(5)])).toBe(false); // two posters are not enough
  });

  it('counts each poster once: one poster rating many jobs is one voice', () => {
    expect(isTopRated([{ sum: 50, count: 10 }])).toBe(false); // one colluding poster, ten 5-star ratings
    expect(
      isTopRated([
        { sum: 50, count: 10 },
        { sum: 5, count: 1 },
      ]),
    ).toBe(false); // two posters
    // Three posters: the colluder's ten 5s weigh as one 5 beside two 3s (average 3.7).
    expect(
      isTopRated([
        { sum: 50, count: 10 },
        { sum: 3, count: 1 },
        { sum: 3, count: 1 },
      ]),
    ).toBe(false);
    expect(
      isTopRated([
        { sum: 50, count: 10 },
        { sum: 9, count: 2 },
        { sum: 5, count: 1 },
      ]),
    ).toBe(true); // 5, 4.5, 5
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
