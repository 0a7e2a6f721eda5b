import { useState } from 'react';
import type { ShareLinkView } from '@htm/contracts/reports';
import type { JobView as Job } from '@htm/contracts/jobs';
import { BusyButton } from '../../../components/busy-button';
import { errorMessage } from '../../../lib/error-message';
import { formatDate } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import { downloadBlob } from '../../../lib/transfer';
import { useGetSubmissionQuery } from '../../../lib/submission-api';
import type { TrackerKind } from '@htm/contracts/reports';
import { sortFindingsBySeverity } from '@htm/contracts/findings';
import {
  useGetTrackersQuery,
  useJobIssuesQuery,
  reportPath,
  useRevokeShareMutation,
  useSendFindingMutation,
  useShareReportMutation,
  type ReportTarget,
} from '../api/report';
import styles from './report-actions.module.css';
import { buttonClass } from '../../../components/button';

const TRACKER_NAMES: Record<TrackerKind, string> = { github: 'GitHub', jira: 'Jira' };

/** "Send to GitHub" / "Send to Jira" on the whole report and on each finding; the issue's link once it exists. */
function SendFindings({ job }: { job: Job }) {
  const { data: submission } = useGetSubmissionQuery(job.id);
  const { data: trackers } = useGetTrackersQuery();
  const { data: issues = [] } = useJobIssuesQuery(job.id);
  const [send] = useSendFindingMutation();
  const [busy, setBusy] = useState<string | null>(null);
  const { toast } = useNotify();
  const kinds = (['github', 'jira'] as const).filter((k) => trackers?.[k]);
  // In the order of the findings above (worst first, as FindingsList shows them); each keeps its
  // index in the tester's order, which is what the tracker call names.
  const findings = sortFindingsBySeverity(
    (
      submission?.findings ??
      submission?.human_preview.key_findings_bullets.map((text) => ({ text, severity: null })) ??
      []
    ).map((f, index) => ({ text: f.text, severity: f.severity, index })),
  );
  if (!kinds.length || !findings.length) return null;
  const go = async (index: number | null, tracker: TrackerKind) => {
    setBusy(`${index}:${tracker}`);
    const res = await send({ jobId: job.id, index, tracker });
    setBusy(null);
    if ('error' in res && res.error)
      toast(errorMessage(res.error, `${TRACKER_NAMES[tracker]} did not take the issue.`));
  };
  const button = (index: number | null, k: TrackerKind, what = '') => {
    const made = issues.find((x) => x.finding_index === index && x.tracker === k);
    return made ? (
      <a key={k} href={made.url} target="_blank" rel="noreferrer">
        {TRACKER_NAMES[k]} {what}issue
      </a>
    ) : (
      <BusyButton
        key={k}
        className={buttonClass('ghost', 'sm')}
        onClick={() => go(index, k)}
        busy={busy === `${index}:${k}`}
        busyLabel="Sending…"
      >
        Send {what ? 'report ' : ''}to {TRACKER_NAMES[k]}
      </BusyButton>
    );
  };
  return (
    <div className="send-findings">
      <h4>Send findings to your issue tracker</h4>
      <div className={styles['send-findings__item']}>
        <span>
          The whole report ({findings.length} finding{findings.length === 1 ? '' : 's'}) as one
          issue
        </span>
        <span className={styles['report-actions__row']}>
          {kinds.map((k) => button(null, k, 'report '))}
        </span>
      </div>
      <ol className={styles['send-findings__list']}>
        {findings.map((f) => (
          <li key={f.index} className={styles['send-findings__item']}>
            <span dir="auto">{f.text}</span>
            <span className={styles['report-actions__row']}>
              {kinds.map((k) => button(f.index, k))}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}

/**
 * "Share link" (a read-only page anyone with the link can open, signed out too: create, copy,
 * revoke, with its expiry) and "Download PDF", of one job's report or of a pack's one report.
 */
export function ShareActions({ target, title }: { target: ReportTarget; title: string }) {
  const [share, { isLoading: sharing }] = useShareReportMutation();
  const [revoke, { isLoading: revoking }] = useRevokeShareMutation();
  const [link, setLink] = useState<ShareLinkView | null>(null);
  const [downloading, setDownloading] = useState(false);
  const { toast, status } = useNotify();
  const full = link ? `${window.location.origin}${link.url}` : '';

  const create = async () => {
    const res = await share(target);
    if ('data' in res && res.data) setLink(res.data);
    else
      toast(errorMessage('error' in res ? res.error : null, 'The share link could not be made.'));
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(full);
      status('Link copied.');
    } catch {
      toast('Copy failed: select the link and copy it.', 'info');
    }
  };
  const stop = async () => {
    const res = await revoke(target);
    if ('error' in res && res.error)
      toast(errorMessage(res.error, 'The link could not be revoked.'));
    else {
      setLink(null);
      status('Share link revoked: it no longer opens the report.');
    }
  };
  const pdf = async () => {
    setDownloading(true);
    const res = await downloadBlob(
      `${reportPath(target)}/report.pdf`,
      `${target.kind === 'pack' ? 'pack-report' : 'report'}-${target.id.slice(0, 8)}.pdf`,
    );
    setDownloading(false);
    if (res.error) toast(errorMessage(res.error, 'The PDF could not be made.'));
  };

  return (
    <>
      <h3>{title}</h3>
      <div className={styles['report-actions__row']}>
        {!link ? (
          <BusyButton
            className={buttonClass('secondary', 'sm')}
            onClick={create}
            busy={sharing}
            busyLabel="Making link…"
          >
            Share link
          </BusyButton>
        ) : null}
        <BusyButton
          className={buttonClass('secondary', 'sm')}
          onClick={pdf}
          busy={downloading}
          busyLabel="Making PDF…"
        >
          Download PDF
        </BusyButton>
      </div>
      {link ? (
        <div className={`share-link ${styles['share-link']}`}>
          <label htmlFor={`share-${target.id}`}>
            Anyone with this link can read the report (no sign-in):
          </label>
          <input
            id={`share-${target.id}`}
            className="mono"
            readOnly
            value={full}
            onFocus={(e) => e.currentTarget.select()}
          />
          <p className="muted">Works until {formatDate(link.expires_at)}.</p>
          <div className={styles['report-actions__row']}>
            <button type="button" className={buttonClass('primary', 'sm')} onClick={copy}>
              Copy link
            </button>
            <BusyButton
              className={buttonClass('ghost', 'sm')}
              onClick={stop}
              busy={revoking}
              busyLabel="Revoking…"
            >
              Revoke link
            </BusyButton>
          </div>
        </div>
      ) : null}
    </>
  );
}

/** Under the poster's results: share the report, download it, send findings to a tracker. */
export function ReportActions({ job }: { job: Job }) {
  return (
    <section className={styles['report-actions']} aria-label="Share the report">
      <ShareActions target={{ kind: 'job', id: job.id }} title="Share the report" />
      <SendFindings job={job} />
    </section>
  );
}

/**
 * A pack's one report (issue #51): one link and one PDF for all its testers, leading with what
 * they agree on.
 */
export function PackReportActions({ packId }: { packId: string }) {
  return (
    <section className={styles['report-actions']} aria-label="Share the pack's report">
      <ShareActions target={{ kind: 'pack', id: packId }} title="Share the pack's report" />
    </section>
  );
}
