/** The analytics histogram's bucket (services/analytics/src/domain/histogram.ts: ceil(log_1.05 ms)) as SQL over a millisecond expression. */
export function bucketOfSql(ms: string): string {
  return `GREATEST(0, CEIL(LN(GREATEST(${ms}, 1)) / LN(1.05) - 1e-9))::int`;
}
