import { AppError } from '@htm/service-kit';
import type { CreateCheckoutSessionBody, CreateCheckoutSessionResponse } from '@htm/contracts';
import type { PaymentsDeps } from '../deps.js';
import { absoluteWebBase } from '../config.js';
import {
  findCheckoutSession,
  findOpenCheckoutSession,
  insertOpenCheckoutSession,
  insertSurplusCheckoutSession,
  type CheckoutSessionRow,
} from '../db/checkout-session.repository.js';
import { findJobPayment } from '../db/ledger.repository.js';
import { JOB_CURRENCY } from '../providers/provider.js';
import { reconcileSession } from './apply-provider-event.js';
import { JOB_PRICE_CENTS } from './money.js';

type SessionRow = CheckoutSessionRow;

const alreadyPaid = () => AppError.conflict('This job is already paid.', 'already_paid');

async function assertUnpaid(deps: PaymentsDeps, jobId: string): Promise<void> {
  if (await findJobPayment(deps.db, jobId)) throw alreadyPaid();
}

function openSessionOf(deps: PaymentsDeps, jobId: string): Promise<SessionRow | undefined> {
  return findOpenCheckoutSession(deps.db, jobId);
}

/**
 * Whether the job's open session can still be paid, according to the provider (our row may be
 * behind: a lost expiry or payment webhook). What the provider says is applied through the same
 * idempotent path as the webhook. A session completed but not yet paid (delayed payment method)
 * counts as usable: its payment is on its way, and a second session could be paid on top of it.
 */
async function stillPayable(deps: PaymentsDeps, row: SessionRow): Promise<boolean> {
  let remote;
  try {
    remote = await deps.provider.retrieveCheckoutSession(row.id);
  } catch (err) {
    // Unreachable provider: hand back the session we know; its own page tells if it expired.
    deps.logger.warn(
      { err: (err as Error).message, sessionId: row.id },
      'could not ask the payment provider about an open checkout',
    );
    return true;
  }
  if (remote.paymentStatus === 'paid' || remote.status === 'expired') {
    await reconcileSession(deps, remote);
    return false;
  }
  return true;
}

/** A pack's jobs, the session's own job first and each once; null for one job. */
function packJobIds(body: CreateCheckoutSessionBody): string[] | null {
  if (!body.job_ids || body.job_ids.length <= 1) return null;
  const rest = body.job_ids.filter((id) => id !== body.job_id);
  return [body.job_id, ...new Set(rest)];
}

const answer = (row: SessionRow): CreateCheckoutSessionResponse => ({
  checkout_url: row.checkoutUrl,
  session_id: row.id,
});

/**
 * Opens a $1.00 checkout for a job (called by jobs when a job is posted or its poster retries).
 *
 * A job has at most one payable session: while one is open (and the provider agrees), every
 * request answers that same session, so two tabs or two clicks cannot lead to two payments.
 * The rule is a partial unique index (one `open` row per job), not a read-then-write: of two
 * simultaneous requests that both created a session at the provider, the one whose insert loses
 * stores its session closed, expires it at the provider and answers the winner's session.
 */
export async function createCheckout(
  deps: PaymentsDeps,
  body: CreateCheckoutSessionBody,
): Promise<CreateCheckoutSessionResponse> {
  await assertUnpaid(deps, body.job_id);
  const existing = await openSessionOf(deps, body.job_id);
  if (existing) {
    if (await stillPayable(deps, existing)) return answer(existing);
    await assertUnpaid(deps, body.job_id);
  }

  const base = absoluteWebBase(deps.config);
  // A pack: one unit per job, on one line item (Stripe: quantity N); one job: one unit.
  const jobIds = packJobIds(body);
  const quantity = jobIds?.length ?? 1;
  const amountCents = JOB_PRICE_CENTS * quantity;
  let created: { id: string; url: string };
  try {
    created = await deps.provider.createCheckoutSession({
      jobId: body.job_id,
      posterId: body.poster_id,
      title: body.title,
      attempt: body.attempt,
      unitAmountCents: JOB_PRICE_CENTS,
      quantity,
      amountCents,
      currency: JOB_CURRENCY,
      successUrl: `${base}/payment/success?session_id={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${base}/payment/cancel`,
      idempotencyKey: `checkout-${body.job_id}-${body.attempt}`,
    });
  } catch (err) {
    deps.logger.error(
      { err, jobId: body.job_id },
      'payment provider refused to create a checkout session',
    );
    throw new AppError('bad_gateway', 'The payment provider is not answering. Please try again.', {
      code: 'provider_unavailable',
    });
  }

  const values = {
    id: created.id,
    provider: deps.provider.kind,
    jobId: body.job_id,
    posterId: body.poster_id,
    title: body.title,
    attempt: body.attempt,
    amountCents,
    currency: JOB_CURRENCY,
    checkoutUrl: created.url,
    jobIds,
  };
  // Conflicts on the id (the same attempt asked again) or on "one open session per job".
  await insertOpenCheckoutSession(deps.db, values);
  const row = await findCheckoutSession(deps.db, created.id);
  if (row) {
    if (row.jobId !== body.job_id)
      throw AppError.conflict('This checkout session belongs to another job.', 'session_conflict');
    if (row.status === 'open') return answer(row);
    // Our idempotent replay of a session that has since closed: answer the job's open one, if any.
    const open = await openSessionOf(deps, body.job_id);
    if (open) return answer(open);
    await assertUnpaid(deps, body.job_id);
    throw AppError.conflict(
      'This checkout has closed. Please ask for a new one.',
      'checkout_closed',
    );
  }

  // Another request opened a session for this job first. Keep a record of ours (closed), so a
  // payment that still reaches it is recognised and refunded, then close it at the provider.
  await insertSurplusCheckoutSession(deps.db, values);
  try {
    await deps.provider.expireCheckoutSession(created.id);
  } catch (err) {
    deps.logger.warn(
      { err: (err as Error).message, sessionId: created.id, jobId: body.job_id },
      'could not expire a surplus checkout session; a payment on it would be refunded',
    );
  }
  const winner = await openSessionOf(deps, body.job_id);
  if (winner) return answer(winner);
  await assertUnpaid(deps, body.job_id);
  throw AppError.conflict(
    'Another checkout for this job just closed. Please try again.',
    'checkout_closed',
  );
}
