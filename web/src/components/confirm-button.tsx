import { useEffect, useRef, useState, type ReactNode } from 'react';
import styles from './confirm-button.module.css';
import { buttonClass, buttonRowClass } from './button';

/**
 * A button that asks first ("Are you sure?" with Yes / Cancel) and then runs `onConfirm`
 * once: while it runs the button is disabled and further clicks (a double-click) send
 * nothing.
 */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  busyLabel,
  onConfirm,
  className = buttonClass('primary', 'sm'),
}: {
  label: ReactNode;
  question: string;
  confirmLabel: string;
  busyLabel: string;
  onConfirm: () => Promise<unknown>;
  className?: string;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const running = useRef(false);
  const yes = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);

  const run = async () => {
    if (running.current) return;
    running.current = true;
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      running.current = false;
      setBusy(false);
      setAsking(false);
    }
  };

  if (!asking)
    return (
      <button type="button" className={className} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span className={styles['confirm-inline']} role="group" aria-label={question}>
      <span>{question}</span>
      <span className={buttonRowClass}>
        <button ref={yes} type="button" className={className} onClick={run} disabled={busy}>
          {busy ? busyLabel : confirmLabel}
        </button>
        <button
          type="button"
          className={buttonClass('ghost', 'sm')}
          onClick={() => setAsking(false)}
          disabled={busy}
        >
          Cancel
        </button>
      </span>
    </span>
  );
}
