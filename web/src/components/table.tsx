import { useLayoutEffect, useRef, type ReactNode } from 'react';
import styles from './table.module.css';

/**
 * A table with a screen-reader caption and one header row; children are the rows.
 * Wide tables scroll inside their own box; on phones each row is shown as a card whose
 * cells carry their column's name (`data-label`, read by the stylesheet).
 */
export function Table({
  caption,
  columns,
  children,
}: {
  caption: string;
  columns: string[];
  children: ReactNode;
}) {
  const body = useRef<HTMLTableSectionElement>(null);
  // After every render: the rows are the caller's markup, so label their cells here.
  useLayoutEffect(() => {
    for (const row of Array.from(body.current?.rows ?? []))
      for (const cell of Array.from(row.cells)) {
        const label = columns[cell.cellIndex] ?? '';
        if (cell.dataset.label !== label) cell.dataset.label = label;
      }
  });
  return (
    <div className={styles['table-wrap']}>
      <table className={styles.table}>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody ref={body}>{children}</tbody>
      </table>
    </div>
  );
}
