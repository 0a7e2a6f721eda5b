/** The Earnings tab's last 12 weeks: dated earnings rows summed per ISO week (Monday to Sunday, UTC). */
export const WEEKS_SHOWN = 12;
const DAY = 86_400_000;

export interface WeekEarnings {
  /** The week's Monday, YYYY-MM-DD (UTC). */
  week: string;
  /** "Nov 23" */
  label: string;
  amount_usd: number;
  jobs: number;
}

const mondayOf = (t: number): number => {
  const day = Math.floor(t / DAY) * DAY;
  const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return day - weekday * DAY;
};

/** Oldest week first, the current week last; rows outside the 12 weeks are left out. */
export function weeklyEarnings(
  rows: ReadonlyArray<{ amount: number; completed_at: string }>,
  now = new Date(),
): WeekEarnings[] {
  const current = mondayOf(now.getTime());
  const weeks = Array.from({ length: WEEKS_SHOWN }, (_, i) => {
    const start = current - (WEEKS_SHOWN - 1 - i) * 7 * DAY;
    const d = new Date(start);
    return {
      start,
      week: d.toISOString().slice(0, 10),
      label: d.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' }),
      cents: 0,
      jobs: 0,
    };
  });
  for (const r of rows) {
    const t = Date.parse(r.completed_at);
    if (Number.isNaN(t)) continue;
    const w = weeks.find((x) => x.start === mondayOf(t));
    if (!w) continue;
    w.cents += Math.round(r.amount * 100);
    w.jobs += 1;
  }
  return weeks.map(({ week, label, cents, jobs }) => ({
    week,
    label,
    amount_usd: cents / 100,
    jobs,
  }));
}
