import type { ButtonHTMLAttributes, ReactNode } from 'react';

/**
 * A button whose action talks to the server: while `busy` it is disabled and says `busyLabel`
 * ("Opening…", "Deleting…") instead of its label.
 */
export function BusyButton({
  busy,
  busyLabel,
  children,
  disabled,
  type = 'button',
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & {
  busy: boolean;
  busyLabel: string;
  children: ReactNode;
}) {
  return (
    <button type={type} disabled={busy || disabled} {...rest}>
      {busy ? busyLabel : children}
    </button>
  );
}
