import { useEffect, useState, type ReactNode } from 'react';
import type { JobView as Job } from '@htm/contracts/jobs';
import type { FindingRef, RegroupBody } from '@htm/contracts/summary';
import { formatPrice, packPriceCents } from '@htm/contracts/marketplace';
import {
  AgreementList,
  RegroupBar,
  RegroupSplit,
  RegroupTick,
  useRegroup,
} from '../../../components/agreement-list';
import { BusyButton } from '../../../components/busy-button';
import { JobCardHead } from '../../../components/job-card-head';
import { Loading } from '../../../components/loading';
import { Modal } from '../../../components/modal';
import {
  PackSummary,
  usePackSummaryFindings,
  type ProblemTools,
} from '../../../components/report-summary';
import { errorMessage } from '../../../lib/error-message';
import { formatDate } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import { jobPayable } from '../../../lib/job-rules';
import { useGetPackQuery, useRegroupPackMutation } from '../api/pack';
import { PackReportActions } from './report-actions';
import { UnpaidNote, usePayNow } from './pay-now';
import { badgeClass } from '../../../components/badge';
import jobCard from '../../../components/job-card.module.css';
import styles from './pack-card.module.css';
import { buttonClass } from '../../../components/button';

/** A pack's slots by state, from the poster's job list (the same counts GET /api/packs/{id} answers). */
export function packProgress(slots: Job[]) {
  const has = (...s: string[]) => slots.filter((j) => s.includes(j.status)).length;
  return {
    size: slots.length,
    claimed: has('claimed', 'submitted', 'revision_requested', 'completed'),
    done: has('submitted', 'completed'),
    completed: has('completed'),
    closed: has('closed'),
  };
}

/**
 * "What they agree on": the pack's summary (what to fix first, how each thing to check went, the
 * reel), then the findings of its testers that "Fix first" does not show, grouped, most shared
 * first: each problem is listed once. The owner's merge / split works across both lists.
 */
export function PackAgreement({
  packId,
  focusProblem,
}: {
  packId: string;
  focusProblem?: number | null;
}) {
  const { data, error, isLoading } = useGetPackQuery(packId);
  const [send] = useRegroupPackMutation();
  const { toast } = useNotify();
  const { shown, generatedAt } = usePackSummaryFindings(packId);
  // After a merge or split the server computes the summary again: it is asked again until it
  // changes (a minute at most: the same grouping gives the same summary, nothing new).
  const [awaiting, setAwaiting] = useState<{ since: string | null } | null>(null);
  useEffect(() => {
    if (!awaiting) return;
    const t = setTimeout(() => setAwaiting(null), 60_000);
    return () => clearTimeout(t);
  }, [awaiting]);
  const polling = !!awaiting && generatedAt === awaiting.since;
  // The owner's merge / split: the list is read again at once, the summary follows.
  const onRegroup = async (body: RegroupBody) => {
    const res = await send({ packId, body });
    if ('error' in res) {
      toast(errorMessage(res.error, 'Could not change the groups. Please try again.'));
      return false;
    }
    setAwaiting({ since: generatedAt });
    toast(
      body.action === 'merge' ? 'Merged into one problem.' : 'Split off into its own problem.',
      'success',
    );
    return true;
  };
  const regroup = useRegroup(onRegroup);
  if (isLoading) return <Loading label="Loading what the testers found…" />;
  if (error || !data)
    return (
      <p className="form-msg form-msg--error">{errorMessage(error, 'Could not load this pack.')}</p>
    );
  const tools: ProblemTools = {
    problem: (p) =>
      p.evidence.length ? (
        <RegroupTick regroup={regroup} findings={p.evidence.map(refOf)} label={p.title} />
      ) : null,
    evidence: (p, e) => (
      <RegroupSplit
        regroup={regroup}
        finding={refOf(e)}
        from={p.evidence.filter((o) => o !== e).map(refOf)}
        text={e.text ?? p.title}
      />
    ),
  };
  return (
    <>
      <PackSummary
        packId={packId}
        focusProblem={focusProblem}
        tools={data.clusters.length ? tools : undefined}
        awaitingChange={polling}
      />
      {data.clusters.length ? <RegroupBar regroup={regroup} /> : null}
      <AgreementList view={data} regroup={regroup} except={shown} />
      {data.pack.submitted > 0 ? <PackReportActions packId={packId} /> : null}
    </>
  );
}

const refOf = (f: { submission_id: string; finding_index: number }): FindingRef => ({
  submission_id: f.submission_id,
  finding_index: f.finding_index,
});

/**
 * A pack on the poster's dashboard: one card with its progress ("3 of 5 done"), "What they agree
 * on", and each tester's slot (the usual job row, to review each report) behind a disclosure.
 */
export function PackCard({
  packId,
  slots,
  renderSlot,
  linked,
  onUnlink,
}: {
  packId: string;
  slots: Job[];
  renderSlot: (j: Job) => ReactNode;
  /** Opened from a link (the results e-mail): "What they agree on" opens, at problem N if given. */
  linked?: { problem: number | null } | null;
  /** The link's part of the address is done with (the dialog closed). */
  onUnlink?: () => void;
}) {
  const first = slots[0];
  const p = packProgress(slots);
  const unpaid = jobPayable(first);
  const [agreeing, setAgreeing] = useState(!!linked);
  // A pack is paid as a whole: any slot opens the one checkout.
  const { pay, busy: paying, problem } = usePayNow(first.id);
  const live = p.size - p.closed;
  return (
    <li
      className={`${jobCard['job-card']} ${styles['pack-card']}`}
      aria-label={`Pack of ${p.size} testers: ${first.title}`}
    >
      <div className={jobCard['job-card__main']}>
        <JobCardHead job={first} />
        <p className={`${jobCard['job-card__meta']} muted`}>
          {p.size} testers · {formatPrice(packPriceCents(p.size))} · posted{' '}
          {formatDate(first.created_at)}
        </p>
        {unpaid ? (
          <UnpaidNote problem={problem} what="pack" />
        ) : (
          <>
            <p className={styles['pack-card__progress']} data-testid="pack-progress">
              {p.done} of {live} done
              {p.claimed > p.done ? ` · ${p.claimed - p.done} testing now` : ''}
              {p.closed ? ` · ${p.closed} unfilled slot${p.closed === 1 ? '' : 's'} refunded` : ''}
            </p>
            <progress
              className={styles['pack-card__bar']}
              max={Math.max(live, 1)}
              value={p.done}
              aria-label={`${p.done} of ${live} testers done`}
            />
          </>
        )}
        <details className={styles['pack-card__slots']}>
          <summary>Each tester's job ({p.size})</summary>
          <ul className={`${jobCard['job-list']} ${styles['pack-card__list']}`}>
            {slots.map((j) => renderSlot(j))}
          </ul>
        </details>
      </div>
      <div className={jobCard['job-card__side']}>
        {unpaid ? (
          <>
            <span className={badgeClass('unpaid')}>unpaid</span>
            <BusyButton
              className={buttonClass('primary', 'sm')}
              onClick={pay}
              busy={paying}
              busyLabel="Opening…"
            >
              Pay {formatPrice(packPriceCents(p.size))} now
            </BusyButton>
          </>
        ) : (
          <button
            type="button"
            className={buttonClass('primary', 'sm')}
            onClick={() => setAgreeing(true)}
          >
            What they agree on
          </button>
        )}
      </div>
      {agreeing ? (
        <Modal
          title={`What they agree on: ${first.title}`}
          onClose={() => {
            setAgreeing(false);
            onUnlink?.();
          }}
          size="lg"
        >
          <PackAgreement packId={packId} focusProblem={linked?.problem} />
        </Modal>
      ) : null}
    </li>
  );
}
