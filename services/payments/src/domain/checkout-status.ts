import { AppError, type Caller } from '@htm/service-kit';
import type { CheckoutStatusResponse } from '@htm/contracts';
import type { PaymentsDeps } from '../deps.js';
import { findCheckoutSession, type CheckoutSessionRow } from '../db/checkout-session.repository.js';
import { reconcileSession } from './apply-provider-event.js';
import { refundDuplicatePayment, refundStateOf } from './refund-duplicate.js';

/**
 * A paid session whose job had already been paid through another session is not "paid": its
 * money is (being) given back, and the poster's page must say so.
 */
async function answer(
  deps: PaymentsDeps,
  row: CheckoutSessionRow,
): Promise<CheckoutStatusResponse> {
  if (row.status !== 'paid')
    return { payment_status: row.status === 'open' ? 'unpaid' : 'expired', job_id: row.jobId };
  let refund = await refundStateOf(deps, row.id);
  if (refund === 'pending') {
    // A refund that failed earlier: try again now (idempotent by session).
    refund = await refundDuplicatePayment(deps, row.id).catch((err: Error) => {
      deps.logger.error(
        { err: err.message, sessionId: row.id },
        'refund of a duplicate payment failed; it stays pending',
      );
      return 'pending' as const;
    });
  }
  const payment_status =
    refund === 'refunded' ? 'refunded' : refund === 'pending' ? 'refund_pending' : 'paid';
  return { payment_status, job_id: row.jobId };
}

/**
 * The poster's (or admin's) view of a checkout. When the webhook has not arrived yet, asks the
 * provider and applies what it says through the same idempotent path as the webhook, so a
 * lost webhook still publishes the job. A duplicate payment answers 'refunded' (or
 * 'refund_pending' while the provider has not confirmed the refund).
 */
export async function getCheckoutStatus(
  deps: PaymentsDeps,
  caller: Caller,
  sessionId: string,
): Promise<CheckoutStatusResponse> {
  const find = () => findCheckoutSession(deps.db, sessionId);
  const row = await find();
  if (!row) throw AppError.notFound('No such checkout session.', 'session_not_found');
  if (caller.type !== 'admin' && row.posterId !== caller.id)
    throw AppError.forbidden('This checkout belongs to another account.', 'not_your_session');
  // Paid is final. An open session, or one we closed (a payment may have beaten the expiry at the
  // provider), is checked with the provider in case its webhook has not arrived.
  if (row.status === 'paid') return answer(deps, row);

  try {
    const remote = await deps.lookups.get(`session:${sessionId}`, () =>
      deps.provider.retrieveCheckoutSession(sessionId),
    );
    if (await reconcileSession(deps, remote))
      deps.logger.info(
        { sessionId, jobId: row.jobId },
        'checkout reconciled from the provider (webhook not received)',
      );
  } catch (err) {
    // The provider is unreachable: answer what we know; the webhook or the next poll settles it.
    deps.logger.warn(
      { err: (err as Error).message, sessionId },
      'could not ask the payment provider about a checkout',
    );
    return answer(deps, row);
  }
  return answer(deps, (await find()) ?? row);
}
