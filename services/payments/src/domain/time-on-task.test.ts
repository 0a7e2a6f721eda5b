import { describe, expect, it } from '@jest/globals';
import { timeOnTask } from './earnings.js';

describe('effective hourly rate', () => {
  it('is the earnings of jobs with minutes per hour of those minutes, two decimals, with their median', () => {
    const rows = [
      { amount_cents: 82, minutes_spent: 30 },
      { amount_cents: 82, minutes_spent: 10 },
      { amount_cents: 82, minutes_spent: null },
    ];
    // 164 cents over 40 minutes = 246 cents an hour.
    expect(timeOnTask(rows)).toEqual({ effective_hourly_rate: 2.46, median_minutes: 20 });
  });

  it('is null without any timed job', () => {
    expect(timeOnTask([{ amount_cents: 82, minutes_spent: null }])).toEqual({
      effective_hourly_rate: null,
      median_minutes: null,
    });
  });
});
