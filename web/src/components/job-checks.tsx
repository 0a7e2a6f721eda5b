import styles from './job-checks.module.css';
/** A job's "Things to check" on its card (poster's and tester's), or nothing when it has none. */
export function JobChecks({ requirements }: { requirements?: readonly string[] | null }) {
  if (!requirements?.length) return null;
  return (
    <div className={styles['job-card__checks']}>
      <span className="muted">Things to check:</span>
      <ul className={styles['reqs-list']}>
        {requirements.map((r, i) => (
          <li key={i} dir="auto">
            {r}
          </li>
        ))}
      </ul>
    </div>
  );
}
