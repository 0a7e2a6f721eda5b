import { useEffect, useId, useRef, useState } from 'react';
import { buttonClass } from './button';
import styles from './account-menu.module.css';

export interface AccountMenuItem {
  label: string;
  onSelect: () => void;
}

/**
 * The signed-in header's "Account" button: the account's settings (e-mails, sign-ins, your data)
 * in a short list under it, the same at every width, so a phone shows them without a strip that
 * scrolls sideways. A disclosure (button with aria-expanded, then plain buttons): Escape or a
 * click outside closes it and Escape gives the focus back to the button.
 */
export function AccountMenu({
  items,
  label = 'Account',
}: {
  items: AccountMenuItem[];
  label?: string;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return undefined;
    const onDown = (e: PointerEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('pointerdown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  return (
    <div className={styles.menu} ref={root}>
      <button
        ref={button}
        type="button"
        className={`${buttonClass('ghost', 'sm')} ${styles.toggle}`}
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen((o) => !o)}
      >
        {label} <span aria-hidden="true">{open ? '▴' : '▾'}</span>
      </button>
      {open ? (
        <ul className={styles.list} id={id}>
          {items.map((item) => (
            <li key={item.label}>
              <button
                type="button"
                className={styles.item}
                onClick={() => {
                  setOpen(false);
                  item.onSelect();
                }}
              >
                {item.label}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
