import { useState, type ChangeEvent } from 'react';

/**
 * The state of an admin list with a search box and pages: what is typed, the page shown, and
 * how many pages a total makes. Typing goes back to page 1; the query gets `search` (trimmed).
 */
export function usePagedSearch(pageSize: number) {
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  return {
    page,
    setPage,
    /** What to send as `q` ('' when nothing is typed but spaces). */
    search: q.trim(),
    /** Props of the `<input type="search">`. */
    input: {
      type: 'search' as const,
      value: q,
      onChange: (e: ChangeEvent<HTMLInputElement>) => {
        setQ(e.target.value);
        setPage(1);
      },
    },
    /** The number of pages `total` entries fill (1 before the first answer). */
    pagesOf: (total: number | undefined) =>
      total === undefined ? 1 : Math.max(1, Math.ceil(total / pageSize)),
  };
}
