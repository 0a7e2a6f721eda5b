import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useDispatch } from 'react-redux';
import { TOAST_MS } from '../lib/config';
import { useSharedSelector } from '../lib/hooks';
import { toastDismissed, type Toast } from '../lib/ui-slice';
import styles from './toaster.module.css';
import { iconButtonClass } from './button';

function ToastItem({ toast }: { toast: Toast }) {
  const dispatch = useDispatch();
  useEffect(() => {
    const t = setTimeout(() => dispatch(toastDismissed(toast.id)), TOAST_MS);
    return () => clearTimeout(t);
  }, [dispatch, toast.id]);
  return (
    <div
      className={`toast ${styles.toast} ${styles[`toast--${toast.kind}`]}`}
      role={toast.kind === 'error' ? 'alert' : 'status'}
    >
      <span>{toast.text}</span>
      <button
        type="button"
        className={iconButtonClass}
        aria-label="Dismiss"
        onClick={() => dispatch(toastDismissed(toast.id))}
      >
        ×
      </button>
    </div>
  );
}

/** Phones: the toasts take a whole row of the screen, at its top or bottom edge. */
const PHONE = '(max-width: 600px)';

/**
 * True when the place the person is working (the focused control, else the last one touched or
 * focused, e.g. a submit button that disabled itself while busy) is in the top half of a phone's
 * screen: the toasts then go to the bottom edge, away from it; else they stay at the top.
 */
export function toastsBelow(worked: Element | null): boolean {
  if (typeof window.matchMedia !== 'function' || !window.matchMedia(PHONE).matches) return false;
  const active = document.activeElement;
  const el = active && active !== document.body ? active : worked;
  if (!el || !el.isConnected) return false;
  const r = el.getBoundingClientRect();
  if (!r.width && !r.height) return false;
  return (r.top + r.bottom) / 2 < window.innerHeight / 2;
}

/**
 * Toasts disappear after 5 seconds. On a phone they never cover the field or button in use: they
 * show at the screen's edge farther from it.
 */
export function Toaster() {
  const toasts = useSharedSelector((s) => s.ui.toasts);
  const worked = useRef<Element | null>(null);
  const [below, setBelow] = useState(false);
  useEffect(() => {
    const note = (e: Event) => {
      if (e.target instanceof Element) worked.current = e.target;
    };
    document.addEventListener('pointerdown', note, true);
    document.addEventListener('focusin', note, true);
    return () => {
      document.removeEventListener('pointerdown', note, true);
      document.removeEventListener('focusin', note, true);
    };
  }, []);
  const latest = toasts.length ? toasts[toasts.length - 1].id : null;
  useLayoutEffect(() => {
    if (latest !== null) setBelow(toastsBelow(worked.current));
  }, [latest]);
  return (
    <div
      className={`${styles.toaster}${below ? ` ${styles['toaster--below']}` : ''}`}
      aria-live="polite"
    >
      {toasts.map((t) => (
        <ToastItem key={t.id} toast={t} />
      ))}
    </div>
  );
}
