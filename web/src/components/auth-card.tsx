import type { ReactNode } from 'react';
import styles from './auth-card.module.css';

/**
 * A small page with one centred card (sign-in, tester login, not found, payment return, account
 * deleted); `banner` sits above the card.
 */
export function AuthCard({ banner, children }: { banner?: ReactNode; children: ReactNode }) {
  return (
    <main className={styles['auth-page']} id="main">
      {banner}
      <div className={styles['auth-card']}>{children}</div>
    </main>
  );
}
