import { eq } from 'drizzle-orm';
import { AppError, type Caller } from '@htm/service-kit';
import type { CheckoutStatusResponse } from '@htm/contracts';
import type { PaymentsDeps } from '../app.js';
import { checkoutSessions } from '../db/schema.js';
import { reconcileSession } from './apply-provider-event.js';

type SessionRow = typeof checkoutSessions.$inferSelect;

function answer(row: SessionRow): CheckoutStatusResponse {
  const payment_status = row.status === 'paid' ? 'paid' : row.status === 'open' ? 'unpaid' : 'expired';
  return { payment_status, job_id: row.jobId };
}

/**
 * The poster's (or admin's) view of a checkout. When the webhook has not arrived yet, asks the
 * provider and applies what it says through the same idempotent path as the webhook, so a
 * lost webhook still publishes the job.
 */
export async function getCheckoutStatus(deps: PaymentsDeps, caller: Caller, sessionId: string): Promise<CheckoutStatusResponse> {
  const find = async () => (await deps.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, sessionId)))[0];
  const row = await find();
  if (!row) throw AppError.notFound('No such checkout session.', 'session_not_found');
  if (caller.type !== 'admin' && row.posterId !== caller.id) throw AppError.forbidden('This checkout belongs to another account.', 'not_your_session');
  if (row.status !== 'open') return answer(row);

  try {
    const remote = await deps.provider.retrieveCheckoutSession(sessionId);
    if (await reconcileSession(deps, remote)) deps.logger.info({ sessionId, jobId: row.jobId }, 'checkout reconciled from the provider (webhook not received)');
  } catch (err) {
    // The provider is unreachable: answer what we know; the webhook or the next poll settles it.
    deps.logger.warn({ err: (err as Error).message, sessionId }, 'could not ask the payment provider about a checkout');
    return answer(row);
  }
  return answer((await find()) ?? row);
}
