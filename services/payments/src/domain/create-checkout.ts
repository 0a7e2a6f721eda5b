import { and, eq } from 'drizzle-orm';
import { AppError } from '@htm/service-kit';
import type { CreateCheckoutSessionBody, CreateCheckoutSessionResponse } from '@htm/contracts';
import type { PaymentsDeps } from '../app.js';
import { absoluteWebBase } from '../config.js';
import { checkoutSessions, ledgerEntries } from '../db/schema.js';
import { JOB_CURRENCY } from '../providers/provider.js';
import { JOB_PRICE_CENTS } from './money.js';

/**
 * Opens a $1.00 checkout for a job (called by jobs when a job is posted or its poster retries).
 * The same job and attempt always give the same session (idempotency key per job and attempt).
 */
export async function createCheckout(deps: PaymentsDeps, body: CreateCheckoutSessionBody): Promise<CreateCheckoutSessionResponse> {
  const [paid] = await deps.db
    .select({ id: ledgerEntries.id })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.kind, 'payment'), eq(ledgerEntries.jobId, body.job_id)));
  if (paid) throw AppError.conflict('This job is already paid.', 'already_paid');

  const base = absoluteWebBase(deps.config);
  let created: { id: string; url: string };
  try {
    created = await deps.provider.createCheckoutSession({
      jobId: body.job_id,
      posterId: body.poster_id,
      title: body.title,
      attempt: body.attempt,
      amountCents: JOB_PRICE_CENTS,
      currency: JOB_CURRENCY,
      successUrl: `${base}/payment/success?session_id={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${base}/payment/cancel`,
      idempotencyKey: `checkout-${body.job_id}-${body.attempt}`,
    });
  } catch (err) {
    deps.logger.error({ err, jobId: body.job_id }, 'payment provider refused to create a checkout session');
    throw new AppError('bad_gateway', 'The payment provider is not answering. Please try again.', { code: 'provider_unavailable' });
  }

  await deps.db
    .insert(checkoutSessions)
    .values({
      id: created.id,
      provider: deps.provider.kind,
      jobId: body.job_id,
      posterId: body.poster_id,
      title: body.title,
      attempt: body.attempt,
      amountCents: JOB_PRICE_CENTS,
      currency: JOB_CURRENCY,
      checkoutUrl: created.url,
    })
    .onConflictDoNothing();
  const [row] = await deps.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, created.id));
  if (row.jobId !== body.job_id) throw AppError.conflict('This checkout session belongs to another job.', 'session_conflict');
  return { checkout_url: row.checkoutUrl, session_id: row.id };
}
