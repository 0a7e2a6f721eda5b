/** Milliseconds as hours for people: "45 min", "5.2 h", "3.1 days"; "—" when unknown. */
export function hours(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 3600_000) return `${Math.max(1, Math.round(ms / 60_000))} min`;
  if (ms < 72 * 3600_000) return `${(ms / 3600_000).toFixed(1)} h`;
  return `${(ms / 86_400_000).toFixed(1)} days`;
}

/** A short wait for people: "12 s" under a minute, else as hours(); "—" when unknown. */
export function seconds(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || ms >= 60_000) return hours(ms);
  return `${Math.max(1, Math.round(ms / 1000))} s`;
}

/** A rate 0..1 as a percentage; "—" when there is none. */
export function percent(r: number | null | undefined): string {
  return r === null || r === undefined ? '—' : `${Math.round(r * 100)}%`;
}

/** The histogram bin label: "≤ 1 h", ..., "> 48 h". */
export function binLabel(uptoMs: number | null, previousMs?: number | null): string {
  if (uptoMs === null) return `> ${Math.round((previousMs ?? 0) / 3600_000)} h`;
  return `≤ ${Math.round(uptoMs / 3600_000)} h`;
}

/** A UTC day (YYYY-MM-DD) for people: "Mon 30 Nov". */
export function formatDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString('en-US', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  });
}
