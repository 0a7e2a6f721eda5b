import type { LiveState } from '../lib/live';
import styles from './live-indicator.module.css';

const LABEL: Record<LiveState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  offline: 'Offline — reconnecting',
};

/** A small dot showing whether this tab gets live updates; says so when the connection drops. */
export function LiveIndicator({ state }: { state: LiveState }) {
  return (
    <span
      className={`${styles['live-indicator']} live-indicator--${state} ${styles[`live-indicator--${state}`] ?? ''}`}
      role="status"
      aria-live="polite"
      title={
        state === 'live'
          ? 'Updates arrive as they happen'
          : 'Updates paused; the page refreshes when the connection is back'
      }
      data-live-state={state}
    >
      <span className={styles['live-indicator__dot']} aria-hidden="true" />
      {LABEL[state]}
    </span>
  );
}
