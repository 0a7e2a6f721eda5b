import type { ReactNode } from 'react';
import { BrandLink } from './brand-link';
import styles from './site-header.module.css';

/** The public pages' header (landing, info pages): the brand linking home, then `children`, the main navigation's buttons. */
export function SiteHeader({ children }: { children: ReactNode }) {
  return (
    <header className={styles['site-header']}>
      <div className={`container ${styles['site-header__inner']}`}>
        <BrandLink />
        <nav className={styles['site-nav']} aria-label="Main">
          {children}
        </nav>
      </div>
    </header>
  );
}
