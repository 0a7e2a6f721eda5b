import { useState } from 'react';
import { BusyButton } from '../../../components/busy-button';
import { browser } from '../../../lib/browser';
import { errorMessage } from '../../../lib/error-message';
import { useCheckoutJobMutation } from '../api/checkout-job';
import type { CheckoutAnswer } from '../api/create-job';
import styles from './pay-now.module.css';
import { buttonClass } from '../../../components/button';

/** What a card says when a checkout could not start and the answer gave no reason. */
export const PAYMENT_NOT_STARTED = 'Payment could not start. Please try again in a moment.';

/**
 * Where an answer that gave no checkout leaves the poster: the reason in words (payments'
 * `payment_error`, else the error's detail), never silence.
 */
export function paymentProblem(
  res: { data?: CheckoutAnswer } | { error?: unknown },
): string | null {
  if ('data' in res && res.data?.checkout_url) return null;
  if ('data' in res && res.data?.payment_error) return res.data.payment_error;
  return errorMessage('error' in res ? res.error : null, PAYMENT_NOT_STARTED);
}

/**
 * "Pay now" for an unpaid job or pack (any of its slots): a fresh checkout, and the browser goes
 * there. When payments cannot answer, `problem` says why until the next try; the job stays saved
 * unpaid, to be paid later the same way.
 */
export function usePayNow(jobId: string) {
  const [checkout, { isLoading }] = useCheckoutJobMutation();
  const [problem, setProblem] = useState<string | null>(null);
  const pay = async () => {
    setProblem(null);
    const res = await checkout(jobId);
    const why = paymentProblem(res);
    if (why) setProblem(why);
    else if ('data' in res && res.data?.checkout_url) browser.assign(res.data.checkout_url);
  };
  return { pay, busy: isLoading, problem };
}

/** An unpaid card's words: testers see it once it is paid, and why the last payment did not start. */
export function UnpaidNote({ problem, what = 'job' }: { problem: string | null; what?: string }) {
  return (
    <div className={styles.root}>
      <p className={styles.note}>Not paid yet: testers see this {what} once it is paid.</p>
      {problem ? (
        <p className="form-msg form-msg--error" role="alert">
          {problem}
        </p>
      ) : null}
    </div>
  );
}

/**
 * Post Job & Pay when the checkout could not start: the job is saved, unpaid. Says why in words
 * (it stays on screen, unlike a toast) and offers Pay now here, or later on the job's card.
 */
export function SavedNotPaid({
  jobId,
  problem,
  price,
  onClose,
}: {
  jobId: string;
  problem: string;
  price: string;
  onClose: () => void;
}) {
  const later = usePayNow(jobId);
  return (
    <div className={styles.saved}>
      <p className="form-msg form-msg--error" role="alert">
        {later.problem ?? problem}
      </p>
      <p className={styles.next}>
        Your job is saved under Your jobs, marked unpaid. Testers see it once it is paid: pay now,
        or later with Pay now on its card.
      </p>
      <div className="form__actions">
        <button type="button" className={buttonClass('ghost')} onClick={onClose}>
          Pay later
        </button>
        <BusyButton
          className={buttonClass('primary')}
          onClick={later.pay}
          busy={later.busy}
          busyLabel="Opening…"
        >
          Pay {price} now
        </BusyButton>
      </div>
    </div>
  );
}
