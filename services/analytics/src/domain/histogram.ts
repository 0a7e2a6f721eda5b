/**
 * Durations kept as log-scale histograms: bucket b holds milliseconds in (1.05^(b-1), 1.05^b], so
 * any percentile read back is the top of its bucket, at most 5% above the true value, and the
 * answer costs the same with a thousand jobs or a million.
 */
const RATIO = 1.05;
const LOG = Math.log(RATIO);

export function bucketOf(ms: number): number {
  if (ms <= 1) return 0;
  const b = Math.ceil(Math.log(ms) / LOG - 1e-9);
  return Math.max(0, b);
}

/** The largest duration bucket b holds (ms). */
export function bucketTop(b: number): number {
  return b <= 0 ? 1 : Math.round(RATIO ** b);
}

/** Nearest-rank percentile (p in 0..1) of a histogram [bucket, count][] sorted by bucket; null when empty. */
export function percentile(
  hist: ReadonlyArray<readonly [number, number]>,
  p: number,
): number | null {
  const total = hist.reduce((s, [, c]) => s + c, 0);
  if (!total) return null;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (const [b, c] of hist) {
    seen += c;
    if (seen >= rank) return bucketTop(b);
  }
  return bucketTop(hist[hist.length - 1][0]);
}

/** Coarse bins for the chart (upper bounds in hours; the last bin is "longer"). */
export const RESULT_BINS_HOURS = [1, 2, 4, 8, 12, 24, 48] as const;

/** Folds a fine histogram into the chart's bins: [{upto_ms, count}], the last with upto_ms null. */
export function coarseBins(
  hist: ReadonlyArray<readonly [number, number]>,
  binsHours: readonly number[] = RESULT_BINS_HOURS,
): Array<{ upto_ms: number | null; count: number }> {
  const tops = binsHours.map((h) => h * 3600_000);
  const out: Array<{ upto_ms: number | null; count: number }> = [
    ...tops.map((t) => ({ upto_ms: t as number | null, count: 0 })),
    { upto_ms: null, count: 0 },
  ];
  for (const [b, c] of hist) {
    const top = bucketTop(b);
    const i = tops.findIndex((t) => top <= t);
    out[i === -1 ? tops.length : i].count += c;
  }
  return out;
}
