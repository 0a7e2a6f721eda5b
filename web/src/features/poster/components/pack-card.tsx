import { useState, type ReactNode } from 'react';
import type { JobView as Job, PackView } from '@htm/contracts/jobs';
import { FINDING_SEVERITY_LABELS } from '@htm/contracts/findings';
import { formatPrice, packPriceCents } from '@htm/contracts/marketplace';
import { BusyButton } from '../../../components/busy-button';
import { JobCardHead } from '../../../components/job-card-head';
import { Loading } from '../../../components/loading';
import { Modal } from '../../../components/modal';
import { browser } from '../../../lib/browser';
import { errorMessage } from '../../../lib/error-message';
import { formatDate } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import { useCheckoutJobMutation } from '../api/checkout-job';
import { useGetPackQuery } from '../api/pack';

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

/** "What they agree on": the findings of the pack's testers, grouped, most shared first. */
export function PackAgreement({ packId }: { packId: string }) {
  const { data, error, isLoading } = useGetPackQuery(packId);
  if (isLoading) return <Loading label="Loading what the testers found…" />;
  if (error || !data)
    return (
      <p className="form-msg form-msg--error">{errorMessage(error, 'Could not load this pack.')}</p>
    );
  return <AgreementList view={data} />;
}

function AgreementList({ view }: { view: PackView }) {
  const reporting = view.pack.submitted;
  if (!view.clusters.length) {
    return (
      <p className="muted">No findings yet: they appear here as the testers submit their work.</p>
    );
  }
  return (
    <div className="agreement">
      <p className="muted">
        {reporting} of {view.pack.size} testers have reported. Findings that several testers wrote,
        in their own words, are grouped.
      </p>
      <ol className="agreement__list">
        {view.clusters.map((c, i) => (
          <li key={i} className={`agreement__item${c.count > 1 ? ' agreement__item--shared' : ''}`}>
            <p className="agreement__summary">
              <strong>
                {c.count} of {view.pack.size} testers:
              </strong>{' '}
              <span dir="auto">{c.summary}</span>
            </p>
            {c.findings.length > 1 ? (
              <ul className="agreement__findings">
                {c.findings.map((f, k) => (
                  <li key={k} dir="auto">
                    “{f.text}”
                    {f.severity ? (
                      <span className="muted"> · {FINDING_SEVERITY_LABELS[f.severity]}</span>
                    ) : null}
                  </li>
                ))}
              </ul>
            ) : c.findings[0]?.severity ? (
              <p className="muted agreement__severity">
                {FINDING_SEVERITY_LABELS[c.findings[0].severity]}
              </p>
            ) : null}
          </li>
        ))}
      </ol>
    </div>
  );
}

/**
 * A pack on the poster's dashboard: one card with its progress ("3 of 5 done"), "What they agree
 * on", and each tester's slot (the usual job row, to review each report) behind a disclosure.
 */
export function PackCard({
  packId,
  slots,
  renderSlot,
}: {
  packId: string;
  slots: Job[];
  renderSlot: (j: Job) => ReactNode;
}) {
  const first = slots[0];
  const p = packProgress(slots);
  const unpaid = first.payment_status !== 'paid';
  const [agreeing, setAgreeing] = useState(false);
  const [checkout, { isLoading }] = useCheckoutJobMutation();
  const { toast } = useNotify();
  const pay = async () => {
    const res = await checkout(first.id);
    if ('data' in res && res.data?.checkout_url) browser.assign(res.data.checkout_url);
    else
      toast(
        errorMessage(
          'error' in res ? res.error : null,
          'Payment could not start. Please try again.',
        ),
      );
  };
  const live = p.size - p.closed;
  return (
    <li className="job-card pack-card" aria-label={`Pack of ${p.size} testers: ${first.title}`}>
      <div className="job-card__main">
        <JobCardHead job={first} />
        <p className="job-card__meta muted">
          {p.size} testers · {formatPrice(packPriceCents(p.size))} · posted{' '}
          {formatDate(first.created_at)}
        </p>
        {unpaid ? null : (
          <>
            <p className="pack-card__progress" data-testid="pack-progress">
              {p.done} of {live} done
              {p.claimed > p.done ? ` · ${p.claimed - p.done} testing now` : ''}
              {p.closed ? ` · ${p.closed} unfilled slot${p.closed === 1 ? '' : 's'} refunded` : ''}
            </p>
            <progress
              className="pack-card__bar"
              max={Math.max(live, 1)}
              value={p.done}
              aria-label={`${p.done} of ${live} testers done`}
            />
          </>
        )}
        <details className="pack-card__slots">
          <summary>Each tester's job ({p.size})</summary>
          <ul className="job-list">{slots.map((j) => renderSlot(j))}</ul>
        </details>
      </div>
      <div className="job-card__side">
        {unpaid ? (
          <>
            <span className="badge badge--unpaid">unpaid</span>
            <BusyButton
              className="btn btn--primary btn--sm"
              onClick={pay}
              busy={isLoading}
              busyLabel="Opening…"
            >
              Pay {formatPrice(packPriceCents(p.size))} now
            </BusyButton>
          </>
        ) : (
          <button
            type="button"
            className="btn btn--primary btn--sm"
            onClick={() => setAgreeing(true)}
          >
            What they agree on
          </button>
        )}
      </div>
      {agreeing ? (
        <Modal title={`What they agree on: ${first.title}`} onClose={() => setAgreeing(false)}>
          <PackAgreement packId={packId} />
        </Modal>
      ) : null}
    </li>
  );
}
