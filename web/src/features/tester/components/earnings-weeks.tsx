import { lazy, Suspense, useId, useMemo } from 'react';
import { Loading } from '../../../components/loading';
import { Table } from '../../../components/table';
import { usd } from '../../../lib/format';
import { weeklyEarnings, WEEKS_SHOWN } from './earnings-by-week';
import chart from '../../../components/chart.module.css';

// The chart library loads only when the Earnings tab opens (not with the landing or the other tabs).
const EarningsChart = lazy(() => import('./earnings-chart'));

/** The last 12 weeks' earnings: a chart, and the same figures as a table for screen readers. */
export function EarningsWeeks({
  rows,
}: {
  rows: ReadonlyArray<{ amount: number; completed_at: string }>;
}) {
  const id = useId();
  const weeks = useMemo(() => weeklyEarnings(rows), [rows]);
  const total = weeks.reduce((n, w) => n + w.amount_usd, 0);
  const jobs = weeks.reduce((n, w) => n + w.jobs, 0);
  const best = weeks.reduce((b, w) => (w.amount_usd > b.amount_usd ? w : b), weeks[0]);
  const summary = jobs
    ? `${usd(total)} from ${jobs} job${jobs === 1 ? '' : 's'}; best week: ${best.label}, ${usd(best.amount_usd)}`
    : 'Nothing earned in these weeks yet';
  const title = `Earnings, last ${WEEKS_SHOWN} weeks`;
  return (
    <figure className={chart.chart} aria-labelledby={id}>
      <figcaption id={id}>
        <h3>{title}</h3>
        <p className="muted">{summary}</p>
      </figcaption>
      <div className={chart.plot} role="img" aria-label={`${title}: ${summary}`}>
        <Suspense fallback={<Loading label="Loading chart…" />}>
          <EarningsChart weeks={weeks} />
        </Suspense>
      </div>
      <details>
        <summary>Show as a table</summary>
        <Table caption={title} columns={['Week of', 'Earned', 'Jobs']}>
          {weeks.map((w) => (
            <tr key={w.week}>
              <td>{w.label}</td>
              <td>{usd(w.amount_usd)}</td>
              <td>{w.jobs}</td>
            </tr>
          ))}
        </Table>
      </details>
    </figure>
  );
}
