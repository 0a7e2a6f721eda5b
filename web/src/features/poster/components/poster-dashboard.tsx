import { resultsExpectedBy, type JobView as Job } from '@htm/contracts/jobs';
import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { JobCardHead } from '../../../components/job-card-head';
import { Loading } from '../../../components/loading';
import { BeforeAfter } from '../../../components/before-after';
import { BusyButton } from '../../../components/busy-button';
import { Modal } from '../../../components/modal';
import { ReviewModal } from '../../../components/review-modal';
import { browser } from '../../../lib/browser';
import { errorMessage, formErrorMessage } from '../../../lib/error-message';
import { formatDate, shortId, statusLabel } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import { jobAllows, jobPayable } from '../../../lib/job-rules';
import type { UserDto as User } from '@htm/contracts/identity';
import { useDeleteJobMutation } from '../api/delete-job';
import { useListJobsQuery } from '../api/list-jobs';
import { useRetestJobMutation } from '../api/retest-job';
import PostJobLauncher from './post-job-launcher';
import { FavouriteTesters, FavouriteToggle } from './favourite-testers';
import { useListFavouritesQuery } from '../api/favourites';
import { RateTester } from './rate-tester';
import { ReportActions } from './report-actions';
import { HealthCheck, HealthCheckDisclosure } from '../../../components/health-check';
import { PackCard } from './pack-card';
import { ReleasedReports } from './released-reports';
import { UnpaidNote, usePayNow } from './pay-now';
import { JobChecks } from '../../../components/job-checks';
import { badgeClass } from '../../../components/badge';
import jobCard from '../../../components/job-card.module.css';
import notice from '../../../components/notice.module.css';
import pageStyles from '../../../components/page.module.css';
import stat from '../../../components/stat.module.css';
import styles from './poster-dashboard.module.css';
import statStyles from '../../../components/stat.module.css';
import confirmStyles from '../../../components/confirm-button.module.css';
import { buttonClass } from '../../../components/button';

/** The poster's list: one entry per job, a pack's jobs as one entry where its first job stands. */
export function groupPacks(jobs: Job[]): Array<{ job: Job } | { packId: string; slots: Job[] }> {
  const seen = new Set<string>();
  const out: Array<{ job: Job } | { packId: string; slots: Job[] }> = [];
  for (const j of jobs) {
    if (!j.pack_id) out.push({ job: j });
    else if (!seen.has(j.pack_id)) {
      seen.add(j.pack_id);
      const packId = j.pack_id;
      out.push({
        packId,
        slots: jobs.filter((x) => x.pack_id === packId).sort((a, b) => (a.id < b.id ? -1 : 1)),
      });
    }
  }
  return out;
}

/** The tester's report is in, and its session check runs before the poster may read it. */
const checkingReport = (j: Job) => j.status === 'submitted' && !!j.report_checking;

/** The dashboard counts: unpaid jobs apart from open (live) ones. */
export function countJobs(jobs: Job[]) {
  const unpaid = (j: Job) => j.payment_status !== 'paid';
  return {
    unpaid: jobs.filter((j) => j.status === 'open' && unpaid(j)).length,
    open: jobs.filter((j) => j.status === 'open' && !unpaid(j)).length,
    inProgress: jobs.filter(
      (j) => j.status === 'claimed' || j.status === 'revision_requested' || checkingReport(j),
    ).length,
    submitted: jobs.filter((j) => j.status === 'submitted' && !checkingReport(j)).length,
    completed: jobs.filter((j) => j.status === 'completed').length,
  };
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={badgeClass(status)}>{statusLabel(status)}</span>;
}

function JobRow({
  job,
  onReview,
  onCompare,
}: {
  job: Job;
  onReview: (j: Job) => void;
  onCompare: (j: Job) => void;
}) {
  const { pay, busy: paying, problem } = usePayNow(job.id);
  const [remove, { isLoading: deleting }] = useDeleteJobMutation();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const { toast, status } = useNotify();
  const [retest, { isLoading: retesting }] = useRetestJobMutation();
  /** 'Re-test': the same tester checks the fixes; pay for it like a new job. */
  const askRetest = async () => {
    const res = await retest(job.id);
    if ('data' in res && res.data?.checkout_url) browser.assign(res.data.checkout_url);
    else if ('data' in res && res.data?.payment_error) toast(res.data.payment_error);
    else
      toast(
        errorMessage(
          'error' in res ? res.error : null,
          'The re-test could not be created. Please try again.',
        ),
      );
  };
  // The rules module decides whether the job may be paid for (Pay now).
  const unpaid = jobPayable(job);
  // A pack's slot is paid and deleted with its pack (on the pack's card).
  const inPack = !!job.pack_id;
  const deletable = unpaid && job.status === 'open' && !inPack;
  const onDelete = async () => {
    const res = await remove(job.id);
    setConfirmDelete(false);
    if ('error' in res && res.error) toast(formErrorMessage(res.error, 'Failed to delete job'));
    else status('Job deleted.');
  };
  // The server's promise (a replacement restarts it), else the same rule computed here.
  const expectedBy = job.results_expected_by ?? resultsExpectedBy(job);
  return (
    <li className={jobCard['job-card']} id={`job-${job.id}`} tabIndex={-1}>
      <div className={jobCard['job-card__main']}>
        <JobCardHead job={job} />
        <p className={`${jobCard['job-card__meta']} muted`}>Posted {formatDate(job.created_at)}</p>
        {job.retest_of ? (
          <p className={jobCard['job-card__meta']}>
            Re-test of <span className="mono">#{shortId(job.retest_of)}</span>
            {job.reserved_until &&
            job.status === 'open' &&
            Date.parse(job.reserved_until) > Date.now()
              ? ` · held for the same tester until ${formatDate(job.reserved_until)}`
              : null}
          </p>
        ) : null}
        <JobChecks requirements={job.requirements} />
        {unpaid && !inPack ? <UnpaidNote problem={problem} /> : null}
        {!unpaid ? <HealthCheckDisclosure jobId={job.id} /> : null}
        {job.status === 'open' && !unpaid ? (
          <p className={jobCard['job-card__live']}>Live — waiting for a tester to claim it.</p>
        ) : null}
        {!unpaid && job.status !== 'completed' && expectedBy ? (
          <p className={jobCard['job-card__meta']}>
            {job.replaced_at
              ? job.status === 'open'
                ? 'Replacement coming at no cost to you: results expected by '
                : 'A new tester is on it: results expected by '
              : 'Results expected by '}
            {formatDate(expectedBy)}
          </p>
        ) : null}
        {job.replaced_at && !unpaid ? <ReleasedReports jobId={job.id} /> : null}
        {checkingReport(job) ? (
          <p className={jobCard['job-card__live']}>
            The report is in. We check every session before you see it: it will be here in a few
            minutes.
          </p>
        ) : null}
        {job.status === 'revision_requested' && job.last_review?.reason ? (
          <p className={styles['job-card__note']}>Revision requested: {job.last_review.reason}</p>
        ) : null}
      </div>
      <div className={jobCard['job-card__side']}>
        <StatusBadge status={job.status} />
        {unpaid ? <span className={badgeClass('unpaid')}>unpaid</span> : null}
        {unpaid && !inPack ? (
          <BusyButton
            className={buttonClass('primary', 'sm')}
            onClick={pay}
            busy={paying}
            busyLabel="Opening…"
          >
            Pay now
          </BusyButton>
        ) : null}
        {deletable && !confirmDelete ? (
          <button
            type="button"
            className={buttonClass('ghost', 'sm')}
            onClick={() => setConfirmDelete(true)}
          >
            Delete
          </button>
        ) : null}
        {deletable && confirmDelete ? (
          <div
            className={confirmStyles['confirm-inline']}
            role="group"
            aria-label="Delete this unpaid job?"
          >
            <span>Delete this unpaid job?</span>
            <BusyButton
              className={buttonClass('danger', 'sm')}
              onClick={onDelete}
              busy={deleting}
              busyLabel="Deleting…"
            >
              Yes, delete
            </BusyButton>
            <button
              type="button"
              className={buttonClass('ghost', 'sm')}
              onClick={() => setConfirmDelete(false)}
            >
              Keep it
            </button>
          </div>
        ) : null}
        {jobAllows(job, 'accept') && !checkingReport(job) ? (
          <button
            type="button"
            className={buttonClass('primary', 'sm')}
            onClick={() => onReview(job)}
          >
            Review Submission
          </button>
        ) : null}
        {job.status === 'completed' ? (
          <button
            type="button"
            className={buttonClass('secondary', 'sm')}
            onClick={() => onReview(job)}
          >
            View Results
          </button>
        ) : null}
        {job.retest_of && (job.status === 'submitted' || job.status === 'completed') ? (
          <button
            type="button"
            className={buttonClass('secondary', 'sm')}
            onClick={() => onCompare(job)}
          >
            Before / after
          </button>
        ) : null}
        {job.status === 'completed' ? (
          <BusyButton
            className={buttonClass('ghost', 'sm')}
            onClick={askRetest}
            busy={retesting}
            busyLabel="Opening…"
          >
            Re-test
          </BusyButton>
        ) : null}
      </div>
    </li>
  );
}

/** Poster dashboard: welcome, 'Post New Job', counts and the poster's own jobs. */
export default function PosterDashboard({ user }: { user: User }) {
  const { data: jobs = [], error, isLoading, refetch } = useListJobsQuery();
  const { data: favourites = [] } = useListFavouritesQuery();
  const [reviewing, setReviewing] = useState<Job | null>(null);
  const [comparing, setComparing] = useState<Job | null>(null);
  const { toast } = useNotify();
  useEffect(() => {
    if (error) toast(errorMessage(error, 'Failed to load jobs'));
  }, [error, toast]);
  const c = countJobs(jobs);
  const current = reviewing ? (jobs.find((j) => j.id === reviewing.id) ?? reviewing) : null;

  // A link from an e-mail (/dashboard?job=ID): open that job's results, or show its card;
  // &problem=N brings the summary's problem N into view; ?pack=ID opens the pack's summary.
  const [params, setParams] = useSearchParams();
  const linked = params.get('job');
  const linkedPack = params.get('pack');
  const problemParam = Number(params.get('problem'));
  const focusProblem = Number.isInteger(problemParam) && problemParam > 0 ? problemParam : null;
  const unlink = (...names: string[]) =>
    setParams(
      (p) => {
        for (const n of names) p.delete(n);
        return p;
      },
      { replace: true },
    );
  const openedLink = useRef<string | null>(null);
  useEffect(() => {
    if (!linked || openedLink.current === linked) return;
    const job = jobs.find((j) => j.id === linked);
    if (!job) return;
    openedLink.current = linked;
    if ((job.status === 'submitted' && !checkingReport(job)) || job.status === 'completed') {
      setReviewing(job);
      return;
    }
    const card = document.getElementById(`job-${job.id}`);
    card?.scrollIntoView?.({ block: 'center' });
    card?.focus();
  }, [linked, jobs]);
  const closeReview = () => {
    setReviewing(null);
    if (linked) unlink('job', 'problem');
  };

  return (
    <div className="dashboard">
      <div className={pageStyles.dashboard__head}>
        <div>
          <h1>Welcome, {user.name?.split(' ')[0] || 'there'}</h1>
          <p className="muted">
            Post a site, pay $1, and get real human feedback within 24-48 hours.
          </p>
          {/* Webhooks and issue trackers: one click away, not under a new owner's job list. */}
          <p>
            <Link to="/dashboard/settings">Settings and integrations</Link>
          </p>
        </div>
        <PostJobLauncher favourites={favourites} />
      </div>
      <ul className={stat.stats} aria-label="Job counts">
        <li className={statStyles.stat}>
          <span className={statStyles.stat__n}>{c.unpaid}</span> Unpaid
        </li>
        <li className={statStyles.stat}>
          <span className={statStyles.stat__n}>{c.open}</span> Open
        </li>
        <li className={statStyles.stat}>
          <span className={statStyles.stat__n}>{c.inProgress}</span> In Progress
        </li>
        <li className={statStyles.stat}>
          <span className={statStyles.stat__n}>{c.submitted}</span> Submitted
        </li>
        <li className={statStyles.stat}>
          <span className={statStyles.stat__n}>{c.completed}</span> Completed
        </li>
      </ul>
      <section aria-labelledby="my-jobs-title">
        <h2 id="my-jobs-title">Your jobs</h2>
        {isLoading ? <Loading label="Loading jobs…" /> : null}
        {error ? (
          <p className="form-msg form-msg--error">
            Failed to load jobs.{' '}
            <button type="button" className={buttonClass('link')} onClick={() => refetch()}>
              Retry
            </button>
          </p>
        ) : null}
        {!isLoading && !error && jobs.length === 0 ? (
          <div className={notice.empty}>
            <p>No jobs yet. Post your first site to get human feedback for $1.</p>
          </div>
        ) : null}
        <ul className={jobCard['job-list']}>
          {groupPacks(jobs).map((e) =>
            'job' in e ? (
              <JobRow key={e.job.id} job={e.job} onReview={setReviewing} onCompare={setComparing} />
            ) : (
              <PackCard
                key={e.packId}
                packId={e.packId}
                slots={e.slots}
                renderSlot={(j) => (
                  <JobRow key={j.id} job={j} onReview={setReviewing} onCompare={setComparing} />
                )}
                linked={linkedPack === e.packId ? { problem: focusProblem } : null}
                onUnlink={() => unlink('pack', 'problem')}
              />
            ),
          )}
        </ul>
      </section>
      {current ? (
        <ReviewModal
          job={current}
          onClose={closeReview}
          focusProblem={linked === current.id ? focusProblem : null}
        >
          <ReportActions job={current} />
          <HealthCheck jobId={current.id} />
          {current.status === 'completed' && current.tester_id ? (
            <FavouriteToggle testerId={current.tester_id} />
          ) : null}
          {current.status === 'completed' ? <RateTester job={current} /> : null}
        </ReviewModal>
      ) : null}
      <FavouriteTesters />
      {comparing ? (
        <Modal title={`Before / after: ${comparing.title}`} onClose={() => setComparing(null)}>
          <BeforeAfter jobId={comparing.id} />
        </Modal>
      ) : null}
    </div>
  );
}
