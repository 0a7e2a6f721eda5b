import type { SessionCheckView } from '@htm/contracts/jobs';
import styles from './session-check-line.module.css';

/**
 * What the report's session check found ("Every session checked"): the "Checked" line with the
 * measured facts, or, for a report delivered with a warning, the warning and its reasons.
 */
export function SessionCheckLine({ check }: { check: SessionCheckView | null | undefined }) {
  if (!check) return null;
  if (check.status === 'checking')
    return (
      <p className={styles.checked} role="status">
        <span className={styles.label}>Being checked</span>
        <span>Recording, answers and originality are checked within minutes.</span>
      </p>
    );
  if (check.verdict === 'pass')
    return (
      <p className={styles.checked}>
        <span className={styles.label}>Checked</span>
        <span>{check.line}</span>
      </p>
    );
  return (
    <div className={styles.warning} role="note" aria-label="Check warning">
      <p>
        <span className={styles.label}>Checked, with a warning:</span> {check.line}
      </p>
      <ul className={styles.reasons}>
        {check.reasons.map((r) => (
          <li key={r.code}>{r.text}</li>
        ))}
      </ul>
    </div>
  );
}
