import { useState } from 'react';
import {
  ASSISTIVE_TECH,
  ASSISTIVE_TECH_LABELS,
  type AssistiveTech,
  type TesterDto,
} from '@htm/contracts/identity';
import { APPEAL_MESSAGE_MAX, geoAllows } from '@htm/contracts/marketplace';
import { Field } from '../../../components/field';
import { Loading } from '../../../components/loading';
import { ReviewModal } from '../../../components/review-modal';
import { Table } from '../../../components/table';
import { errorMessage } from '../../../lib/error-message';
import { formatDate, shortId, statusLabel } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import { jobAllows } from '../../../lib/job-rules';
import type { JobView as Job } from '@htm/contracts/jobs';
import { useApproveTesterMutation } from '../api/approve-tester';
import { useAssignJobMutation } from '../api/assign-job';
import { ConfirmButton } from '../../../components/confirm-button';
import { useCompleteJobMutation } from '../api/complete-job';
import { useListAvailableTestersQuery, useListTestersQuery } from '../api/list-testers';
import { useListWaitlistQuery, useUpdateWaitlistEntryMutation } from '../api/list-waitlist';
import { Pager } from './pager';
import { usePagedSearch } from './use-paged-search';
import { useDecideAppealMutation, useListOpenAppealsQuery } from '../api/appeals';
import { HeldSessions } from './held-sessions';
import { badgeClass } from '../../../components/badge';
import entry from '../../../components/entry.module.css';
import notice from '../../../components/notice.module.css';
import pageStyles from '../../../components/page.module.css';
import panel from '../../../components/panel.module.css';
import styles from './manage-tab.module.css';
import confirmStyles from '../../../components/confirm-button.module.css';
import { buttonClass } from '../../../components/button';

/** Checkbox state that flips at once and falls back if the server refuses. */
/**
 * Switches flip at once and fall back if the server refuses. Once the list has been fetched
 * again after a success the override goes, so the same approval shown in another list (and
 * changed there) shows the same here.
 */
function useOptimisticToggles() {
  const [overrides, setOverrides] = useState<Record<string, boolean>>({});
  const set = (id: string, v: boolean | undefined) =>
    setOverrides((o) => {
      const next = { ...o };
      if (v === undefined) delete next[id];
      else next[id] = v;
      return next;
    });
  return { value: (id: string, server: boolean) => overrides[id] ?? server, set };
}

/** Whether an approved tester can take `job`: its geo rule admits their country, and they use its assistive technology. */
export function canTake(job: Job, t: TesterDto): boolean {
  if (!geoAllows(job.geo_rule, t.country)) return false;
  return !job.assistive_tech || (t.assistive_tech ?? []).includes(job.assistive_tech);
}

/** Assign: only the approved testers who can take this job, or why there are none. */
function AssignControl({ job }: { job: Job }) {
  const { data: testers = [] } = useListAvailableTestersQuery();
  const [testerId, setTesterId] = useState('');
  const [assign, { isLoading }] = useAssignJobMutation();
  const { toast, status } = useNotify();
  const eligible = testers.filter((t) => canTake(job, t));
  const onAssign = async () => {
    if (!testerId) return;
    const res = await assign({ jobId: job.id, testerId });
    if ('error' in res && res.error) toast(errorMessage(res.error, 'Failed to assign job'));
    else status(`Job #${shortId(job.id)} assigned.`);
  };
  if (testers.length && !eligible.length)
    return (
      <p className="muted">
        No approved tester can take it:{' '}
        {job.assistive_tech
          ? `none in an admitted country uses ${ASSISTIVE_TECH_LABELS[job.assistive_tech]}.`
          : 'none lives in a country this job admits.'}
      </p>
    );
  return (
    <div className={styles['inline-control']}>
      <label className="sr-only" htmlFor={`assign-${job.id}`}>
        Assign job {shortId(job.id)} to tester
      </label>
      <select
        id={`assign-${job.id}`}
        value={testerId}
        onChange={(e) => setTesterId(e.target.value)}
      >
        <option value="">Approved tester…</option>
        {eligible.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name || t.email} ({t.country ?? '—'})
          </option>
        ))}
      </select>
      <button
        type="button"
        className={buttonClass('secondary', 'sm')}
        onClick={onAssign}
        disabled={!testerId || isLoading}
      >
        Assign
      </button>
    </div>
  );
}

function JobsTable({ jobs }: { jobs: Job[] }) {
  const [complete] = useCompleteJobMutation();
  const { toast, status } = useNotify();
  const onComplete = async (job: Job) => {
    const res = await complete(job.id);
    if ('error' in res && res.error) toast(errorMessage(res.error, 'Failed to complete job'));
    else status(`Job #${shortId(job.id)} accepted and completed.`);
  };
  const [reviewingId, setReviewingId] = useState<string | null>(null);
  // The open modal follows the list, so after a decision it shows the job's new status.
  const reviewing = reviewingId ? jobs.find((j) => j.id === reviewingId) : undefined;
  if (!jobs.length) return <p className={notice.empty}>No jobs.</p>;
  return (
    <>
      <Table caption="All jobs" columns={['Job', 'Poster', 'Status', 'Actions']}>
        {jobs.map((j) => (
          <tr key={j.id}>
            <td>
              <strong>{j.title}</strong>
              <div className="muted mono">#{shortId(j.id)}</div>
            </td>
            <td>
              {j.poster_info?.name ?? '—'}
              <div className="muted">{j.poster_info?.email}</div>
            </td>
            <td>
              {/* An unpaid job is not open to testers: it is labelled unpaid, not Open. */}
              {j.status === 'open' && j.payment_status !== 'paid' ? null : (
                <>
                  <span className={badgeClass(j.status)}>{statusLabel(j.status)}</span>{' '}
                </>
              )}
              {j.payment_status !== 'paid' ? (
                <span className={badgeClass('unpaid')}>unpaid</span>
              ) : null}
              {j.assistive_tech ? (
                <span className={badgeClass('assistive')}>
                  {ASSISTIVE_TECH_LABELS[j.assistive_tech]}
                </span>
              ) : null}
              {j.rating ? (
                <div className="muted">
                  Rated {j.rating.stars}/5{j.rating.comment ? `: “${j.rating.comment}”` : ''}
                </div>
              ) : null}
            </td>
            <td>
              {jobAllows(j, 'assign') ? <AssignControl job={j} /> : null}
              {jobAllows(j, 'accept') ? (
                <>
                  <button
                    type="button"
                    className={buttonClass('secondary', 'sm')}
                    onClick={() => setReviewingId(j.id)}
                  >
                    Review submission
                  </button>{' '}
                  <ConfirmButton
                    label="Accept & complete"
                    question={`Accept the work on #${shortId(j.id)} and pay the tester?`}
                    confirmLabel="Yes, accept & complete"
                    busyLabel="Completing…"
                    onConfirm={() => onComplete(j)}
                  />
                </>
              ) : null}
            </td>
          </tr>
        ))}
      </Table>
      {reviewing ? <ReviewModal job={reviewing} onClose={() => setReviewingId(null)} /> : null}
    </>
  );
}

/**
 * One kind of waitlist entry (tester signups, job requests, or the no-Gmail waitlist), paged,
 * with an approval switch per entry; `searchLabel` adds a search box (sent as `q`).
 */
function WaitlistSection({
  kind,
  pageSize,
  title,
  searchLabel,
}: {
  kind: 'signup' | 'job_request' | 'waitlist';
  pageSize: number;
  title: string;
  searchLabel?: string;
}) {
  const paged = usePagedSearch(pageSize);
  const { search } = paged;
  const { data, error, isLoading, refetch } = useListWaitlistQuery({
    kind,
    page: paged.page,
    page_size: pageSize,
    q: search || undefined,
  });
  const [update] = useUpdateWaitlistEntryMutation();
  const [approveTester] = useApproveTesterMutation();
  // One approval state: once a signup has become a tester account, its switch is that
  // account's approval (the same as in Tester approvals), not the signup's own flag.
  const { data: testers = [], refetch: refetchTesters } = useListTestersQuery(undefined, {
    skip: kind === 'job_request',
  });
  const testerByEmail = new Map(testers.map((t) => [t.email.toLowerCase(), t]));
  const { toast } = useNotify();
  const optimistic = useOptimisticToggles();
  const toggle = async (id: string, approved: boolean, testerId?: string) => {
    optimistic.set(id, approved);
    const res = testerId
      ? await approveTester({ id: testerId, approved })
      : await update({ id, approved });
    if ('error' in res && res.error) {
      optimistic.set(id, undefined); // back to what the server says
      toast(errorMessage(res.error, 'Failed to update approval status'));
    } else if (testerId) {
      await refetchTesters();
      optimistic.set(id, undefined); // the tester account's approval, as in Tester approvals
    }
  };
  return (
    <section className={panel.panel} aria-label={title}>
      <h3>
        {title} {data ? <span className="muted">({data.total})</span> : null}
      </h3>
      {searchLabel ? (
        <Field label={searchLabel}>
          <input {...paged.input} />
        </Field>
      ) : null}
      {isLoading ? <Loading /> : null}
      {error ? (
        <p className="form-msg form-msg--error" role="alert">
          Couldn't load waitlist —{' '}
          <button type="button" className={buttonClass('link')} onClick={() => refetch()}>
            retry
          </button>
        </p>
      ) : null}
      {data && !data.entries.length ? (
        <p className={notice.empty}>
          {search ? `No entries match “${search}”.` : 'Nothing here yet.'}
        </p>
      ) : null}
      <ul className={entry['entry-list']}>
        {data?.entries.map((e) => (
          <li key={e.id} className={entry.entry}>
            <div>
              <strong>{e.name || e.email}</strong> {e.name ? <span>{e.email}</span> : null}{' '}
              <span className="muted">{e.role}</span>
              {e.url ? (
                <div>
                  <a href={e.url} target="_blank" rel="noreferrer">
                    {e.url}
                  </a>
                </div>
              ) : null}
              {/* Older waitlist entries stored the name as the note too: show it once. */}
              {e.note && e.note !== e.name ? <div className="prewrap muted">{e.note}</div> : null}
              <div className="muted">{formatDate(e.created_at)}</div>
              {testerByEmail.has(e.email.toLowerCase()) ? (
                <div className="muted">Has a tester account: its approval is shown here.</div>
              ) : null}
            </div>
            {/* A job request is not something to approve: no switch on it. */}
            {kind === 'job_request'
              ? null
              : (() => {
                  const account = testerByEmail.get(e.email.toLowerCase());
                  return (
                    <label className="switch">
                      <input
                        type="checkbox"
                        checked={optimistic.value(e.id, account ? account.approved : e.approved)}
                        onChange={(ev) => toggle(e.id, ev.target.checked, account?.id)}
                      />
                      <span>Approved</span>
                    </label>
                  );
                })()}
          </li>
        ))}
      </ul>
      <Pager page={paged.page} pages={paged.pagesOf(data?.total)} onPage={paged.setPage} />
    </section>
  );
}

/**
 * Jobs un-approving this tester gives back to other testers: theirs, in a state the rules let
 * `tester_unapproved` start from (claimed; submitted work, a revision included, stays theirs).
 */
function heldBy(jobs: Job[], testerId: string): number {
  return jobs.filter((j) => j.tester_id === testerId && jobAllows(j, 'tester_unapproved')).length;
}

function TesterApprovals({ jobs }: { jobs: Job[] }) {
  const [tech, setTech] = useState<AssistiveTech | ''>('');
  // Un-approving asks first, saying how many held jobs go back to other testers.
  const [confirming, setConfirming] = useState<string | null>(null);
  const {
    data: testers = [],
    error,
    isLoading,
    refetch,
  } = useListTestersQuery(tech ? { assistive_tech: tech } : undefined);
  const [approve] = useApproveTesterMutation();
  const { toast } = useNotify();
  const optimistic = useOptimisticToggles();
  const toggle = async (id: string, approved: boolean) => {
    optimistic.set(id, approved);
    const res = await approve({ id, approved });
    if ('error' in res && res.error) {
      optimistic.set(id, undefined); // back to what the server says
      toast(errorMessage(res.error, 'Failed to update approval status'));
    } else {
      await refetch();
      optimistic.set(id, undefined); // what the server says, as the signup list shows it
    }
  };
  return (
    <section className={panel.panel} aria-label="Tester approvals">
      <h3>Tester approvals</h3>
      <Field label="Assistive technology">
        <select value={tech} onChange={(e) => setTech(e.target.value as AssistiveTech | '')}>
          <option value="">All testers</option>
          {ASSISTIVE_TECH.map((t) => (
            <option key={t} value={t}>
              Uses {ASSISTIVE_TECH_LABELS[t]}
            </option>
          ))}
        </select>
      </Field>
      {isLoading ? <Loading /> : null}
      {error ? (
        <p className="form-msg form-msg--error" role="alert">
          {errorMessage(error, 'Failed to load testers')}{' '}
          <button type="button" className={buttonClass('link')} onClick={() => refetch()}>
            Retry
          </button>
        </p>
      ) : null}
      {!isLoading && !testers.length ? (
        <p className={notice.empty}>{tech ? 'No testers use this.' : 'No testers yet.'}</p>
      ) : null}
      <ul className={entry['entry-list']}>
        {testers.map((t) => (
          <li key={t.id} className={entry.entry}>
            <div>
              <strong>{t.name || t.email}</strong> <span className="muted">{t.email}</span>
              <div className="muted">
                {t.country ?? '—'} · strikes {t.strikes ?? 0} ·{' '}
                {t.rating_count
                  ? `rating ${t.rating_avg?.toFixed(1)} (${t.rating_count})`
                  : 'no ratings yet'}
              </div>
              {t.assistive_tech?.length ? (
                <div className="muted">
                  Assistive technology:{' '}
                  {t.assistive_tech.map((a) => ASSISTIVE_TECH_LABELS[a]).join(', ')}
                </div>
              ) : null}
            </div>
            <label className="switch">
              <input
                type="checkbox"
                checked={optimistic.value(t.id, t.approved)}
                onChange={(e) => (e.target.checked ? void toggle(t.id, true) : setConfirming(t.id))}
              />
              <span>Approved</span>
            </label>
            {confirming === t.id ? (
              <div
                className={confirmStyles['confirm-inline']}
                role="group"
                aria-label={`Un-approve ${t.name || t.email}?`}
              >
                <span>
                  Un-approve {t.name || t.email}?{' '}
                  {(() => {
                    const n = heldBy(jobs, t.id);
                    return n
                      ? `${n} claimed ${n === 1 ? 'job' : 'jobs'} will be released to other testers.`
                      : 'No claimed jobs will be released.';
                  })()}
                </span>
                <button
                  type="button"
                  className={buttonClass('danger', 'sm')}
                  onClick={() => {
                    setConfirming(null);
                    void toggle(t.id, false);
                  }}
                >
                  Yes, un-approve
                </button>
                <button
                  type="button"
                  className={buttonClass('ghost', 'sm')}
                  onClick={() => setConfirming(null)}
                >
                  Keep approved
                </button>
              </div>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

const APPEAL_KIND_LABEL: Partial<Record<string, string>> = {
  strike: 'Strike',
  session_check: 'Failed session check',
};

/**
 * Testers' open appeals of strikes, low ratings (#34) and failed session checks (#52): overturn
 * (a failed check's report is released) or uphold (a failed check counts as a strike), with a note.
 */
function AppealsSection() {
  const { data: appeals = [], isLoading } = useListOpenAppealsQuery();
  const [decide, { isLoading: deciding }] = useDecideAppealMutation();
  const [notes, setNotes] = useState<Record<string, string>>({});
  const { toast, status } = useNotify();
  const onDecide = async (id: string, decision: 'overturn' | 'uphold') => {
    const res = await decide({ id, decision, note: notes[id]?.trim() || undefined });
    if ('error' in res && res.error) toast(errorMessage(res.error, 'Failed to decide the appeal'));
    else
      status(
        decision === 'overturn'
          ? 'Appeal accepted: removed. The tester is told by e-mail.'
          : 'Appeal not accepted. The tester is told by e-mail.',
      );
  };
  return (
    <section className={panel.panel} aria-labelledby="appeals-title">
      <h3 id="appeals-title">Open appeals</h3>
      {isLoading ? <Loading /> : null}
      {!isLoading && !appeals.length ? <p className={notice.empty}>No open appeals.</p> : null}
      <ul className={entry['entry-list']}>
        {appeals.map((a) => (
          <li key={a.id} className={`${entry.entry} ${entry['entry--stack']}`}>
            <div>
              <strong>{APPEAL_KIND_LABEL[a.kind] ?? `Rating ${a.stars} ★`}</strong> on{' '}
              {a.job_title || a.job_id}{' '}
              <span className="muted">
                tester {a.tester_id.slice(0, 8)} · {formatDate(a.created_at)}
              </span>
              <p>Reason given: {a.reason}</p>
              <p>Tester says: {a.message}</p>
            </div>
            <Field label="Note to the tester" optional>
              <input
                value={notes[a.id] ?? ''}
                onChange={(e) => setNotes({ ...notes, [a.id]: e.target.value })}
                maxLength={APPEAL_MESSAGE_MAX}
              />
            </Field>
            <div className="row">
              <button
                type="button"
                className={buttonClass('primary', 'sm')}
                disabled={deciding}
                onClick={() => onDecide(a.id, 'overturn')}
              >
                Overturn
              </button>{' '}
              <button
                type="button"
                className={buttonClass('secondary', 'sm')}
                disabled={deciding}
                onClick={() => onDecide(a.id, 'uphold')}
              >
                Uphold
              </button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function ManageTab({ jobs, loading }: { jobs: Job[]; loading: boolean }) {
  return (
    <div className={pageStyles.stack}>
      <section aria-labelledby="all-jobs-title">
        <h2 id="all-jobs-title">All jobs</h2>
        {loading ? <Loading /> : <JobsTable jobs={jobs} />}
      </section>
      <HeldSessions />
      <AppealsSection />
      <div className="grid-2">
        <WaitlistSection kind="signup" pageSize={10} title="Tester signups" />
        <WaitlistSection kind="job_request" pageSize={5} title="Job requests" />
      </div>
      <WaitlistSection
        kind="waitlist"
        pageSize={10}
        title="Waitlist"
        searchLabel="Search waitlist"
      />
      <TesterApprovals jobs={jobs} />
    </div>
  );
}
