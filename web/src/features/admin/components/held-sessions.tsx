import type { HeldSessionView } from '@htm/contracts/jobs';
import { ConfirmButton } from '../../../components/confirm-button';
import { Loading } from '../../../components/loading';
import { errorMessage } from '../../../lib/error-message';
import { formatDate, shortId } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import { useDecideSessionMutation, useListHeldSessionsQuery } from '../api/session-checks';
import notice from '../../../components/notice.module.css';
import panel from '../../../components/panel.module.css';
import styles from './held-sessions.module.css';
import { buttonClass } from '../../../components/button';

/** One failed session: what the check measured, the report itself, and the two decisions. */
function HeldSession({ s }: { s: HeldSessionView }) {
  const [decide] = useDecideSessionMutation();
  const { toast, status } = useNotify();
  const waiting = s.job_status === 'open';
  const onDecide = async (decision: 'release' | 'confirm') => {
    const res = await decide({ submissionId: s.submission_id, decision });
    if ('error' in res && res.error)
      toast(errorMessage(res.error, 'Failed to decide this session. Please reload.'));
    else if (decision === 'confirm') status('Confirmed: it counts as a strike for the tester.');
    else
      status(
        res.data?.delivered
          ? 'Released: the report is with its owner now, and the tester is paid once it is accepted.'
          : 'Released: no strike. Another tester has the job, so the report stays out.',
      );
  };
  const titleId = `held-${s.submission_id}`;
  return (
    <li className={styles.item} aria-labelledby={titleId}>
      <h4 className={styles.title} id={titleId}>
        {s.title} <span className="muted mono">#{shortId(s.job_id)}</span>
      </h4>
      <p className="muted">
        {s.tester_name || `Tester #${shortId(s.tester_id)}`} · sent {formatDate(s.submitted_at)}
        {s.checked_at ? ` · checked ${formatDate(s.checked_at)}` : null}
      </p>
      <p className={styles.line}>
        <span className={styles.label}>Measured:</span> {s.line}
      </p>
      <ul className={styles.reasons} aria-label="Why it failed">
        {s.reasons.map((r) => (
          <li key={r.code}>{r.text}</li>
        ))}
      </ul>
      {s.note ? <p className="muted">Note: {s.note}</p> : null}
      <details className={styles.report}>
        <summary>The report</summary>
        <ul>
          {s.key_findings.map((f, i) => (
            <li key={i}>{f}</li>
          ))}
        </ul>
        {s.general_feedback ? <p>{s.general_feedback}</p> : null}
        {s.recording_url ? (
          <p>
            <a href={s.recording_url} target="_blank" rel="noreferrer">
              Watch the recording
            </a>
          </p>
        ) : null}
      </details>
      {s.appeal ? (
        <p className={styles.appeal}>
          <span className={styles.label}>The tester appealed:</span> “{s.appeal.message}” (decide it
          under Open appeals)
        </p>
      ) : null}
      <p className="muted">
        {waiting
          ? 'The job is waiting for another tester: releasing gives this report back to its owner.'
          : 'Another tester has taken the job: releasing only spares this tester the strike.'}
      </p>
      <div className={styles.actions}>
        <ConfirmButton
          label={waiting ? 'Release to owner' : 'Release (no strike)'}
          question={
            waiting
              ? 'Send this report to its owner as submitted?'
              : 'Release without a strike? The report stays out.'
          }
          confirmLabel="Yes, release"
          busyLabel="Releasing…"
          onConfirm={() => onDecide('release')}
        />
        <ConfirmButton
          className={buttonClass('danger', 'sm')}
          label="Confirm fail (strike)"
          question="Count this failed session as a strike?"
          confirmLabel="Yes, a strike"
          busyLabel="Confirming…"
          onConfirm={() => onDecide('confirm')}
        />
      </div>
    </li>
  );
}

/**
 * "Held sessions": reports whose session check failed ("Every session checked"), kept from their
 * owners while their jobs went back to Available Jobs. The admin releases one the check got wrong,
 * or confirms the failure, which then counts as a strike.
 */
export function HeldSessions() {
  const { data: sessions = [], isLoading, error, refetch } = useListHeldSessionsQuery();
  return (
    <section className={panel.panel} aria-labelledby="held-sessions-title">
      <h3 id="held-sessions-title">Held sessions</h3>
      <p className="muted">
        Reports that failed their session check. Their owners have not seen them, and their jobs
        went back to Available Jobs at no cost. A failure counts as a strike only once you confirm
        it.
      </p>
      {isLoading ? <Loading /> : null}
      {error ? (
        <p className="form-msg form-msg--error">
          {errorMessage(error, 'Failed to load the held sessions.')}{' '}
          <button type="button" className={buttonClass('link')} onClick={() => refetch()}>
            Retry
          </button>
        </p>
      ) : null}
      {!isLoading && !error && !sessions.length ? (
        <p className={notice.empty}>No held sessions.</p>
      ) : null}
      <ul className={styles.list}>
        {sessions.map((s) => (
          <HeldSession key={s.submission_id} s={s} />
        ))}
      </ul>
    </section>
  );
}
