import { JOB_STATUS_LABELS } from '@htm/contracts/marketplace';

export const shortId = (id: string | null | undefined): string => (id ? id.slice(0, 8) : '');

export const usd = (n: number | null | undefined): string =>
  `$${(typeof n === 'number' && Number.isFinite(n) ? n : 0).toFixed(2)}`;

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : d.toLocaleString();
}

/** "1d 4h 12m" (or "less than a minute") until `iso`, or null once it has passed. */
export function timeLeft(iso: string | null | undefined, now = Date.now()): string | null {
  if (!iso) return null;
  const ms = new Date(iso).getTime() - now;
  if (!Number.isFinite(ms) || ms <= 0) return null;
  const m = Math.floor(ms / 60_000);
  if (m === 0) return 'less than a minute';
  const d = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  const mm = m % 60;
  return [d ? `${d}d` : '', h ? `${h}h` : '', `${mm}m`].filter(Boolean).join(' ');
}

/** "1 job", "7 jobs", "1 job request": the count with the noun in agreement. */
export const countOf = (n: number, one: string, many = `${one}s`): string =>
  `${n} ${n === 1 ? one : many}`;

/** A job's status as the marketplace rules module names it ("revision requested"). */
export const statusLabel = (s: string): string =>
  (JOB_STATUS_LABELS as Record<string, string | undefined>)[s] ?? s.replace(/_/g, ' ');

export function isEmail(v: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v.trim());
}
