import { Loading } from './loading';
import { errorMessage } from '../lib/error-message';
import { useGetBeforeAfterQuery } from '../lib/before-after-api';
import styles from './table.module.css';

const shown = (v: string | null, empty: string) => (v ? v : <span className="muted">{empty}</span>);

/**
 * A re-test's findings beside the first test's, per checklist item and key finding. The tester
 * sees the earlier findings while re-testing ("after" still empty); the poster sees both.
 */
export function BeforeAfter({ jobId }: { jobId: string }) {
  const { data, error, isLoading } = useGetBeforeAfterQuery(jobId);
  if (isLoading) return <Loading label="Loading the earlier findings…" />;
  if (error || !data)
    return (
      <p className="form-msg form-msg--error">
        {errorMessage(error, 'Could not load the earlier findings.')}
      </p>
    );
  const afterEmpty = data.after
    ? data.after.locked
      ? 'Shown once you accept the re-test'
      : '—'
    : 'Not re-tested yet';
  return (
    <section className="before-after" aria-label="Before and after">
      <table className={styles.table}>
        <caption>Checklist: first test and re-test</caption>
        <thead>
          <tr>
            <th scope="col">What to check</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {data.requirements.map((r) => (
            <tr key={r.requirement_index}>
              <th scope="row">{r.requirement}</th>
              <td>{shown(r.before, '—')}</td>
              <td>{shown(r.after, afterEmpty)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <table className={styles.table}>
        <caption>Key findings</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {data.key_findings.map((k) => (
            <tr key={k.index}>
              <th scope="row">{k.index + 1}</th>
              <td>{shown(k.before, '—')}</td>
              <td>{shown(k.after, data.after ? '—' : 'Not re-tested yet')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
