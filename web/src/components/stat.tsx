import type { ReactNode } from 'react';
import styles from './stat.module.css';

/** One figure of a `ul.stats` list: the number, then what it counts. */
export function Stat({ value, label }: { value: ReactNode; label: string }) {
  return (
    <li className={styles.stat}>
      <span className={styles.stat__n}>{value}</span> {label}
    </li>
  );
}
