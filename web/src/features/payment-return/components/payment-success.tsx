import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { DUPLICATE_PAYMENT_MESSAGES } from '@htm/contracts/payments';
import { resultsExpectedBy } from '@htm/contracts/jobs';
import { formatDate, shortId } from '../../../lib/format';
import { getToken } from '../../../lib/tokens';
import { useGetCheckoutStatusQuery } from '../api/get-checkout-status';
import { useGetPaidJobQuery } from '../api/get-paid-job';
import { MAX_POLLS, PAYMENT_HEADINGS, PAYMENT_MESSAGES, POLL_MS } from '../messages';
import notice from '../../../components/notice.module.css';
import styles from '../../../components/loading.module.css';
import { buttonClass } from '../../../components/button';
import { AuthCard } from '../../../components/auth-card';

/** After the payment: how many testers, what they do, what the poster does, and by when. */
export function WhatHappensNext({
  job,
  testers,
}: {
  job: Parameters<typeof resultsExpectedBy>[0] & { title: string };
  testers: number;
}) {
  const by = resultsExpectedBy(job);
  const who = testers === 1 ? 'One tester' : `${testers} testers`;
  return (
    <div>
      <h2>What happens next</h2>
      <ol>
        <li>
          {who} {testers === 1 ? 'claims' : 'each claim'} “{job.title}” and{' '}
          {testers === 1 ? 'tests' : 'test'} your site for 5-10 minutes.
        </li>
        <li>
          We e-mail you when {testers === 1 ? 'the report is' : 'each report is'} ready: read it,
          then accept it or ask for one free revision.
        </li>
        {by ? (
          <li>
            Results expected by <strong>{formatDate(by)}</strong>.
          </li>
        ) : null}
      </ol>
    </div>
  );
}

/**
 * /payment/success?session_id=…: polls the checkout status until it is 'paid' (or, for a second
 * payment of a job that was already paid, 'refunded').
 */
export default function PaymentSuccess() {
  const [params] = useSearchParams();
  const sessionId = params.get('session_id') ?? '';
  const [polls, setPolls] = useState(0);
  const { data, error, refetch, isFetching } = useGetCheckoutStatusQuery(sessionId, {
    skip: !sessionId,
  });
  const paid = data?.payment_status === 'paid';
  const refunded = data?.payment_status === 'refunded';
  const gaveUp = polls >= MAX_POLLS;

  useEffect(() => {
    if (!sessionId || paid || refunded || error || gaveUp || isFetching || !data) return;
    const t = setTimeout(() => {
      setPolls((n) => n + 1);
      void refetch();
    }, POLL_MS);
    return () => clearTimeout(t);
  }, [sessionId, paid, refunded, error, gaveUp, isFetching, data, refetch]);

  const signedIn = Boolean(getToken());
  // Once paid: how many testers, and by when (from the poster's own job list).
  const { data: paidJob } = useGetPaidJobQuery(data?.job_id ?? '', {
    skip: !paid || !signedIn || !data?.job_id,
  });
  // What the page says: 'failed' without a session id or when the status check fails (404 for a
  // made-up or foreign session, 5xx, network): the page never claims a payment it could not
  // verify; 'unreadable' only when a signed-out browser is refused (401): sign in to check;
  // 'paid' once paid; 'refunded' for a second payment of a job already paid (refunded, or being
  // refunded: polling goes on until it is); any other status (unpaid, expired, or one this page
  // does not know) is still processing, as the spec says ('stalled' once polling stops).
  const refusedSignedOut =
    !signedIn && Boolean(error) && (error as { status?: unknown }).status === 401;
  const state: keyof typeof PAYMENT_HEADINGS = !sessionId
    ? 'failed'
    : error
      ? refusedSignedOut
        ? 'unreadable'
        : 'failed'
      : paid
        ? 'paid'
        : refunded || data?.payment_status === 'refund_pending'
          ? 'refunded'
          : gaveUp
            ? 'stalled'
            : 'processing';

  let body;
  if (state === 'failed') {
    body = (
      <p className="form-msg form-msg--error" role="alert">
        {PAYMENT_MESSAGES.failed}
      </p>
    );
  } else if (state === 'unreadable') {
    body = (
      <p className={notice.notice} role="status">
        {PAYMENT_MESSAGES.unreadable}
      </p>
    );
  } else if (state === 'paid') {
    body = (
      <>
        <p className="form-msg form-msg--success" role="status">
          {PAYMENT_MESSAGES.paid}
        </p>
        {paidJob ? <WhatHappensNext job={paidJob.job} testers={paidJob.testers} /> : null}
        {data?.job_id ? <p className="muted">Job #{shortId(data.job_id)}</p> : null}
      </>
    );
  } else if (state === 'refunded') {
    body = (
      <p className={notice.notice} role="status">
        {refunded ? DUPLICATE_PAYMENT_MESSAGES.refunded : DUPLICATE_PAYMENT_MESSAGES.refundPending}
      </p>
    );
  } else {
    body = (
      <p className={notice.notice} role="status">
        {state === 'processing' ? <span className={styles.spinner} aria-hidden="true" /> : null}{' '}
        {PAYMENT_MESSAGES.processing}
      </p>
    );
  }

  return (
    <AuthCard>
      <h1>{PAYMENT_HEADINGS[state]}</h1>
      {body}
      {state === 'unreadable' && !signedIn ? (
        <a className={buttonClass('primary', 'block')} href="/api/auth/google?intent=poster">
          Sign in to see your job
        </a>
      ) : (
        <Link className={buttonClass('primary', 'block')} to={signedIn ? '/dashboard' : '/'}>
          {signedIn ? 'Go to Dashboard' : 'Back to Home'}
        </Link>
      )}
    </AuthCard>
  );
}
