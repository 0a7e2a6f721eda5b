import { describe, expect, it } from '@jest/globals';
import { retryDelay } from './sender.js';

describe('retryDelay', () => {
  it('doubles from the base after each failed attempt and stops growing at the maximum', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelay(n, 5000, 60_000))).toEqual([
      5000, 10_000, 20_000, 40_000, 60_000, 60_000,
    ]);
    expect(retryDelay(500, 5000, 3600_000)).toBe(3600_000);
  });
});
