import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { Loading } from '../../../components/loading';
import { Stat } from '../../../components/stat';
import { Table } from '../../../components/table';
import type { InsightsResponse } from '@htm/contracts/analytics';
import { errorMessage } from '../../../lib/error-message';
import { useNotify } from '../../../lib/hooks';
import { useGetInsightsQuery } from '../api/get-insights';
import { formatDay, hours, percent, seconds } from './insights-format';
import panel from '../../../components/panel.module.css';
import stat from '../../../components/stat.module.css';
import styles from './insights-tab.module.css';
import { buttonClass, buttonRowClass } from '../../../components/button';

// The chart library loads only when this tab opens (not with the landing or the other tabs).
const InsightsCharts = lazy(() => import('./insights-charts'));

export const RANGE_PRESETS = [7, 30, 90] as const;
/** Refetched on the admin's live messages; this polling catches what analytics folds in after them. */
export const INSIGHTS_POLL_MS = 30_000;

const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/** The last `days` UTC days, today included. */
export function rangeOf(days: number, now = new Date()): { from: string; to: string } {
  return { from: dayOf(new Date(now.getTime() - (days - 1) * 86_400_000)), to: dayOf(now) };
}

/** "Every session checked": the sessions checked and replaced free in each week of the range. */
function ReplacementWeeks({ checks }: { checks: InsightsResponse['session_checks'] }) {
  return (
    <section className={panel.panel} aria-labelledby="replacements-title">
      <h3 id="replacements-title">Replacement rate per week</h3>
      <p className="muted">
        Sessions whose check failed, or whose owner asked for the free replacement of a borderline
        one, out of the sessions checked ({checks.failed} failed, {checks.borderline} borderline in
        the range).
      </p>
      <Table
        caption="Replacement rate per week"
        columns={['Week of', 'Sessions checked', 'Replaced free', 'Rate']}
      >
        {checks.weeks.map((w) => (
          <tr key={w.week_start}>
            <td>{formatDay(w.week_start)}</td>
            <td>{w.checked}</td>
            <td>{w.replaced}</td>
            <td>{percent(w.replacement_rate)}</td>
          </tr>
        ))}
      </Table>
    </section>
  );
}

export function InsightsTab() {
  const [days, setDays] = useState<number>(30);
  // Fixed per preset while the tab is open, so polling and live refetches ask for the same days.
  const range = useMemo(() => rangeOf(days), [days]);
  const { data, error, isLoading, isFetching } = useGetInsightsQuery(range, {
    pollingInterval: INSIGHTS_POLL_MS,
  });
  const { toast } = useNotify();
  useEffect(() => {
    if (error) toast(errorMessage(error, 'Failed to load insights'));
  }, [error, toast]);
  const t = data?.totals;
  const usd = (cents?: number) => `$${((cents ?? 0) / 100).toFixed(2)}`;
  return (
    <div className="insights">
      <div className={styles.insights__head}>
        <h2>Insights</h2>
        <div role="group" aria-label="Range" className={buttonRowClass}>
          {RANGE_PRESETS.map((n) => (
            <button
              key={n}
              type="button"
              className={buttonClass(n === days ? 'primary' : 'secondary', 'sm')}
              aria-pressed={n === days}
              onClick={() => setDays(n)}
            >
              Last {n} days
            </button>
          ))}
        </div>
        <span className={`muted ${styles.insights__live}`} aria-live="polite">
          {isFetching && !isLoading ? 'Updating…' : 'Updates live'}
        </span>
      </div>
      {isLoading ? <Loading /> : null}
      {data ? (
        <>
          <ul className={stat.stats} aria-label="Insights summary">
            <Stat value={usd(t?.revenue_cents)} label="Paid in" />
            <Stat value={usd(t?.earnings_cents)} label="Tester earnings" />
            <Stat value={usd(t?.platform_fee_cents)} label="Platform fee" />
            <Stat value={usd(t?.payouts_cents)} label="Paid out" />
            <Stat value={hours(data.time_to_claim_ms.p50)} label="Median time to a tester" />
            <Stat value={hours(data.time_to_result_ms.p50)} label="Median time to first result" />
            <Stat
              value={seconds(data.time_to_summary_ms?.p50)}
              label="Median time from the last report to its summary"
            />
            <Stat value={percent(data.acceptance_rate)} label="Accepted" />
            <Stat value={percent(data.revision_rate)} label="Revisions asked" />
            <Stat value={data.testers.active_7d} label="Testers active (7 days)" />
            {data.packs ? (
              <Stat
                value={data.packs.ordered}
                label={`Packs (${data.packs.testers} testers, ${data.packs.slots_refunded} unfilled refunded)`}
              />
            ) : null}
            {data.session_checks ? (
              <Stat
                value={percent(data.session_checks.replacement_rate)}
                label={`Sessions replaced free (${data.session_checks.replaced} of ${data.session_checks.checked} checked)`}
              />
            ) : null}
          </ul>
          {data.session_checks ? <ReplacementWeeks checks={data.session_checks} /> : null}
          <Suspense fallback={<Loading />}>
            <InsightsCharts data={data} />
          </Suspense>
        </>
      ) : null}
    </div>
  );
}
