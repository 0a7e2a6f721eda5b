import { formatDate } from '../../../lib/format';
import { useGetSessionChecksQuery } from '../api/session-checks';
import card from '../../../components/card.module.css';
import styles from './session-checks-panel.module.css';

const OUTCOME = {
  held: 'Not sent to the site owner: the job went to another tester. This report earns nothing unless your appeal succeeds (you can appeal it once, from the Earnings tab).',
  confirmed:
    'Not sent to the site owner, and the admin confirmed it: it counts as a strike unless your appeal succeeds.',
  releasedBack:
    'Released after all: your report went to the site owner, and you are paid once it is accepted.',
  released: 'Released after all: no strike. The job had gone to another tester, so it stays out.',
  replaced:
    'Delivered with a warning; the site owner asked for a free replacement, so this report earns nothing.',
  warned: 'Delivered to the site owner with a warning.',
} as const;

type Check = NonNullable<ReturnType<typeof useGetSessionChecksQuery>['data']>['checks'][number];

/** What became of a checked report, in a sentence. */
function outcome(c: Check): string {
  if (c.released) return c.held ? OUTCOME.released : OUTCOME.releasedBack;
  if (c.held) return c.confirmed ? OUTCOME.confirmed : OUTCOME.held;
  return c.replaced ? OUTCOME.replaced : OUTCOME.warned;
}

/** "Checks of your reports": each report whose session check found something, each reason in plain words. */
export function SessionChecksPanel() {
  const { data } = useGetSessionChecksQuery();
  const checks = data?.checks ?? [];
  if (!checks.length) return null;
  return (
    <section className={`${card.card} ${styles.panel}`} aria-labelledby="session-checks-title">
      <h3 id="session-checks-title">Checks of your reports</h3>
      <ul className={styles.list}>
        {checks.map((c) => (
          <li key={c.submission_id} className={c.held && !c.released ? styles.held : styles.item}>
            <p>
              <strong>{c.title}</strong> <span className="muted">· {formatDate(c.checked_at)}</span>
            </p>
            <p>{outcome(c)}</p>
            <ul className={styles.reasons} aria-label="Reasons">
              {c.reasons.map((r) => (
                <li key={r.code}>{r.text}</li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  );
}
