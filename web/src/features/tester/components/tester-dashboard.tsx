import { ASSISTIVE_TECH_LABELS, identityMessages } from '@htm/contracts/identity';
import { JOB_MESSAGES, type JobView as Job } from '@htm/contracts/jobs';
import { useEffect, useState } from 'react';
import { BeforeAfter } from '../../../components/before-after';
import { Loading } from '../../../components/loading';
import { Tabs } from '../../../components/tabs';
import { featureFlags } from '../../../lib/config';
import { errorMessage } from '../../../lib/error-message';
import { formatDate, shortId, statusLabel, timeLeft } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import type { User } from '../../../lib/types';
import { useClaimJobMutation } from '../api/claim-job';
import { useListAvailableJobsQuery } from '../api/list-available-jobs';
import { useListMyJobsQuery } from '../api/list-my-jobs';
import { EarningsTab } from './earnings-tab';
import { ProfileModal } from './profile-modal';
import { RevisionRequest } from './revision-request';
import { DETAILED_REPORT, DETAILED_REPORT_LINE, SubmitReportModal } from './submit-report-modal';
import { QUICK_REPORT, QUICK_REPORT_LINE, SubmitWorkModal } from './submit-work-modal';

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
}

/** One page of available jobs (cursor pagination: "Load more" asks for the next page). */
function AvailablePage({ cursor, isLast, onMore, onClaim, claiming }: PageProps) {
  const { data, error, isLoading } = useListAvailableJobsQuery(cursor ? { cursor } : undefined);
  const { toast } = useNotify();
  useEffect(() => {
    if (error) toast(errorMessage(error, 'Failed to load available jobs'));
  }, [error, toast]);
  if (isLoading) return <Loading label="Loading available jobs…" />;
  const jobs = data?.jobs ?? [];
  return (
    <>
      {!cursor && !jobs.length && !error ? (
        <p className="empty">No jobs available right now. Check back soon.</p>
      ) : null}
      <ul className="job-list">
        {jobs.map((j) => (
          <li className="job-card" key={j.id}>
            <div className="job-card__main">
              <h3 className="job-card__title">{j.title}</h3>
              {j.retest_of && j.reserved_until && Date.parse(j.reserved_until) > Date.now() ? (
                <p className="job-card__live">Held for you: you did the first test of this site.</p>
              ) : null}
              <p className="job-card__meta">
                <span className="mono">#{shortId(j.id)}</span> · {GEO[j.geo_rule] ?? j.geo_rule} ·{' '}
                {j.expected_completion_hours} h
              </p>
              {j.assistive_tech ? (
                <p>
                  <span className="badge badge--assistive">
                    For someone who uses {ASSISTIVE_TECH_LABELS[j.assistive_tech]}
                  </span>
                </p>
              ) : null}
              <p className="prewrap">{j.what_to_test}</p>
              {j.requirements?.length ? (
                <ul className="reqs-list">
                  {j.requirements.map((r, i) => (
                    <li key={i}>{r}</li>
                  ))}
                </ul>
              ) : null}
            </div>
            <div className="job-card__side">
              <span className="price">$0.82</span>
              <button
                type="button"
                className="btn btn--primary btn--sm"
                onClick={() => onClaim(j)}
                disabled={claiming === j.id}
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
          className="btn btn--secondary btn--sm load-more"
          onClick={() => onMore(data.next_cursor as string)}
        >
          Load more jobs
        </button>
      ) : null}
    </>
  );
}

function AvailableJobs() {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const { data, refetch, isFetching } = useListAvailableJobsQuery();
  const [claim] = useClaimJobMutation();
  const [claiming, setClaiming] = useState<string | null>(null);
  const { toast, status } = useNotify();
  const onClaim = async (job: Job) => {
    setClaiming(job.id);
    const res = await claim(job.id);
    setClaiming(null);
    if ('error' in res && res.error) toast(errorMessage(res.error, 'Failed to claim job'));
    else status(`Claimed "${job.title}". Find it under My Jobs.`);
  };
  return (
    <div>
      <div className="row-between">
        <p className="muted">
          {data?.usual_minutes
            ? `Each job pays $0.82 and usually takes ${data.usual_minutes} minutes.`
            : 'Each job pays $0.82 and takes 5-10 minutes.'}
        </p>
        <button
          type="button"
          className="btn btn--ghost btn--sm"
          onClick={() => {
            setCursors([undefined]);
            void refetch();
          }}
          disabled={isFetching}
        >
          Refresh
        </button>
      </div>
      {cursors.map((c, i) => (
        <AvailablePage
          key={c ?? 'first'}
          cursor={c}
          isLast={i === cursors.length - 1}
          onMore={(next) => setCursors((cs) => (cs.includes(next) ? cs : [...cs, next]))}
          onClaim={onClaim}
          claiming={claiming}
        />
      ))}
    </div>
  );
}

/** The time now, renewed every `everyMs` while `ticking` (so deadlines count down on screen). */
function useNow(everyMs: number, ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return undefined;
    setNow(Date.now());
    const id = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(id);
  }, [everyMs, ticking]);
  return now;
}

/** How often an expired card asks the server again (its timer releases the job shortly after). */
const EXPIRED_REFETCH_MS = 10_000;

/** The deadline a job of My Jobs runs against: the claim's, or the revision window's. */
function deadlineOf(j: Job): string | null | undefined {
  if (j.status === 'claimed') return j.claim_deadline_at;
  if (j.status === 'revision_requested') return j.revision_deadline_at;
  return undefined;
}

function MyJobs() {
  const { data: jobs = [], error, isLoading, refetch } = useListMyJobsQuery();
  const [modal, setModal] = useState<{ job: Job; variant: 'work' | 'report' } | null>(null);
  const { toast } = useNotify();
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
        <p className="empty">You have no jobs yet. Claim one from Available Jobs.</p>
      ) : null}
      <ul className="job-list">
        {shown.map((j) => {
          const lapsed = expired.includes(j) || gone.includes(j);
          const working = j.status === 'claimed' && !lapsed;
          const revision = j.status === 'revision_requested' && !lapsed;
          const due = timeLeft(deadlineOf(j), now);
          return (
            <li className="job-card" key={j.id}>
              <div className="job-card__main">
                <h3 className="job-card__title">{j.title}</h3>
                <p className="job-card__meta">
                  <span className="mono">#{shortId(j.id)}</span> ·{' '}
                  <a href={j.url} target="_blank" rel="noreferrer">
                    {j.url}
                  </a>
                </p>
                <p className="prewrap job-card__brief" title={j.what_to_test}>
                  {j.what_to_test}
                </p>
                {working && due ? <p className="muted">Time left to submit: {due}.</p> : null}
                {lapsed ? (
                  <p className="notice" role="status">
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
                  <div className="notice">
                    <RevisionRequest review={j.last_review} />
                    <div>Deadline: {formatDate(j.revision_deadline_at)}</div>
                  </div>
                ) : null}
              </div>
              <div className="job-card__side">
                <span className={`badge badge--${lapsed ? 'expired' : j.status}`}>
                  {lapsed ? 'expired' : statusLabel(j.status)}
                </span>
                {working || revision ? (
                  <div className="report-choice">
                    <button
                      type="button"
                      className="btn btn--primary btn--sm"
                      aria-describedby={`quick-${j.id}`}
                      onClick={() => setModal({ job: j, variant: 'work' })}
                    >
                      {revision ? `Resubmit: ${QUICK_REPORT}` : QUICK_REPORT}
                    </button>
                    <span className="muted report-choice__line" id={`quick-${j.id}`}>
                      {QUICK_REPORT_LINE}
                    </span>
                    <button
                      type="button"
                      className="btn btn--secondary btn--sm"
                      aria-describedby={`detailed-${j.id}`}
                      onClick={() => setModal({ job: j, variant: 'report' })}
                    >
                      {revision ? `Resubmit: ${DETAILED_REPORT}` : DETAILED_REPORT}
                    </button>
                    <span className="muted report-choice__line" id={`detailed-${j.id}`}>
                      {DETAILED_REPORT_LINE}
                    </span>
                  </div>
                ) : null}
                {gone.includes(j) ? (
                  <button
                    type="button"
                    className="btn btn--secondary btn--sm"
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

/** Tester dashboard: pending approval, or tabs Available Jobs / My Jobs / Earnings. */
export default function TesterDashboard({ user }: { user: User }) {
  const [tab, setTab] = useState('available');
  const [profileOpen, setProfileOpen] = useState(false);
  const profile = profileOpen ? (
    <ProfileModal user={user} onClose={() => setProfileOpen(false)} />
  ) : null;

  if (!user.approved) {
    return (
      <div className="panel pending">
        {user.released ? (
          <>
            <h1>Your tester account is paused</h1>
            <p>{identityMessages.testerReleased}</p>
          </>
        ) : (
          <>
            <h1>Your tester account is pending approval</h1>
            <p>
              Only testers an admin has approved can take jobs, and yours is not approved at the
              moment. We'll e-mail you as soon as an admin approves it.
            </p>
          </>
        )}
        <button type="button" className="btn btn--secondary" onClick={() => setProfileOpen(true)}>
          Update Your Profile
        </button>
        {profile}
      </div>
    );
  }

  return (
    <div className="dashboard">
      <div className="dashboard__head">
        <div>
          <h1>Tester dashboard</h1>
          <p className="muted">
            Country: {user.country ?? 'not set'} · earn $0.82 per accepted job
          </p>
          <p className="muted" aria-label="Your rating">
            {user.rating_count
              ? `Your rating: ${user.rating_avg?.toFixed(1)} ★ from ${user.rating_count} rating${user.rating_count === 1 ? '' : 's'}`
              : 'Your rating: no ratings yet'}
          </p>
        </div>
        <button type="button" className="btn btn--secondary" onClick={() => setProfileOpen(true)}>
          Update Your Profile
        </button>
      </div>
      {featureFlags.enable_country_cta && !user.country ? (
        <div className="notice">
          Set your country to see the jobs open to you.{' '}
          <button type="button" className="btn btn--link" onClick={() => setProfileOpen(true)}>
            Set country
          </button>
        </div>
      ) : null}
      <Tabs
        label="Tester sections"
        active={tab}
        onChange={setTab}
        tabs={[
          { id: 'available', label: 'Available Jobs' },
          { id: 'mine', label: 'My Jobs' },
          { id: 'earnings', label: 'Earnings' },
        ]}
      >
        {tab === 'available' ? <AvailableJobs /> : tab === 'mine' ? <MyJobs /> : <EarningsTab />}
      </Tabs>
      {profile}
    </div>
  );
}
