import {
  FINDING_SEVERITY_LABELS,
  sortFindingsBySeverity,
  type FindingView,
} from '@htm/contracts/findings';
import { formatMoment } from '../lib/format-moment';
import { severityClass } from './severity';
import styles from './findings-list.module.css';
import { buttonClass } from './button';

/**
 * The tester's key findings, worst first (blocker, major, minor, cosmetic, then unrated in the
 * tester's order), each with its steps to reproduce and expected/actual. A finding pinned to a
 * moment of the recording offers to jump there (`onSeek`). Each card is `#finding-N` in the tester's
 * order.
 */
export function FindingsList({
  findings,
  onSeek,
}: {
  findings: FindingView[];
  onSeek?: (ms: number) => void;
}) {
  return (
    <ol className={`${styles.findings} ${styles['findings--detailed']}`}>
      {sortFindingsBySeverity(findings.map((f, i) => ({ ...f, n: i + 1 }))).map((f) => (
        // The tester's numbering (the summary's "Finding" links land here).
        <li key={f.n} className="finding-card" id={`finding-${f.n}`} tabIndex={-1}>
          <p className={styles['finding-card__head']}>
            {f.severity ? (
              <span
                className={severityClass(f.severity)}
                title={FINDING_SEVERITY_LABELS[f.severity]}
              >
                {f.severity}
              </span>
            ) : null}{' '}
            <span dir="auto">{f.text}</span>
            {f.at_ms !== null ? (
              <>
                {' '}
                {onSeek ? (
                  <button
                    type="button"
                    className={buttonClass('link', 'sm')}
                    onClick={() => onSeek(f.at_ms!)}
                    aria-label={`Play the recording at ${formatMoment(f.at_ms)}: ${f.text}`}
                  >
                    at {formatMoment(f.at_ms)}
                  </button>
                ) : (
                  <span className="muted">at {formatMoment(f.at_ms)}</span>
                )}
              </>
            ) : null}
          </p>
          {f.steps ? (
            <div>
              <h4 className={styles['finding-card__label']}>Steps to reproduce</h4>
              <p className="prewrap" dir="auto">
                {f.steps}
              </p>
            </div>
          ) : null}
          {f.expected || f.actual ? (
            <dl className={styles.meta}>
              {f.expected ? (
                <div>
                  <dt>Expected</dt>
                  <dd dir="auto">{f.expected}</dd>
                </div>
              ) : null}
              {f.actual ? (
                <div>
                  <dt>Actual</dt>
                  <dd dir="auto">{f.actual}</dd>
                </div>
              ) : null}
            </dl>
          ) : null}
        </li>
      ))}
    </ol>
  );
}
