import type { Logger } from 'pino';
import {
  createCheckoutSessionResponseSchema,
  type CreateCheckoutSessionBody,
  type CreateCheckoutSessionResponse,
} from '@htm/contracts';
import { AppError, InternalClient, type ServiceKeyring } from '@htm/service-kit';

/**
 * The one synchronous call jobs makes: asking payments for a $1 checkout session when a job is
 * posted (or paid again). The answer is checked against the contracts schema.
 */
export interface PaymentsClient {
  /**
   * A checkout session for one job and attempt. Throws AppError 409 `already_paid` when payments
   * knows the job is paid, and AppError 503 `payments_unavailable` (logged) for anything else:
   * no answer, an error answer or an answer of the wrong shape.
   */
  createCheckoutSession(body: CreateCheckoutSessionBody): Promise<CreateCheckoutSessionResponse>;
}

/** The transport: an InternalClient (service token, correlation id) or a test stand-in. */
export type PaymentsTransport = Pick<InternalClient, 'post'>;

export function createPaymentsClient(opts: {
  transport: PaymentsTransport;
  logger: Logger;
}): PaymentsClient {
  const { transport, logger } = opts;
  return {
    async createCheckoutSession(body) {
      let answer: unknown;
      try {
        answer = await transport.post('/internal/checkout-sessions', body);
      } catch (err) {
        // Payments knows the job is paid before its JobPaid reached us: the same 409 as decide().
        if (err instanceof AppError && err.code === 'already_paid')
          throw AppError.conflict('This job has already been paid for.', 'already_paid');
        logger.warn(
          { err: (err as Error).message, jobId: body.job_id },
          'checkout session could not be created',
        );
        throw unavailable();
      }
      const parsed = createCheckoutSessionResponseSchema.safeParse(answer);
      if (!parsed.success) {
        logger.warn(
          { err: 'payments answered without a session', jobId: body.job_id },
          'checkout session could not be created',
        );
        throw unavailable();
      }
      return parsed.data;
    },
  };
}

/** Checkout sessions are idempotent per (job, attempt): a call cut by a stopping payments replica is sent again. */
export function paymentsTransport(opts: {
  baseUrl: string;
  keys: ServiceKeyring;
  timeoutMs: number;
}): InternalClient {
  return new InternalClient({
    baseUrl: opts.baseUrl,
    keys: opts.keys,
    timeoutMs: opts.timeoutMs,
    retryConnectionErrors: true,
  });
}

function unavailable(): AppError {
  return new AppError('unavailable', 'Payments are not answering right now.', {
    code: 'payments_unavailable',
  });
}
