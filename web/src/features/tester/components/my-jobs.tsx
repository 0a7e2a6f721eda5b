import { JOB_MESSAGES, type JobView as Job } from '@htm/contracts/jobs';
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { BeforeAfter } from '../../../components/before-after';
import { JobCardHead } from '../../../components/job-card-head';
import { Loading } from '../../../components/loading';
import { errorMessage } from '../../../lib/error-message';
import { formatDate, statusLabel, timeLeft } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import { jobAllows } from '../../../lib/job-rules';
import { useListMyJobsQuery } from '../api/list-my-jobs';
import { JobBrief } from './job-brief';
import { HealthCheckDisclosure } from '../../../components/health-check';
import { RevisionRequest } from './revision-request';
import { DETAILED_REPORT, DETAILED_REPORT_LINE, SubmitReportModal } from './submit-report-modal';
import { QUICK_REPORT, QUICK_REPORT_LINE, SubmitWorkModal } from './submit-work-modal';
import { useNow } from './use-now';
import { JobChecks } from '../../../components/job-checks';
import { badgeClass } from '../../../components/badge';
import jobCard from '../../../components/job-card.module.css';
import notice from '../../../components/notice.module.css';
import styles from './my-jobs.module.css';
import { buttonClass } from '../../../components/button';

/** How often an expired card asks the server again (its timer releases the job shortly after). */
const EXPIRED_REFETCH_MS = 10_000;

/** The deadline a job of My Jobs runs against: the claim's, or the revision window's. */
function deadlineOf(j: Job): string | null | undefined {
  if (j.status === 'claimed') return j.claim_deadline_at;
  if (j.status === 'revision_requested') return j.revision_deadline_at;
  return undefined;
}

const NO_JOBS: Job[] = [];

/**
 * The My Jobs tab: claimed and revision jobs with their deadline counting down; a card whose
 * deadline passed stays, marked expired, until the tester dismisses it.
 */
export function MyJobs() {
  const { data, error, isLoading, refetch } = useListMyJobsQuery();
  const jobs = data?.jobs ?? NO_JOBS;
  const [modal, setModal] = useState<{ job: Job; variant: 'work' | 'report' } | null>(null);
  const { toast } = useNotify();
  // A link from an e-mail (/dashboard?job=ID): show that job's card.
  const [params] = useSearchParams();
  const linked = params.get('job');
  const shownLink = useRef<string | null>(null);
  useEffect(() => {
    if (!linked || shownLink.current === linked || !jobs.some((j) => j.id === linked)) return;
    shownLink.current = linked;
    const card = document.getElementById(`my-job-${linked}`);
    card?.scrollIntoView?.({ block: 'center' });
    card?.focus();
  }, [linked, jobs]);
  const now = useNow(
    1000,
    jobs.some((j) => deadlineOf(j)),
  );
  const expired = jobs.filter((j) => {
    const at = deadlineOf(j);
    return at ? new Date(at).getTime() <= now : false;
  });
  const expiredKey = expired.map((j) => j.id).join(',');
  // Expired cards are kept after the server has let the job go (the refetch below removes it
  // at once), so the tester reads why it left, until they dismiss the notice.
  const [kept, setKept] = useState<Job[]>([]);
  useEffect(() => {
    setKept((prev) => {
      const added = expired.filter((j) => !prev.some((p) => p.id === j.id));
      return added.length ? [...prev, ...added] : prev;
    });
  }, [expired]);
  const gone = kept.filter((k) => !jobs.some((j) => j.id === k.id));
  const shown = [...jobs, ...gone];
  useEffect(() => {
    if (error) toast(errorMessage(error, 'Failed to load my jobs'));
  }, [error, toast]);
  useEffect(() => {
    // A deadline passed: the server releases the job; ask again until the card is gone.
    if (!expiredKey) return undefined;
    void refetch();
    const id = window.setInterval(() => void refetch(), EXPIRED_REFETCH_MS);
    return () => window.clearInterval(id);
  }, [expiredKey, refetch]);
  if (isLoading) return <Loading label="Loading your jobs…" />;
  return (
    <div>
      {!shown.length ? (
        <p className={notice.empty}>You have no jobs yet. Claim one from Available Jobs.</p>
      ) : null}
      <ul className={jobCard['job-list']}>
        {shown.map((j) => {
          const lapsed = expired.includes(j) || gone.includes(j);
          // Submit is offered while the rules let this job be submitted (claimed, or revision asked).
          const canSubmit = jobAllows(j, 'submit') && !lapsed;
          const revision = canSubmit && j.status === 'revision_requested';
          const working = canSubmit && !revision;
          const due = timeLeft(deadlineOf(j), now);
          return (
            <li className={jobCard['job-card']} key={j.id} id={`my-job-${j.id}`} tabIndex={-1}>
              <div className={jobCard['job-card__main']}>
                <JobCardHead job={j} />
                <JobBrief text={j.what_to_test} />
                <JobChecks requirements={j.requirements} />
                {working && due ? <p className="muted">Time left to submit: {due}.</p> : null}
                {working || revision ? (
                  <HealthCheckDisclosure
                    jobId={j.id}
                    audience="tester"
                    summary="Before you start: what a machine found on this site"
                  />
                ) : null}
                {lapsed ? (
                  <p className={notice.notice} role="status">
                    {j.status === 'revision_requested'
                      ? JOB_MESSAGES.revisionExpired
                      : JOB_MESSAGES.claimExpired}
                  </p>
                ) : null}
                {j.retest_of && (working || revision) ? (
                  <details className="earlier-findings">
                    <summary>Re-test: your earlier findings</summary>
                    <BeforeAfter jobId={j.id} />
                  </details>
                ) : null}
                {revision ? (
                  <div className={notice.notice}>
                    <RevisionRequest review={j.last_review} />
                    <div>Deadline: {formatDate(j.revision_deadline_at)}</div>
                  </div>
                ) : null}
              </div>
              <div className={jobCard['job-card__side']}>
                <span className={badgeClass(lapsed ? 'expired' : j.status)}>
                  {lapsed ? 'expired' : statusLabel(j.status)}
                </span>
                {working || revision ? (
                  <div className={styles['report-choice']}>
                    <button
                      type="button"
                      className={buttonClass('primary', 'sm')}
                      aria-describedby={`quick-${j.id}`}
                      onClick={() => setModal({ job: j, variant: 'work' })}
                    >
                      {revision ? `Resubmit: ${QUICK_REPORT}` : QUICK_REPORT}
                    </button>
                    <span className={`muted ${styles['report-choice__line']}`} id={`quick-${j.id}`}>
                      {QUICK_REPORT_LINE}
                    </span>
                    <button
                      type="button"
                      className={buttonClass('secondary', 'sm')}
                      aria-describedby={`detailed-${j.id}`}
                      onClick={() => setModal({ job: j, variant: 'report' })}
                    >
                      {revision ? `Resubmit: ${DETAILED_REPORT}` : DETAILED_REPORT}
                    </button>
                    <span
                      className={`muted ${styles['report-choice__line']}`}
                      id={`detailed-${j.id}`}
                    >
                      {DETAILED_REPORT_LINE}
                    </span>
                  </div>
                ) : null}
                {gone.includes(j) ? (
                  <button
                    type="button"
                    className={buttonClass('secondary', 'sm')}
                    onClick={() => setKept((prev) => prev.filter((p) => p.id !== j.id))}
                  >
                    Dismiss
                  </button>
                ) : null}
              </div>
            </li>
          );
        })}
      </ul>
      {modal?.variant === 'work' ? (
        <SubmitWorkModal job={modal.job} onClose={() => setModal(null)} />
      ) : null}
      {modal?.variant === 'report' ? (
        <SubmitReportModal job={modal.job} onClose={() => setModal(null)} />
      ) : null}
    </div>
  );
}
