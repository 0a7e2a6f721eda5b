import { describe, expect, it } from '@jest/globals';
import { bucketOf, bucketTop, coarseBins, percentile } from './histogram.js';

describe('duration histograms', () => {
  it('keep every duration within 5% below the top of its bucket', () => {
    for (const ms of [2, 999, 60_000, 3_600_000, 7 * 86_400_000, 123_456_789]) {
      const top = bucketTop(bucketOf(ms));
      expect(top).toBeGreaterThanOrEqual(ms);
      expect(top).toBeLessThanOrEqual(ms * 1.05 + 1);
    }
  });

  it('reads nearest-rank percentiles, null when empty', () => {
    const hours = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((h) => h * 3600_000);
    const hist = new Map<number, number>();
    for (const ms of hours) hist.set(bucketOf(ms), (hist.get(bucketOf(ms)) ?? 0) + 1);
    const sorted = [...hist].sort((a, b) => a[0] - b[0]);
    const p50 = percentile(sorted, 0.5)!;
    const p90 = percentile(sorted, 0.9)!;
    expect(p50 / (5 * 3600_000)).toBeGreaterThanOrEqual(1);
    expect(p50 / (5 * 3600_000)).toBeLessThanOrEqual(1.05);
    expect(p90 / (9 * 3600_000)).toBeGreaterThanOrEqual(1);
    expect(p90 / (9 * 3600_000)).toBeLessThanOrEqual(1.05);
    expect(percentile([], 0.5)).toBeNull();
  });

  it('folds into the chart bins, longer than two days last', () => {
    const hist: Array<[number, number]> = [
      [bucketOf(30 * 60_000), 2],
      [bucketOf(3 * 3600_000), 1],
      [bucketOf(72 * 3600_000), 4],
    ];
    expect(coarseBins(hist).map((b) => b.count)).toEqual([2, 0, 1, 0, 0, 0, 0, 4]);
    expect(coarseBins(hist).at(-1)!.upto_ms).toBeNull();
  });
});
