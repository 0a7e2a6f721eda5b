/**
 * The Insights tab's charts (Recharts, loaded with this file only when the tab opens). Every chart
 * has its numbers as a table beside it (a disclosure under the chart), for screen readers, for
 * keyboard users and for anyone who wants the exact figures.
 */
import { useId, type ReactElement, type ReactNode } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { InsightsResponse } from '@htm/contracts/analytics';
import { Table } from '../../../components/table';
import { binLabel, hours } from './insights-format';
import chartStyles from '../../../components/chart.module.css';
import styles from './insights-charts.module.css';

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

const COLORS = {
  posted: '#526077',
  paid: '#1d3fbb',
  claimed: '#7a4b00',
  submitted: '#6b21a8',
  completed: '#0e7a4f',
  demand: '#b42318',
};
const SERIES = ['posted', 'paid', 'claimed', 'submitted', 'completed'] as const;
const LABELS: Record<(typeof SERIES)[number], string> = {
  posted: 'Posted',
  paid: 'Paid',
  claimed: 'Claimed',
  submitted: 'Submitted',
  completed: 'Completed',
};

function ChartFigure({
  title,
  summary,
  chart,
  columns,
  rows,
}: {
  title: string;
  summary: string;
  chart: ReactNode;
  columns: string[];
  rows: ReactNode[][];
}) {
  const id = useId();
  return (
    <figure className={chartStyles.chart} aria-labelledby={id}>
      <figcaption id={id}>
        <h3>{title}</h3>
        <p className="muted">{summary}</p>
      </figcaption>
      <div className={chartStyles.plot} role="img" aria-label={`${title}: ${summary}`}>
        <ResponsiveContainer width="100%" height={240}>
          {chart as ReactElement}
        </ResponsiveContainer>
      </div>
      <details>
        <summary>Show as a table</summary>
        <Table caption={title} columns={columns}>
          {rows.map((r, i) => (
            <tr key={i}>
              {r.map((c, j) => (
                <td key={j}>{c}</td>
              ))}
            </tr>
          ))}
        </Table>
      </details>
    </figure>
  );
}

export default function InsightsCharts({ data }: { data: InsightsResponse }) {
  const days = data.days.map((d) => ({ ...d, label: d.date.slice(5) }));
  const funnel = SERIES.map((k) => ({ step: LABELS[k], jobs: data.funnel[k] }));
  const bins = data.time_to_result_histogram.map((b, i, all) => ({
    bin: binLabel(b.upto_ms, all[i - 1]?.upto_ms),
    jobs: b.count,
  }));
  const binOf = (ms: number | null) => {
    if (ms === null) return undefined;
    const i = data.time_to_result_histogram.findIndex((b) => b.upto_ms === null || ms <= b.upto_ms);
    return bins[i]?.bin;
  };
  const p50 = binOf(data.time_to_result_ms.p50);
  const p90 = binOf(data.time_to_result_ms.p90);
  // One marker per bin: p50 and p90 in the same bin share one line and label.
  const markers: Array<{ bin: string; label: string; color: string }> = [];
  if (p50 && p50 === p90)
    markers.push({
      bin: p50,
      label: `p50 ${hours(data.time_to_result_ms.p50)} · p90 ${hours(data.time_to_result_ms.p90)}`,
      color: '#0f172a',
    });
  else {
    if (p50)
      markers.push({
        bin: p50,
        label: `p50 ${hours(data.time_to_result_ms.p50)}`,
        color: '#0f172a',
      });
    if (p90)
      markers.push({
        bin: p90,
        label: `p90 ${hours(data.time_to_result_ms.p90)}`,
        color: '#b42318',
      });
  }
  const countries = [
    ...new Set([
      ...Object.keys(data.testers.approved_by_country),
      ...Object.keys(data.demand_by_country),
    ]),
  ].sort();
  const supply = countries.map((c) => ({
    country: c,
    testers: data.testers.approved_by_country[c] ?? 0,
    jobs: data.demand_by_country[c] ?? 0,
  }));
  const waiting = data.waiting_jobs.map((w) => ({
    age: w.older_than_hours ? `> ${w.older_than_hours} h` : 'all',
    jobs: w.count,
  }));
  const total = (k: (typeof SERIES)[number]) => data.funnel[k];
  return (
    <div className={styles.insights__grid}>
      <ChartFigure
        title="Jobs per day"
        summary={`${total('posted')} posted, ${total('paid')} paid, ${total('completed')} completed from ${data.days[0]?.date} to ${data.days.at(-1)?.date}`}
        chart={
          <LineChart data={days} margin={{ top: 8, right: 16, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#dbe2ea" />
            <XAxis dataKey="label" tick={{ fontSize: 12 }} minTickGap={16} />
            <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
            <Tooltip />
            <Legend />
            {SERIES.map((k) => (
              <Line
                key={k}
                type="linear"
                dataKey={k}
                name={LABELS[k]}
                stroke={COLORS[k]}
                dot={false}
                strokeWidth={2}
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        }
        columns={['Day', ...SERIES.map((k) => LABELS[k]), 'Paid in']}
        rows={data.days.map((d) => [
          d.date,
          d.posted,
          d.paid,
          d.claimed,
          d.submitted,
          d.completed,
          `$${(d.revenue_cents / 100).toFixed(2)}`,
        ])}
      />
      <ChartFigure
        title="Funnel"
        summary={`Of ${total('posted')} jobs posted, ${total('paid')} were paid, ${total('claimed')} claimed, ${total('submitted')} submitted and ${total('completed')} completed`}
        chart={
          <BarChart data={funnel} margin={{ top: 8, right: 16, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#dbe2ea" vertical={false} />
            <XAxis dataKey="step" tick={{ fontSize: 12 }} />
            <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
            <Tooltip />
            <Bar dataKey="jobs" name="Jobs" fill={COLORS.paid} isAnimationActive={false} />
          </BarChart>
        }
        columns={['Step', 'Jobs']}
        rows={funnel.map((f) => [f.step, f.jobs])}
      />
      <ChartFigure
        title="Time to first result"
        summary={`From payment to the first submission: half within ${hours(data.time_to_result_ms.p50)}, 90% within ${hours(data.time_to_result_ms.p90)}`}
        chart={
          <BarChart data={bins} margin={{ top: 20, right: 16, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#dbe2ea" vertical={false} />
            <XAxis dataKey="bin" tick={{ fontSize: 12 }} />
            <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
            <Tooltip />
            <Bar dataKey="jobs" name="Jobs" fill={COLORS.completed} isAnimationActive={false} />
            {markers.map((m) => (
              <ReferenceLine
                key={m.bin}
                x={m.bin}
                stroke={m.color}
                strokeDasharray="4 2"
                label={{ value: m.label, position: 'top', fontSize: 12, fill: '#0f172a' }}
              />
            ))}
          </BarChart>
        }
        columns={['Time to first result', 'Jobs']}
        rows={[
          ...bins.map((b) => [b.bin, b.jobs]),
          ['p50', hours(data.time_to_result_ms.p50)],
          ['p90', hours(data.time_to_result_ms.p90)],
        ]}
      />
      <ChartFigure
        title="Supply vs demand by country"
        summary={
          supply
            .map(
              (s) =>
                `${s.country}: ${plural(s.testers, 'approved tester')}, ${plural(s.jobs, 'paid job')} open to them`,
            )
            .join('; ') || 'No testers or jobs yet'
        }
        chart={
          <BarChart data={supply} margin={{ top: 8, right: 16, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#dbe2ea" vertical={false} />
            <XAxis dataKey="country" tick={{ fontSize: 12 }} />
            <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
            <Tooltip />
            <Legend />
            <Bar
              dataKey="testers"
              name="Approved testers (now)"
              fill={COLORS.paid}
              isAnimationActive={false}
            />
            <Bar
              dataKey="jobs"
              name="Paid jobs open to them (range)"
              fill={COLORS.demand}
              isAnimationActive={false}
            />
          </BarChart>
        }
        columns={['Country', 'Approved testers (now)', 'Paid jobs open to them (range)']}
        rows={supply.map((s) => [s.country, s.testers, s.jobs])}
      />
      <ChartFigure
        title="Paid jobs waiting for a tester"
        summary={`${data.waiting_jobs[0]?.count ?? 0} waiting now; ${data.waiting_jobs.find((w) => w.older_than_hours === 24)?.count ?? 0} for more than 24 hours`}
        chart={
          <BarChart data={waiting} margin={{ top: 8, right: 16, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#dbe2ea" vertical={false} />
            <XAxis dataKey="age" tick={{ fontSize: 12 }} />
            <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
            <Tooltip />
            <Bar
              dataKey="jobs"
              name="Jobs waiting"
              fill={COLORS.claimed}
              isAnimationActive={false}
            />
          </BarChart>
        }
        columns={['Waiting', 'Jobs']}
        rows={waiting.map((w) => [
          w.age === 'all' ? 'any time' : `more than ${w.age.slice(2)}`,
          w.jobs,
        ])}
      />
    </div>
  );
}
