import { ASSISTIVE_TECH_LABELS } from '@htm/contracts/identity';
import { JOB_MESSAGES, type JobView as Job } from '@htm/contracts/jobs';
import { RULE_WORDS } from '@htm/contracts/marketplace';
import { useId, useState } from 'react';
import { Loading } from '../../../components/loading';
import { errorMessage } from '../../../lib/error-message';
import { shortId } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import { jobAllows } from '../../../lib/job-rules';
import { useClaimJobMutation } from '../api/claim-job';
import { useListAvailableJobsQuery } from '../api/list-available-jobs';
import { useListMyJobsQuery } from '../api/list-my-jobs';
import { JobBrief } from './job-brief';
import { JobChecks } from '../../../components/job-checks';
import { buttonClass } from '../../../components/button';
import { badgeClass } from '../../../components/badge';
import jobCard from '../../../components/job-card.module.css';
import notice from '../../../components/notice.module.css';
import styles from './available-jobs.module.css';

const GEO: Record<string, string> = {
  us_pr: 'US & PR',
  us_pr_ca: 'US, PR & CA',
  global_beta: 'Global',
};

interface PageProps {
  cursor: string | undefined;
  isLast: boolean;
  onMore: (cursor: string) => void;
  onClaim: (job: Job) => void;
  claiming: string | null;
  /** Why Claim waits (the one-job rule while a job is held), else null, and that sentence's id. */
  heldReason: string | null;
  heldId: string;
}

/** The sentence beside a disabled Claim while the tester holds as many jobs as they may. */
export function heldReasonFor(held: number, max: number): string | null {
  if (held < max) return null;
  return max === 1
    ? 'You are working on a job: submit it (My Jobs) before claiming another. One job at a time.'
    : `You hold ${held} jobs, the most at a time: submit one (My Jobs) before claiming another.`;
}

/** One page of available jobs (cursor pagination: "Load more" asks for the next page). */
function AvailablePage({
  cursor,
  isLast,
  onMore,
  onClaim,
  claiming,
  heldReason,
  heldId,
}: PageProps) {
  const { data, error, isLoading, isFetching, refetch } = useListAvailableJobsQuery(
    cursor ? { cursor } : undefined,
  );
  if (isLoading) return <Loading label="Loading available jobs…" />;
  const jobs = data?.jobs ?? [];
  return (
    <>
      {error ? (
        <div className="form-msg form-msg--error load-error" role="alert">
          <span>{errorMessage(error, 'Failed to load available jobs')}</span>{' '}
          <button
            type="button"
            className={buttonClass('secondary', 'sm')}
            onClick={() => void refetch()}
            disabled={isFetching}
          >
            Retry
          </button>
        </div>
      ) : null}

      {!cursor && !jobs.length && !error ? (
        <p className={notice.empty}>No jobs available right now. Check back soon.</p>
      ) : null}
      <ul className={jobCard['job-list']}>
        {jobs.map((j) => (
          <li className={jobCard['job-card']} key={j.id}>
            <div className={jobCard['job-card__main']}>
              <h3 className={jobCard['job-card__title']}>{j.title}</h3>
              {j.retest_of && j.reserved_until && Date.parse(j.reserved_until) > Date.now() ? (
                <p className={jobCard['job-card__live']}>
                  Held for you: you did the first test of this site.
                </p>
              ) : null}
              <p className={jobCard['job-card__meta']}>
                <span className="mono">#{shortId(j.id)}</span> · {GEO[j.geo_rule] ?? j.geo_rule} ·{' '}
                {j.expected_completion_hours} h
              </p>
              {j.pack_id ? (
                <p className={jobCard['job-card__meta']}>
                  Several testers test this site: you take one of the places.
                </p>
              ) : null}
              {j.assistive_tech ? (
                <p>
                  <span className={badgeClass('assistive')}>
                    For someone who uses {ASSISTIVE_TECH_LABELS[j.assistive_tech]}
                  </span>
                </p>
              ) : null}
              {j.recording_required ? (
                <p className={jobCard['job-card__meta']}>{JOB_MESSAGES.recordingRequiredNote}</p>
              ) : null}
              <JobBrief text={j.what_to_test} />
              <JobChecks requirements={j.requirements} />
            </div>
            <div className={jobCard['job-card__side']}>
              <span className={styles.price}>{RULE_WORDS.testerShare}</span>
              <button
                type="button"
                className={buttonClass('primary', 'sm')}
                onClick={() => onClaim(j)}
                disabled={claiming === j.id || Boolean(heldReason) || !jobAllows(j, 'claim')}
                aria-describedby={heldReason ? heldId : undefined}
              >
                {claiming === j.id ? 'Claiming…' : 'Claim'}
              </button>
            </div>
          </li>
        ))}
      </ul>
      {isLast && data?.next_cursor ? (
        <button
          type="button"
          className={`${buttonClass('secondary', 'sm')} ${styles['load-more']}`}
          onClick={() => onMore(data.next_cursor as string)}
        >
          Load more jobs
        </button>
      ) : null}
    </>
  );
}

/** The Available Jobs tab: the pages loaded so far, Refresh, and Claim on each card. */
export function AvailableJobs({ onClaimed }: { onClaimed?: (jobId: string) => void } = {}) {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const { data, refetch, isFetching } = useListAvailableJobsQuery();
  const { data: myJobs } = useListMyJobsQuery();
  const mine = myJobs?.jobs ?? [];
  const now = Date.now();
  const active = mine.filter((j) => {
    const deadline =
      j.status === 'claimed'
        ? j.claim_deadline_at
        : j.status === 'revision_requested'
          ? j.revision_deadline_at
          : undefined;
    return deadline !== undefined && (!deadline || Date.parse(deadline) > now);
  }).length;
  const heldReason = heldReasonFor(active, data?.max_active_claims ?? 1);
  const heldId = useId();
  const [claim] = useClaimJobMutation();
  const [claiming, setClaiming] = useState<string | null>(null);
  const { toast, status } = useNotify();
  const onClaim = async (job: Job) => {
    setClaiming(job.id);
    const res = await claim(job.id);
    setClaiming(null);
    if ('error' in res && res.error) toast(errorMessage(res.error, 'Failed to claim job'));
    else {
      // The job claimed may be another slot of the same pack: the answer names it.
      const claimed = ('data' in res && res.data?.job?.id) || job.id;
      status(`Claimed "${job.title}". It is under My Jobs: submit your report there.`);
      onClaimed?.(claimed);
    }
  };
  return (
    <div>
      <div className={styles['row-between']}>
        <p className="muted">
          {data?.usual_minutes
            ? `Each job pays ${RULE_WORDS.testerShare} and usually takes ${data.usual_minutes} minutes.`
            : `Each job pays ${RULE_WORDS.testerShare} and takes 5-10 minutes.`}
        </p>
        <button
          type="button"
          className={buttonClass('ghost', 'sm')}
          onClick={() => {
            setCursors([undefined]);
            void refetch();
          }}
          disabled={isFetching}
        >
          Refresh
        </button>
      </div>
      {heldReason ? (
        <p className={notice.notice} id={heldId}>
          {heldReason}
        </p>
      ) : null}
      {cursors.map((c, i) => (
        <AvailablePage
          key={c ?? 'first'}
          cursor={c}
          isLast={i === cursors.length - 1}
          onMore={(next) => setCursors((cs) => (cs.includes(next) ? cs : [...cs, next]))}
          onClaim={onClaim}
          claiming={claiming}
          heldReason={heldReason}
          heldId={heldId}
        />
      ))}
    </div>
  );
}
