/**
 * The Earnings tab's chart of the last 12 weeks (Recharts, loaded with this file only when the tab
 * opens, like the admin's Insights charts). Its numbers are also a table beside it (EarningsWeeks).
 */
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { WeekEarnings } from './earnings-by-week';

export default function EarningsChart({ weeks }: { weeks: WeekEarnings[] }) {
  return (
    <ResponsiveContainer width="100%" height={220}>
      <BarChart data={weeks} margin={{ top: 8, right: 16, bottom: 0, left: -8 }}>
        <CartesianGrid strokeDasharray="3 3" stroke="#dbe2ea" vertical={false} />
        <XAxis dataKey="label" tick={{ fontSize: 12 }} minTickGap={8} />
        <YAxis tick={{ fontSize: 12 }} tickFormatter={(v: number) => `$${v.toFixed(2)}`} />
        <Tooltip
          formatter={(v) => `$${Number(v).toFixed(2)}`}
          labelFormatter={(l) => `Week of ${l}`}
        />
        <Bar dataKey="amount_usd" name="Earned" fill="#0e7a4f" isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
