import styles from './badge.module.css';

/**
 * The class names of a pill naming a status: `badgeClass('open')`, `badgeClass('unpaid')`. A
 * status with a colour of its own (a job's or an earning's status, unpaid, assistive) gets it;
 * any other (or none) is grey.
 */
export function badgeClass(status?: string): string {
  const tone = status ? styles[`badge--${status}`] : undefined;
  return tone ? `${styles.badge} ${tone}` : styles.badge;
}
