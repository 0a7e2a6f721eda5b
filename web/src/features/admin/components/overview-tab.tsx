import { useEffect } from 'react';
import { Loading } from '../../../components/loading';
import { Stat } from '../../../components/stat';
import { Table } from '../../../components/table';
import { errorMessage } from '../../../lib/error-message';
import { usd } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import type { JobView as Job } from '@htm/contracts/jobs';
import { useGetFinancialOverviewQuery } from '../api/get-financial-overview';
import { useGetDeadLettersQuery, useReplayDeadLettersMutation } from '../api/dead-letters';
import notice from '../../../components/notice.module.css';
import stat from '../../../components/stat.module.css';
import styles from './overview-tab.module.css';
import { buttonClass } from '../../../components/button';

/**
 * Events no consumer could apply (a paid job still hidden, an accepted submission not yet
 * earned...): shown only when there are some, with a Replay that puts them back on their streams.
 */
function DeadLetters() {
  const { data } = useGetDeadLettersQuery(undefined, { pollingInterval: 60_000 });
  const [replay, { isLoading }] = useReplayDeadLettersMutation();
  const { toast } = useNotify();
  if (!data?.total) return null;
  const onReplay = async () => {
    const res = await replay();
    if ('error' in res && res.error) toast(errorMessage(res.error, 'Failed to replay events'));
    else if (res.data)
      toast(`Replayed ${res.data.replayed} event${res.data.replayed === 1 ? '' : 's'}.`, 'success');
  };
  return (
    <section
      className={`${notice.notice} ${styles['notice--action']}`}
      role="alert"
      aria-label="Events that need a hand"
    >
      <p>
        <strong>
          {data.total} {data.total === 1 ? 'event needs' : 'events need'} a hand
        </strong>{' '}
        ({data.groups.map((g) => `${g.group}: ${g.count}`).join(', ')}). Fix the cause (see the
        service&apos;s log), then replay them: each is applied once.
      </p>
      <button
        type="button"
        className={buttonClass()}
        onClick={() => void onReplay()}
        disabled={isLoading}
      >
        {isLoading ? 'Replaying…' : 'Replay'}
      </button>
    </section>
  );
}

export function OverviewTab({ jobs }: { jobs: Job[] }) {
  const { data, error, isLoading } = useGetFinancialOverviewQuery();
  const { toast } = useNotify();
  useEffect(() => {
    if (error) toast(errorMessage(error, 'Failed to load financial overview'));
  }, [error, toast]);
  const count = (s: string[]) => jobs.filter((j) => s.includes(j.status)).length;
  return (
    <div>
      <DeadLetters />
      <h2>Money</h2>
      {isLoading ? <Loading /> : null}
      <ul className={stat.stats} aria-label="Financial overview">
        <Stat value={usd(data?.total_payments)} label="Total payments" />
        <Stat value={usd(data?.total_payouts)} label="Total payouts" />
        <Stat value={usd(data?.platform_earnings)} label="Platform earnings" />
        <Stat value={data?.pending_payouts_count ?? 0} label="Pending payouts" />
        <Stat value={data?.completed_jobs_count ?? 0} label="Completed jobs (paid)" />
        <Stat
          value={usd(data?.total_refunds)}
          label="Refunded (second payments, cleared jobs, unfilled pack slots)"
        />
        {data?.pending_refunds_count ? (
          <Stat value={data.pending_refunds_count} label="Refunds pending" />
        ) : null}
        {data?.platform_funded_count ? (
          <Stat
            value={usd(data.platform_funded_earnings)}
            label={`Paid by the platform (${data.platform_funded_count} ${data.platform_funded_count === 1 ? 'report' : 'reports'} released after an appeal, on jobs that went to another tester)`}
          />
        ) : null}
      </ul>
      {data?.earning_mismatches?.length ? (
        <>
          <h2>Earnings not paid</h2>
          <p>
            These jobs were marked accepted, but no payment for them is in the ledger, so nobody was
            paid. Look into each one before paying anyone by hand.
          </p>
          <Table
            caption="Earnings not paid"
            columns={['Job', 'Tester', 'Poster', 'Reason', 'Recorded']}
          >
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
      <ul className={stat.stats} aria-label="Job counts">
        <Stat value={jobs.length} label="All" />
        {/* Open = live for testers: an unpaid job is counted under Unpaid only. */}
        <Stat
          value={jobs.filter((j) => j.status === 'open' && j.payment_status === 'paid').length}
          label="Open"
        />
        <Stat value={count(['claimed', 'revision_requested'])} label="In Progress" />
        <Stat value={count(['submitted'])} label="Submitted" />
        <Stat value={count(['completed'])} label="Completed" />
        <Stat value={jobs.filter((j) => j.payment_status !== 'paid').length} label="Unpaid" />
      </ul>
    </div>
  );
}
