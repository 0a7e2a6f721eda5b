import { useEffect } from 'react';
import { Loading } from '../../../components/loading';
import { errorMessage } from '../../../lib/error-message';
import { usd } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import type { Job } from '../../../lib/types';
import { useGetFinancialOverviewQuery } from '../api/get-financial-overview';

export function OverviewTab({ jobs }: { jobs: Job[] }) {
  const { data, error, isLoading } = useGetFinancialOverviewQuery();
  const { toast } = useNotify();
  useEffect(() => {
    if (error) toast(errorMessage(error, 'Failed to load financial overview'));
  }, [error, toast]);
  const count = (s: string[]) => jobs.filter((j) => s.includes(j.status)).length;
  return (
    <div>
      <h2>Money</h2>
      {isLoading ? <Loading /> : null}
      <ul className="stats" aria-label="Financial overview">
        <li className="stat">
          <span className="stat__n">{usd(data?.total_payments)}</span> Total payments
        </li>
        <li className="stat">
          <span className="stat__n">{usd(data?.total_payouts)}</span> Total payouts
        </li>
        <li className="stat">
          <span className="stat__n">{usd(data?.platform_earnings)}</span> Platform earnings
        </li>
        <li className="stat">
          <span className="stat__n">{data?.pending_payouts_count ?? 0}</span> Pending payouts
        </li>
        <li className="stat">
          <span className="stat__n">{data?.completed_jobs_count ?? 0}</span> Completed jobs (paid)
        </li>
      </ul>
      <h2>Jobs</h2>
      <ul className="stats" aria-label="Job counts">
        <li className="stat">
          <span className="stat__n">{jobs.length}</span> All
        </li>
        <li className="stat">
          <span className="stat__n">{count(['open'])}</span> Open
        </li>
        <li className="stat">
          <span className="stat__n">{count(['claimed', 'in_progress', 'revision_requested'])}</span>{' '}
          In Progress
        </li>
        <li className="stat">
          <span className="stat__n">{count(['submitted'])}</span> Submitted
        </li>
        <li className="stat">
          <span className="stat__n">{count(['completed'])}</span> Completed
        </li>
        <li className="stat">
          <span className="stat__n">{jobs.filter((j) => j.payment_status !== 'paid').length}</span>{' '}
          Unpaid
        </li>
      </ul>
    </div>
  );
}
