import styles from './severity.module.css';

/** The class names of a finding's severity pill: `severityClass('major')`; grey without one. */
export function severityClass(severity?: string | null): string {
  const tone = severity ? styles[`severity--${severity}`] : undefined;
  return tone ? `${styles.severity} ${tone}` : styles.severity;
}
