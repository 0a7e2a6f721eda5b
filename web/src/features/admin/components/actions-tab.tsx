import { ConfirmButton } from '../../../components/confirm-button';
import { useState } from 'react';
import { Loading } from '../../../components/loading';
import { Field } from '../../../components/field';
import { Modal } from '../../../components/modal';
import { errorMessage, errorStatus } from '../../../lib/error-message';
import { countOf, formatDate, statusLabel, usd } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import { downloadBlob } from '../../../lib/transfer';
import { useClearJobsMutation, usePreviewClearJobsMutation } from '../api/clear-jobs';
import type { ClearJobsPreview } from '@htm/contracts/admin';
import { useListFeedbackQuery } from '../api/list-feedback';
import { useListLeadsQuery } from '../api/list-leads';
import { Pager } from './pager';
import { useRunPayoutsMutation } from '../api/run-payouts';
import { usePagedSearch } from './use-paged-search';
import card from '../../../components/card.module.css';
import entry from '../../../components/entry.module.css';
import notice from '../../../components/notice.module.css';
import pageStyles from '../../../components/page.module.css';
import panel from '../../../components/panel.module.css';
import styles from './actions-tab.module.css';
import { buttonClass, buttonRowClass } from '../../../components/button';

const LEADS_PAGE_SIZE = 10;

function Leads() {
  const paged = usePagedSearch(LEADS_PAGE_SIZE);
  const { page } = paged;
  const { data, error, isLoading, refetch } = useListLeadsQuery({
    q: paged.search || undefined,
    page,
    page_size: LEADS_PAGE_SIZE,
  });
  const status = errorStatus(error);
  return (
    <section className={panel.panel} aria-labelledby="leads-title">
      <h2 className={panel.panel__title} id="leads-title">
        Developer leads
      </h2>
      <Field label="Search leads">
        <input {...paged.input} />
      </Field>
      {isLoading ? <Loading /> : null}
      {error ? (
        <p className="form-msg form-msg--error" role="alert">
          {typeof status === 'number' ? `Failed to load leads (${status})` : null} Couldn't load
          leads —{' '}
          <button type="button" className={buttonClass('link')} onClick={() => refetch()}>
            retry
          </button>
        </p>
      ) : null}
      {data && !data.leads.length ? <p className={notice.empty}>No leads.</p> : null}
      <ul className={entry['entry-list']}>
        {data?.leads.map((l) => (
          <li className={entry.entry} key={l.id}>
            <div>
              <strong>{l.email}</strong> <span className="muted">{formatDate(l.created_at)}</span>
              <div className="prewrap">{l.message}</div>
            </div>
          </li>
        ))}
      </ul>
      <Pager page={page} pages={paged.pagesOf(data?.total)} onPage={paged.setPage} />
    </section>
  );
}

const FEEDBACK_PAGE_SIZE = 10;

/** What people sent through 'Send Feedback' (the beta banner and the landing page), paged. */
function FeedbackEntries() {
  const paged = usePagedSearch(FEEDBACK_PAGE_SIZE);
  const { page } = paged;
  const { data, error, isLoading, refetch } = useListFeedbackQuery({
    q: paged.search || undefined,
    page,
    page_size: FEEDBACK_PAGE_SIZE,
  });
  return (
    <section className={panel.panel} aria-labelledby="feedback-list-title">
      <h2 className={panel.panel__title} id="feedback-list-title">
        Feedback
      </h2>
      <Field label="Search feedback">
        <input {...paged.input} />
      </Field>
      {isLoading ? <Loading /> : null}
      {error ? (
        <p className="form-msg form-msg--error" role="alert">
          {errorMessage(error, "Couldn't load feedback")} —{' '}
          <button type="button" className={buttonClass('link')} onClick={() => refetch()}>
            retry
          </button>
        </p>
      ) : null}
      {data && !data.feedback?.length ? <p className={notice.empty}>No feedback yet.</p> : null}
      <ul className={entry['entry-list']}>
        {data?.feedback?.map((f) => (
          <li className={entry.entry} key={f.id}>
            <div>
              <strong>{f.email}</strong> <span className="muted">{formatDate(f.created_at)}</span>
              <div className="prewrap" dir="auto">
                {f.message}
              </div>
              {f.page_url ? <div className="muted">From {f.page_url}</div> : null}
            </div>
          </li>
        ))}
      </ul>
      <Pager page={page} pages={paged.pagesOf(data?.total)} onPage={paged.setPage} />
    </section>
  );
}

/** What clear-all will do, money included, as the preview counted it. */
function ClearPreviewText({ p }: { p: ClearJobsPreview }) {
  const statuses = Object.entries(p.jobs_by_status)
    .map(([s, n]) => `${n} ${statusLabel(s)}`)
    .join(', ');
  return (
    <div className={pageStyles.stack}>
      <p>
        This permanently deletes {countOf(p.jobs_total, 'job')}
        {statuses ? ` (${statuses})` : ''}, {countOf(p.submissions, 'submission')} and{' '}
        {countOf(p.job_requests, 'job request')}. This cannot be undone.
      </p>
      <ul>
        <li>
          <strong>Refunded:</strong> {countOf(p.paid_unfinished, 'paid job')} nobody finished (
          {usd(p.paid_unfinished_cents / 100)}). Each poster gets their payment back; the refunds
          appear under Refunds in Overview.
        </li>
        <li>
          <strong>Kept:</strong> {countOf(p.paid_completed, 'completed job')} (
          {usd(p.paid_completed_cents / 100)}): the testers keep their earnings, and pending ones
          are still paid out.
        </li>
        <li>
          <strong>Unpaid:</strong> {countOf(p.unpaid, 'job')} (no money involved).
        </li>
      </ul>
      <p className="muted">
        After clearing, Overview still counts every payment, earning and payout made so far (money
        history outlives the jobs); only the refunds above are added.
      </p>
    </div>
  );
}

export function ActionsTab() {
  const [preview, setPreview] = useState<ClearJobsPreview | null>(null);
  const [previewClear, { isLoading: previewing }] = usePreviewClearJobsMutation();
  const [clearJobs, { isLoading: clearing }] = useClearJobsMutation();
  const [runPayouts] = useRunPayoutsMutation();
  const { toast, status } = useNotify();

  const onAskClear = async () => {
    const res = await previewClear();
    if ('error' in res && res.error) toast(errorMessage(res.error, 'Failed to count the jobs'));
    else if (res.data) setPreview(res.data);
  };
  const onClear = async () => {
    if (!preview) return;
    const res = await clearJobs({ confirmation: preview.confirmation });
    setPreview(null);
    if ('error' in res && res.error) {
      toast(errorMessage(res.error, 'Failed to clear jobs'));
      // The jobs changed (or the confirmation ran out): show the new counts to confirm again.
      if (errorStatus(res.error) === 409) void onAskClear();
    } else if (res.data)
      toast(
        `Cleared ${countOf(res.data.jobs_deleted, 'job')}, ${countOf(res.data.submissions_deleted, 'submission')}, ${countOf(res.data.waitlist_deleted, 'job request')}.` +
          (res.data.refunded_jobs
            ? ` Refunding ${countOf(res.data.refunded_jobs, 'paid job')}.`
            : ''),
        'success',
      );
  };
  const onExport = async (what: 'waitlist' | 'leads') => {
    const res =
      what === 'waitlist'
        ? await downloadBlob('/admin/waitlist?export=csv', 'waitlist.csv')
        : await downloadBlob('/admin/leads?export=csv', 'leads.csv');
    if (res.error)
      toast(
        what === 'waitlist'
          ? "Couldn't load waitlist — retry"
          : `Failed to load leads (${String(res.error.status)})`,
      );
    else status(`${what === 'waitlist' ? 'Waitlist' : 'Leads'} exported.`);
  };
  const onPayouts = async () => {
    const res = await runPayouts();
    if ('error' in res && res.error) toast(errorMessage(res.error, 'Failed to run payouts'));
    else if (res.data)
      toast(
        `Payouts: ${res.data.paid.length} paid, ${res.data.failed.length} failed, ${res.data.skipped_unconnected} skipped (no payout account).`,
        'success',
      );
  };

  return (
    <div className={pageStyles.stack}>
      <div className={`${card.cards} ${card['cards--3']}`}>
        <section className={card.card}>
          <h2>Export</h2>
          <p className="muted">Download CSV files.</p>
          <div className={buttonRowClass}>
            <button
              type="button"
              className={buttonClass('secondary', 'sm')}
              onClick={() => onExport('waitlist')}
            >
              Export waitlist CSV
            </button>
            <button
              type="button"
              className={buttonClass('secondary', 'sm')}
              onClick={() => onExport('leads')}
            >
              Export leads CSV
            </button>
          </div>
        </section>
        <section className={card.card}>
          <h2>Payouts</h2>
          <p className="muted">Pay every tester with pending earnings and a connected account.</p>
          <ConfirmButton
            label="Run payouts"
            question="Send every pending payout now?"
            confirmLabel="Yes, run payouts"
            busyLabel="Running…"
            onConfirm={onPayouts}
          />
        </section>
        <section className={`${card.card} ${styles['card--danger']}`}>
          <h2>Danger zone</h2>
          <p className="muted">Delete every job, submission and job request.</p>
          <button
            type="button"
            className={buttonClass('danger', 'sm')}
            onClick={onAskClear}
            disabled={previewing}
          >
            {previewing ? 'Counting…' : 'Clear all jobs'}
          </button>
        </section>
      </div>
      <Leads />
      <FeedbackEntries />
      {preview ? (
        <Modal title="Clear all jobs?" onClose={() => setPreview(null)}>
          <ClearPreviewText p={preview} />
          <div className="form__actions">
            <button
              type="button"
              className={buttonClass('ghost')}
              data-autofocus
              onClick={() => setPreview(null)}
            >
              Cancel
            </button>
            <button
              type="button"
              className={buttonClass('danger')}
              onClick={onClear}
              disabled={clearing}
            >
              {clearing ? 'Clearing…' : 'Yes, clear all jobs'}
            </button>
          </div>
        </Modal>
      ) : null}
    </div>
  );
}
