import { useEffect } from 'react';
import { useDispatch } from 'react-redux';
import { STATUS_MS } from '../lib/config';
import { useSharedSelector } from '../lib/hooks';
import { statusCleared } from '../lib/ui-slice';
import styles from './status-bar.module.css';

/** Status messages clear after 3 seconds. */
export function StatusBar() {
  const status = useSharedSelector((s) => s.ui.status);
  const dispatch = useDispatch();
  useEffect(() => {
    if (!status) return;
    const t = setTimeout(() => dispatch(statusCleared(status.id)), STATUS_MS);
    return () => clearTimeout(t);
  }, [dispatch, status]);
  return (
    <div
      className={`${styles['status-bar']}${status ? ` ${styles['status-bar--on']}` : ''}`}
      role="status"
      aria-live="polite"
    >
      {status?.text ?? ''}
    </div>
  );
}
