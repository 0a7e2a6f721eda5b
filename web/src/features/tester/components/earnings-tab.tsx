import { RULE_WORDS } from '@htm/contracts/marketplace';
import { useEffect } from 'react';
import { Loading } from '../../../components/loading';
import { Stat } from '../../../components/stat';
import { Table } from '../../../components/table';
import { browser } from '../../../lib/browser';
import { errorMessage } from '../../../lib/error-message';
import { formatDate, shortId, statusLabel, usd } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import {
  useConnectPayoutAccountMutation,
  useGetPayoutAccountQuery,
} from '../api/connect-payout-account';
import { useGetEarningsQuery } from '../api/get-earnings';
import { useCashOutMutation } from '../api/cash-out';
import { EarningsWeeks } from './earnings-weeks';
import styles from './earnings-tab.module.css';
import { buttonClass } from '../../../components/button';
import { badgeClass } from '../../../components/badge';
import panel from '../../../components/panel.module.css';
import stat from '../../../components/stat.module.css';
import notice from '../../../components/notice.module.css';

/** Why the cash-out button is disabled, in the tester's words; null when it can be used. */
function cashOutBlocked(
  cashOut:
    | { min_usd: number; available_usd: number; in_progress: { amount_usd: number } | null }
    | undefined,
  connected: boolean,
): string | null {
  if (!cashOut) return 'Cash-out is not available right now.';
  if (cashOut.in_progress)
    return `Your cash-out of ${usd(cashOut.in_progress.amount_usd)} is being sent. You can cash out again once it has arrived.`;
  if (!connected) return 'Connect a payout account to cash out.';
  if (cashOut.available_usd < cashOut.min_usd)
    return cashOut.available_usd > 0
      ? `You can cash out from ${usd(cashOut.min_usd)}; you have ${usd(cashOut.available_usd)}.`
      : `You can cash out from ${usd(cashOut.min_usd)}; nothing is pending yet.`;
  return null;
}

export function EarningsTab() {
  const { data, error, isLoading } = useGetEarningsQuery();
  const { data: account } = useGetPayoutAccountQuery();
  const [connect, { isLoading: connecting }] = useConnectPayoutAccountMutation();
  const [cashOut, { isLoading: cashingOut }] = useCashOutMutation();
  const { toast, status } = useNotify();
  useEffect(() => {
    if (error) toast(errorMessage(error, 'Failed to load earnings'));
  }, [error, toast]);

  const onConnect = async () => {
    const res = await connect();
    if ('error' in res && res.error)
      toast(errorMessage(res.error, 'Failed to connect payout account'));
    else if (res.data?.onboarding_url) browser.assign(res.data.onboarding_url);
    else status('Payout account connected.');
  };

  const onCashOut = async () => {
    const res = await cashOut();
    if ('error' in res && res.error) toast(errorMessage(res.error, 'Cash-out failed'));
    else if (res.data?.payout.status === 'paid')
      status(`${usd(res.data.payout.amount_usd)} sent to your payout account.`);
    else if (res.data) status(`Your cash-out of ${usd(res.data.payout.amount_usd)} is being sent.`);
  };
  const blocked = cashOutBlocked(data?.cash_out, !!account?.connected);
  const hasMoney = (data?.cash_out?.available_usd ?? 0) > 0;

  if (isLoading) return <Loading label="Loading earnings…" />;
  return (
    <div>
      <ul className={stat.stats} aria-label="Earnings summary">
        <Stat value={usd(data?.total_usd)} label="Total earned" />
        <Stat
          value={
            data?.effective_hourly_rate === null || data?.effective_hourly_rate === undefined
              ? '—'
              : `${usd(data.effective_hourly_rate)}/h`
          }
          label={
            data?.median_minutes
              ? `Effective hourly rate (median ${Math.round(data.median_minutes)} min a job)`
              : 'Effective hourly rate (add your minutes when you submit)'
          }
        />
        <Stat value={usd(data?.pending_usd)} label="Pending payout" />
        <Stat value={usd(data?.last_30_days)} label="Last 30 days" />
        <Stat value={data?.completed_jobs ?? 0} label="Completed jobs" />
      </ul>
      <div className={`${panel.panel} ${styles.payout}`}>
        {account?.connected ? (
          <p>
            Payout account connected <span className="muted">({account.account_id})</span>. Cash out
            yourself from {usd(data?.cash_out?.min_usd)}, or wait for the next payout run.
          </p>
        ) : (
          <>
            <p>
              Connect a payout account to receive your {RULE_WORDS.testerShare} per accepted job.
            </p>
            <button
              type="button"
              className={buttonClass('primary', 'sm')}
              onClick={onConnect}
              disabled={connecting}
            >
              Connect payout account
            </button>
          </>
        )}
      </div>
      <div className={`${panel.panel} ${styles.payout} cash-out`}>
        {/* No button for $0.00 (just after a cash-out, or before any earning): only the reason. */}
        {hasMoney || cashingOut ? (
          <button
            type="button"
            className={buttonClass('primary')}
            onClick={onCashOut}
            disabled={!!blocked || cashingOut}
            aria-describedby="cash-out-why"
          >
            {cashingOut ? 'Cashing out…' : `Cash out ${usd(data?.cash_out?.available_usd)}`}
          </button>
        ) : null}
        <p id="cash-out-why" className={blocked ? 'muted' : undefined}>
          {blocked ?? `All your pending earnings go to your payout account in one transfer.`}
        </p>
      </div>
      <EarningsWeeks rows={data?.jobs ?? []} />
      {data?.jobs?.length ? (
        <Table caption="Earnings by job" columns={['Job', 'Amount', 'Completed', 'Status']}>
          {data.jobs.map((j) => (
            <tr key={j.job_id}>
              <td>
                {j.title} <span className="mono muted">#{shortId(j.job_id)}</span>
              </td>
              <td>{usd(j.amount)}</td>
              <td>{formatDate(j.completed_at)}</td>
              <td>
                <span className={badgeClass(j.status)}>{statusLabel(j.status)}</span>
              </td>
            </tr>
          ))}
        </Table>
      ) : (
        <p className={notice.empty}>
          No earnings yet. Accepted jobs pay {RULE_WORDS.testerShare} each.
        </p>
      )}
    </div>
  );
}
