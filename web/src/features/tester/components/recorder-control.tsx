import styles from './recorder-control.module.css';
import { buttonClass } from '../../../components/button';

/**
 * The recorder's small always-on-top control (rendered into the floating window): what it is
 * doing, the elapsed time, Mark moment, Pause or Resume, and Stop; the last mark's line below.
 */
export function RecorderControl({
  paused,
  elapsed,
  limit,
  note,
  showKey,
  onMark,
  onPause,
  onResume,
  onStop,
}: {
  paused: boolean;
  elapsed: string;
  limit: string;
  note: string | null;
  /** Whether to show the Alt+M shortcut (not on a touch screen). */
  showKey: boolean;
  onMark: () => void;
  onPause: () => void;
  onResume: () => void;
  onStop: () => void;
}) {
  return (
    <main className={styles.control} aria-label="Recording controls">
      <p className={styles.status}>
        <span className={`${styles.dot}${paused ? ` ${styles.paused}` : ''}`} aria-hidden="true" />
        {paused ? 'Paused' : 'Recording'}
        <span className={styles.time} aria-label="Elapsed time">
          {elapsed} / {limit}
        </span>
      </p>
      <div className={styles.buttons}>
        <button
          type="button"
          className={buttonClass('secondary', 'sm')}
          onClick={onMark}
          aria-keyshortcuts={showKey ? 'Alt+M' : undefined}
        >
          Mark moment{showKey ? <kbd>Alt+M</kbd> : null}
        </button>
        {paused ? (
          <button type="button" className={buttonClass('secondary', 'sm')} onClick={onResume}>
            Resume
          </button>
        ) : (
          <button type="button" className={buttonClass('secondary', 'sm')} onClick={onPause}>
            Pause
          </button>
        )}
        <button type="button" className={buttonClass('danger', 'sm')} onClick={onStop}>
          Stop
        </button>
      </div>
      {note ? (
        <p className={styles.note} role="status">
          {note}
        </p>
      ) : null}
    </main>
  );
}
