import { useState } from 'react';
import { AUDIT_ACTIONS, type AuditAction, type AuditEntryDto } from '@htm/contracts/admin';
import { Field } from '../../../components/field';
import { Loading } from '../../../components/loading';
import { Table } from '../../../components/table';
import { errorMessage } from '../../../lib/error-message';
import { formatDate, shortId, statusLabel, usd } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import { downloadBlob } from '../../../lib/transfer';
import type { JobView as Job } from '@htm/contracts/jobs';
import { useListAuditQuery } from '../api/list-audit';
import { buttonClass, buttonRowClass } from '../../../components/button';
import { badgeClass } from '../../../components/badge';
import notice from '../../../components/notice.module.css';
import pageStyles from '../../../components/page.module.css';
import panel from '../../../components/panel.module.css';

const AUDIT_PAGE_SIZE = 20;

const ACTION_LABELS: Record<AuditAction, string> = {
  'tester.approved': 'Tester approved',
  'tester.unapproved': 'Tester unapproved',
  'signup.approved': 'Signup approved',
  'signup.unapproved': 'Signup unapproved',
  'job.assigned': 'Job assigned',
  'submission.accepted': 'Submission accepted',
  'payout.sent': 'Payout sent',
  'jobs.cleared': 'All jobs cleared',
  'user.export_run': 'Data export run for a user',
  'user.deletion_scheduled': 'Account deletion scheduled for a user',
  'appeal.overturned': 'Appeal overturned',
  'appeal.upheld': 'Appeal upheld',
  'session.released': 'Failed session released to its owner',
  'session.confirmed': 'Failed session confirmed (strike)',
};

/** One line saying what the action touched, from its details. */
function describe(e: AuditEntryDto): string {
  const d = e.details as Record<string, unknown>;
  switch (e.action) {
    case 'tester.approved':
    case 'tester.unapproved':
    case 'signup.approved':
    case 'signup.unapproved':
      return String(d.email ?? e.target);
    case 'job.assigned':
      return `Job #${shortId(e.target.replace('job:', ''))} to tester #${shortId(String(d.tester_id ?? ''))}`;
    case 'submission.accepted':
      return `${String(d.title ?? 'Job')} #${shortId(e.target.replace('job:', ''))}`;
    case 'payout.sent':
      return `${usd(Number(d.amount_cents ?? 0) / 100)} to tester #${shortId(e.target.replace('tester:', ''))}`;
    case 'jobs.cleared':
      return `${String(d.jobs_deleted ?? 0)} jobs, ${String(d.submissions_deleted ?? 0)} submissions deleted; ${String(d.refunded_jobs ?? 0)} paid jobs refunded`;
    case 'user.export_run':
    case 'user.deletion_scheduled':
      return `User #${shortId(e.target.replace('user:', ''))}`;
    case 'appeal.overturned':
    case 'appeal.upheld':
      return `${String(d.kind ?? 'appeal')} on job #${shortId(String(d.job_id ?? ''))} of tester #${shortId(e.target.replace('tester:', ''))}${d.note ? `: ${String(d.note)}` : ''}`;
    case 'session.released':
    case 'session.confirmed':
      return `Report of tester #${shortId(String(d.tester_id ?? ''))} on job #${shortId(e.target.replace('job:', ''))}${d.delivered ? ', back with its owner' : ''}`;
    default:
      return e.target;
  }
}

/** The admin actions' audit log (append-only on the server), newest first, filterable, as CSV. */
function AuditLog() {
  const [page, setPage] = useState(1);
  const [action, setAction] = useState<AuditAction | ''>('');
  const { toast } = useNotify();
  const { data, error, isLoading, refetch } = useListAuditQuery(
    { page, page_size: AUDIT_PAGE_SIZE, ...(action ? { action } : {}) },
    { refetchOnMountOrArgChange: true },
  );
  const pages = data ? Math.max(1, Math.ceil(data.total / AUDIT_PAGE_SIZE)) : 1;
  const onExport = async () => {
    const res = await downloadBlob(
      `/admin/audit.csv?${new URLSearchParams(action ? { action } : {})}`,
      'audit.csv',
    );
    if (res.error) toast(errorMessage(res.error, "Couldn't export the audit log"));
  };
  return (
    <section className={panel.panel} aria-labelledby="audit-title">
      <h2 className={panel.panel__title} id="audit-title">
        Admin actions
      </h2>
      <p className="muted">
        Every approval, assignment, accept, payout and clear-all, with who did it and when. Entries
        cannot be changed or deleted.
      </p>
      <div className={buttonRowClass}>
        <Field label="Action">
          <select
            value={action}
            onChange={(e) => {
              setAction(e.target.value as AuditAction | '');
              setPage(1);
            }}
          >
            <option value="">All actions</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {ACTION_LABELS[a]}
              </option>
            ))}
          </select>
        </Field>
        <button type="button" className={buttonClass('secondary', 'sm')} onClick={onExport}>
          Export audit CSV
        </button>
      </div>
      {isLoading ? <Loading /> : null}
      {error ? (
        <p className="form-msg form-msg--error" role="alert">
          Couldn't load the audit log —{' '}
          <button type="button" className={buttonClass('link')} onClick={() => refetch()}>
            retry
          </button>
        </p>
      ) : null}
      {data && !data.entries.length ? <p className={notice.empty}>No admin actions yet.</p> : null}
      {data?.entries.length ? (
        <Table caption="Admin actions" columns={['When', 'Action', 'What', 'Who', 'Request']}>
          {data.entries.map((e) => (
            <tr key={e.id}>
              <td>{formatDate(e.at)}</td>
              <td>{ACTION_LABELS[e.action] ?? e.action}</td>
              <td>{describe(e)}</td>
              <td className="mono">{e.actor_id ? `#${shortId(e.actor_id)}` : '—'}</td>
              <td className="mono muted">{e.correlation_id ? shortId(e.correlation_id) : '—'}</td>
            </tr>
          ))}
        </Table>
      ) : null}
      {data && pages > 1 ? (
        <div className={buttonRowClass}>
          <button
            type="button"
            className={buttonClass('ghost', 'sm')}
            disabled={page <= 1}
            onClick={() => setPage(page - 1)}
          >
            Previous page
          </button>
          <span className="muted">
            Page {page} of {pages}
          </span>
          <button
            type="button"
            className={buttonClass('ghost', 'sm')}
            disabled={page >= pages}
            onClick={() => setPage(page + 1)}
          >
            Next page
          </button>
        </div>
      ) : null}
    </section>
  );
}

/** Completed and revision_requested jobs, 10 by default. */
function JobHistory({ jobs }: { jobs: Job[] }) {
  const [limit, setLimit] = useState(10);
  const rows = jobs
    .filter((j) => j.status === 'completed' || j.status === 'revision_requested')
    .sort((a, b) =>
      (b.completed_at ?? b.submitted_at ?? '').localeCompare(
        a.completed_at ?? a.submitted_at ?? '',
      ),
    );
  if (!rows.length) return <p className={notice.empty}>No completed or revised jobs yet.</p>;
  return (
    <div>
      <Table caption="Job history" columns={['Job', 'Poster', 'Status', 'Date']}>
        {rows.slice(0, limit).map((j) => (
          <tr key={j.id}>
            <td>
              {j.title} <span className="muted mono">#{shortId(j.id)}</span>
            </td>
            <td>{j.poster_info?.email ?? '—'}</td>
            <td>
              <span className={badgeClass(j.status)}>{statusLabel(j.status)}</span>
              {j.status === 'revision_requested' && j.last_review?.reason ? (
                <div className="muted">{j.last_review.reason}</div>
              ) : null}
            </td>
            <td>{formatDate(j.completed_at ?? j.submitted_at)}</td>
          </tr>
        ))}
      </Table>
      {rows.length > limit ? (
        <button
          type="button"
          className={buttonClass('ghost', 'sm')}
          onClick={() => setLimit(limit + 10)}
        >
          Show 10 more
        </button>
      ) : null}
    </div>
  );
}

/** The admin's History: the jobs' history, then the audit log of admin actions. */
export function HistoryTab({ jobs }: { jobs: Job[] }) {
  return (
    <div className={pageStyles.stack}>
      <JobHistory jobs={jobs} />
      <AuditLog />
    </div>
  );
}
