import { useEffect } from 'react';
import { Loading } from '../../../components/loading';
import { Stat } from '../../../components/stat';
import { Table } from '../../../components/table';
import { errorMessage } from '../../../lib/error-message';
import { usd } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import type { JobView as Job } from '@htm/contracts/jobs';
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
        <Stat value={usd(data?.total_payments)} label="Total payments" />
        <Stat value={usd(data?.total_payouts)} label="Total payouts" />
        <Stat value={usd(data?.platform_earnings)} label="Platform earnings" />
        <Stat value={data?.pending_payouts_count ?? 0} label="Pending payouts" />
        <Stat value={data?.completed_jobs_count ?? 0} label="Completed jobs (paid)" />
        <Stat value={usd(data?.total_refunds)} label="Refunded (second payments of a paid job)" />
        {data?.pending_refunds_count ? (
          <Stat value={data.pending_refunds_count} label="Refunds pending" />
        ) : null}
      </ul>
      {data?.earning_mismatches?.length ? (
        <>
          <h2>Earnings not paid</h2>
          <p>
            These jobs were marked accepted, but no payment for them is in the ledger, so nobody was
            paid. Look into each one before paying anyone by hand.
          </p>
          <Table caption="Earnings not paid" columns={['Job', 'Tester', 'Poster', 'Reason', 'Recorded']}>
            {data.earning_mismatches.map((m) => (
              <tr key={m.job_id}>
                <td>{m.title ? `${m.title} (${m.job_id})` : m.job_id}</td>
                <td>{m.tester_id}</td>
                <td>{m.poster_id}</td>
                <td>No payment booked for this job</td>
                <td>{new Date(m.recorded_at).toLocaleString()}</td>
              </tr>
            ))}
          </Table>
        </>
      ) : null}
      <h2>Jobs</h2>
      <ul className="stats" aria-label="Job counts">
        <Stat value={jobs.length} label="All" />
        <Stat value={count(['open'])} label="Open" />
        <Stat value={count(['claimed', 'revision_requested'])} label="In Progress" />
        <Stat value={count(['submitted'])} label="Submitted" />
        <Stat value={count(['completed'])} label="Completed" />
        <Stat value={jobs.filter((j) => j.payment_status !== 'paid').length} label="Unpaid" />
      </ul>
    </div>
  );
}
