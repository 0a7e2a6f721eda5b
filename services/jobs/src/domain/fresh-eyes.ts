import type { JobRow } from '../db/schema.js';

/**
 * Fresh eyes ("Beyond the peers, part 1", item 2): a job with `fresh_eyes` on is neither shown
 * to nor claimable by a tester who has submitted work on an earlier job of the same poster for
 * the same site (same host, case-insensitive, a leading `www.` ignored).
 */

/** The "same site" key of a URL: its host, lower-case, without a leading `www.`. */
export function siteHost(url: string): string {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return '';
  }
  return host.toLowerCase().replace(/^www\./, '');
}

/** A poster's site as one string: what a tester has "seen" (see testedSites in the repository). */
export function siteKey(posterId: string, host: string): string {
  return `${posterId}|${host}`;
}

/**
 * THE fresh-eyes rule for one job and one tester: true when the job asks for fresh eyes and the
 * tester has already tested this poster's site (`testedSites`: siteKey()s of the jobs they
 * submitted work on). The available-jobs query applies the same rule in
 * SQL (freshEyesFilter in job.repository.ts); change both together (e.g. re-tests).
 */
export function freshEyesBlocks(
  job: Pick<JobRow, 'freshEyes' | 'posterId' | 'siteHost'>,
  testedSites: readonly string[],
): boolean {
  return job.freshEyes && testedSites.includes(siteKey(job.posterId, job.siteHost));
}
