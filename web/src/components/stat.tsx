import type { ReactNode } from 'react';

/** One figure of a `ul.stats` list: the number, then what it counts. */
export function Stat({ value, label }: { value: ReactNode; label: string }) {
  return (
    <li className="stat">
      <span className="stat__n">{value}</span> {label}
    </li>
  );
}
