import { useEffect } from 'react';
import { useDispatch } from 'react-redux';
import { TOAST_MS } from '../lib/config';
import { useSharedSelector } from '../lib/hooks';
import { toastDismissed, type Toast } from '../lib/ui-slice';

function ToastItem({ toast }: { toast: Toast }) {
  const dispatch = useDispatch();
  useEffect(() => {
    const t = setTimeout(() => dispatch(toastDismissed(toast.id)), TOAST_MS);
    return () => clearTimeout(t);
  }, [dispatch, toast.id]);
  return (
    <div
      className={`toast toast--${toast.kind}`}
      role={toast.kind === 'error' ? 'alert' : 'status'}
    >
      <span>{toast.text}</span>
      <button
        type="button"
        className="icon-btn"
        aria-label="Dismiss"
        onClick={() => dispatch(toastDismissed(toast.id))}
      >
        ×
      </button>
    </div>
  );
}

/** Toasts disappear after 5 seconds. */
export function Toaster() {
  const toasts = useSharedSelector((s) => s.ui.toasts);
  return (
    <div className="toaster" aria-live="polite">
      {toasts.map((t) => (
        <ToastItem key={t.id} toast={t} />
      ))}
    </div>
  );
}
