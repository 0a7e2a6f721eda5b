import { GEO_ADMISSION, USER_COUNTRIES } from '@htm/contracts';
import { bucketOf } from './histogram.js';

/** The UTC day of a moment, YYYY-MM-DD. */
export function dayOf(at: Date | string): string {
  return new Date(at).toISOString().slice(0, 10);
}

export type DurationMetric = 'claim' | 'submit' | 'result';

export interface JobTimes {
  paidAt: Date | null;
  firstClaimedAt: Date | null;
  firstSubmittedAt: Date | null;
  claimRecorded: boolean;
  submitRecorded: boolean;
  resultRecorded: boolean;
}

export interface DurationFact {
  metric: DurationMetric;
  /** The day the duration ended (its end event's day). */
  day: string;
  bucket: number;
  ms: number;
}

/**
 * The durations a job's times make known for the first time (both ends seen, not yet recorded),
 * whichever event brought the second end: paid -> first claim, first claim -> first submission,
 * paid -> first submission (the poster's time to a first result).
 */
export function newDurations(job: JobTimes): DurationFact[] {
  const out: DurationFact[] = [];
  const add = (metric: DurationMetric, start: Date | null, end: Date | null, done: boolean) => {
    if (done || !start || !end) return;
    const ms = Math.max(0, end.getTime() - start.getTime());
    out.push({ metric, day: dayOf(end), bucket: bucketOf(ms), ms });
  };
  add('claim', job.paidAt, job.firstClaimedAt, job.claimRecorded);
  add('submit', job.firstClaimedAt, job.firstSubmittedAt, job.submitRecorded);
  add('result', job.paidAt, job.firstSubmittedAt, job.resultRecorded);
  return out;
}

/** The countries whose testers a geo rule admits (global_beta: every country a tester can choose). */
export function countriesOf(geoRule: string): readonly string[] {
  // The rules module's admission; an unknown rule counts like global_beta, as before.
  const admitted = (GEO_ADMISSION as Record<string, readonly string[] | 'any' | undefined>)[
    geoRule
  ];
  return admitted && admitted !== 'any' ? admitted : USER_COUNTRIES;
}

/** Jobs per geo rule -> jobs each country's testers may take. */
export function demandByCountry(byGeoRule: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(USER_COUNTRIES.map((c) => [c, 0]));
  for (const [rule, n] of Object.entries(byGeoRule))
    for (const c of countriesOf(rule)) out[c] = (out[c] ?? 0) + n;
  return out;
}

/** Every UTC day from `from` to `to`, both included. */
export function eachDay(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000)
    out.push(dayOf(new Date(t)));
  return out;
}

/** a / b rounded to 4 places; null when b is 0. */
export function rate(a: number, b: number): number | null {
  return b ? Math.round((a / b) * 10_000) / 10_000 : null;
}

/** The Monday (UTC) of the week a day belongs to. */
export function weekOf(day: string): string {
  const t = Date.parse(`${day}T00:00:00Z`);
  const sinceMonday = (new Date(t).getUTCDay() + 6) % 7;
  return dayOf(new Date(t - sinceMonday * 86_400_000));
}
