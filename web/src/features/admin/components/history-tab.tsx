import { useState } from 'react';
import { Table } from '../../../components/table';
import { formatDate, shortId, statusLabel } from '../../../lib/format';
import type { JobView as Job } from '@htm/contracts/jobs';

/** Completed and revision_requested jobs, 10 by default. */
export function HistoryTab({ jobs }: { jobs: Job[] }) {
  const [limit, setLimit] = useState(10);
  const rows = jobs
    .filter((j) => j.status === 'completed' || j.status === 'revision_requested')
    .sort((a, b) =>
      (b.completed_at ?? b.submitted_at ?? '').localeCompare(
        a.completed_at ?? a.submitted_at ?? '',
      ),
    );
  if (!rows.length) return <p className="empty">No completed or revised jobs yet.</p>;
  return (
    <div>
      <Table caption="Job history" columns={['Job', 'Poster', 'Status', 'Date']}>
        {rows.slice(0, limit).map((j) => (
          <tr key={j.id}>
            <td>
              {j.title} <span className="muted mono">#{shortId(j.id)}</span>
            </td>
            <td>{j.poster_info?.email ?? '—'}</td>
            <td>
              <span className={`badge badge--${j.status}`}>{statusLabel(j.status)}</span>
              {j.status === 'revision_requested' && j.last_review?.reason ? (
                <div className="muted">{j.last_review.reason}</div>
              ) : null}
            </td>
            <td>{formatDate(j.completed_at ?? j.submitted_at)}</td>
          </tr>
        ))}
      </Table>
      {rows.length > limit ? (
        <button
          type="button"
          className="btn btn--ghost btn--sm"
          onClick={() => setLimit(limit + 10)}
        >
          Show 10 more
        </button>
      ) : null}
    </div>
  );
}
