import styles from './pager.module.css';
import { buttonClass } from '../../../components/button';
/** Previous / "Page N of M" / Next under a paged admin list; nothing when it fits on one page. */
export function Pager({
  page,
  pages,
  onPage,
}: {
  page: number;
  pages: number;
  onPage: (page: number) => void;
}) {
  if (pages <= 1) return null;
  return (
    <div className={styles.pager}>
      <button
        type="button"
        className={buttonClass('ghost', 'sm')}
        disabled={page <= 1}
        onClick={() => onPage(page - 1)}
      >
        Previous
      </button>
      <span>
        Page {page} of {pages}
      </span>
      <button
        type="button"
        className={buttonClass('ghost', 'sm')}
        disabled={page >= pages}
        onClick={() => onPage(page + 1)}
      >
        Next
      </button>
    </div>
  );
}
