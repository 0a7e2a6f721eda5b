import { useEffect, useId, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import styles from './modal.module.css';
import { iconButtonClass } from './button';

const FOCUSABLE =
  'a[href], area[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

interface ModalProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** Optional footer (buttons). */
  footer?: ReactNode;
  size?: 'md' | 'lg';
  describedBy?: string;
  /** Shown between the title and the body, e.g. the discard-draft question. */
  banner?: ReactNode;
}

/**
 * Dialog with a focus trap: focus moves inside on open, Tab cycles within,
 * Escape closes, focus returns to the element that opened it.
 */
export function Modal({
  title,
  onClose,
  children,
  footer,
  size = 'md',
  describedBy,
  banner,
}: ModalProps) {
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;

  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const node = ref.current;
    const first =
      node?.querySelector<HTMLElement>('[data-autofocus]') ??
      node?.querySelector<HTMLElement>(FOCUSABLE);
    (first ?? node)?.focus();
    const prevOverflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        onCloseRef.current();
        return;
      }
      if (e.key !== 'Tab' || !node) return;
      const items = Array.from(node.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
        (el) => !el.hasAttribute('disabled'),
      );
      if (!items.length) {
        e.preventDefault();
        node.focus();
        return;
      }
      const firstEl = items[0];
      const lastEl = items[items.length - 1];
      const active = document.activeElement;
      if (e.shiftKey && (active === firstEl || active === node)) {
        e.preventDefault();
        lastEl.focus();
      } else if (!e.shiftKey && active === lastEl) {
        e.preventDefault();
        firstEl.focus();
      }
    };
    document.addEventListener('keydown', onKey, true);
    return () => {
      document.removeEventListener('keydown', onKey, true);
      document.body.style.overflow = prevOverflow;
      if (opener && typeof opener.focus === 'function' && document.contains(opener)) opener.focus();
    };
  }, []);

  return createPortal(
    // The backdrop is presentation only: a click on it is a mouse shortcut for Escape / Close.
    <div
      className={styles['modal-backdrop']}
      role="presentation"
      onMouseDown={(e) => e.target === e.currentTarget && onClose()}
    >
      <div
        ref={ref}
        className={`${styles.modal}${size === 'lg' ? ` ${styles['modal--lg']}` : ''}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={describedBy}
        tabIndex={-1}
      >
        <div className={styles.modal__top}>
          <div className={styles.modal__head}>
            <h2 id={titleId}>{title}</h2>
            <button type="button" className={iconButtonClass} aria-label="Close" onClick={onClose}>
              ×
            </button>
          </div>
          {banner}
        </div>
        <div className={styles.modal__body}>{children}</div>
        {footer ? <div className={styles.modal__foot}>{footer}</div> : null}
      </div>
    </div>,
    document.body,
  );
}
