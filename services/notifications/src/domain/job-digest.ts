import { randomUUID } from 'node:crypto';
import { geoAllows, JOB_DIGEST_MIN_GAP_MS } from '@htm/contracts';
import type { Db } from '@htm/service-kit/db';
import { enqueueMessage } from '../db/message.repository.js';
import {
  digestCandidates,
  openPaidJobs,
  recordDigest,
  tryDigestLock,
  type DigestJob,
  type DigestTester,
} from '../db/digest.repository.js';

export type { DigestJob, DigestTester };

/** At most this many jobs are listed in one digest (the dashboard lists them all). */
export const DIGEST_MAX_JOBS = 10;
/** Only jobs paid within this time count as new (a tester who opts in is not sent the backlog). */
export const DIGEST_LOOKBACK_MS = 24 * 3_600_000;

/**
 * Whether this tester may take this job now, by the jobs service's rules as far as the events
 * tell them: approved, a country the geo rule admits, the assistive technology the job names,
 * fresh eyes (not a site they tested), not a re-test held for someone else. The priority window
 * is applied the safe way: top-rated testers are not tracked here, so a job is announced only
 * once its window is over for everyone (no e-mail about a job the reader cannot claim yet).
 */
export function testerMayTake(
  tester: DigestTester,
  job: DigestJob,
  now: Date,
  priorityWindowMs: number,
): boolean {
  if (!tester.approved || !tester.country) return false;
  if (job.status !== 'open' || !job.paidAt || !job.geoRule) return false;
  if (!geoAllows(job.geoRule, tester.country)) return false;
  if (job.assistiveTech && !tester.assistiveTech.includes(job.assistiveTech)) return false;
  if (
    job.freshEyes &&
    job.siteHost &&
    tester.testedSites.includes(`${job.posterId}|${job.siteHost}`)
  )
    return false;
  if (
    job.reservedTesterId &&
    job.reservedTesterId !== tester.id &&
    job.reservedUntil &&
    job.reservedUntil.getTime() > now.getTime()
  )
    return false;
  if (priorityWindowMs > 0 && job.paidAt.getTime() + priorityWindowMs > now.getTime()) return false;
  return true;
}

/** Whether a tester may get a digest now: at most one per JOB_DIGEST_MIN_GAP_MS. */
export function digestDue(lastDigestAt: Date | null, now: Date): boolean {
  return !lastDigestAt || now.getTime() - lastDigestAt.getTime() >= JOB_DIGEST_MIN_GAP_MS;
}

/** The jobs of one tester's next digest: new, takeable, not announced to them before; oldest first. */
export function digestFor(
  tester: DigestTester,
  jobs: readonly DigestJob[],
  now: Date,
  priorityWindowMs: number,
): DigestJob[] {
  return jobs
    .filter((j) => !tester.announced.includes(j.id))
    .filter((j) => j.paidAt && now.getTime() - j.paidAt.getTime() <= DIGEST_LOOKBACK_MS)
    .filter((j) => testerMayTake(tester, j, now, priorityWindowMs))
    .sort((a, b) => a.paidAt!.getTime() - b.paidAt!.getTime());
}

/**
 * One digest round: every tester who switched the digest on, had none in the last hour and can
 * take new jobs gets one e-mail listing them (queued like any message; sent by the mail sender).
 * One replica at a time (advisory lock); the queued message, the announced jobs and the tester's
 * last digest time commit together. Answers how many digests it queued.
 */
export async function queueJobDigests(
  db: Db,
  opts: { priorityWindowMs: number; now?: Date; kick?: () => void },
): Promise<number> {
  const now = opts.now ?? new Date();
  const queued = await db.transaction(async (tx) => {
    if (!(await tryDigestLock(tx))) return 0;
    const testers = (await digestCandidates(tx)).filter((t) => digestDue(t.lastDigestAt, now));
    if (!testers.length) return 0;
    const jobs = await openPaidJobs(tx, new Date(now.getTime() - DIGEST_LOOKBACK_MS));
    let n = 0;
    for (const tester of testers) {
      const fit = digestFor(tester, jobs, now, opts.priorityWindowMs);
      if (!fit.length) continue;
      const listed = fit.slice(0, DIGEST_MAX_JOBS);
      await enqueueMessage(tx, {
        eventId: randomUUID(),
        kind: 'job_digest',
        userId: tester.id,
        data: {
          jobs: listed.map((j) => ({ id: j.id, title: j.title })),
          more: fit.length - listed.length,
        },
      });
      await recordDigest(
        tx,
        tester.id,
        fit.map((j) => j.id),
        now,
      );
      n += 1;
    }
    return n;
  });
  if (queued) opts.kick?.();
  return queued;
}
