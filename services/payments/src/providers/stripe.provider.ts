import Stripe from 'stripe';
import type { StripePaymentsConfig } from '../config.js';
import { absoluteWebBase } from '../config.js';
import {
  TransferRefusedError,
  type ConnectedAccount,
  type CreateCheckoutInput,
  type PaymentProvider,
  type ProviderCheckoutSession,
  type ProviderEvent,
  type RefundInput,
  type TransferInput,
} from './provider.js';

/** Session fields the service relies on, from a Stripe checkout session object. */
export function toProviderSession(s: Stripe.Checkout.Session): ProviderCheckoutSession {
  return {
    id: s.id,
    url: s.url ?? null,
    status:
      s.status === 'open' || s.status === 'complete' || s.status === 'expired'
        ? (s.status as 'open' | 'complete' | 'expired')
        : null,
    paymentStatus:
      s.payment_status === 'paid'
        ? 'paid'
        : s.payment_status === 'no_payment_required'
          ? 'no_payment_required'
          : 'unpaid',
    jobId: s.metadata?.job_id ?? s.client_reference_id ?? null,
    amountTotal: s.amount_total ?? null,
    currency: s.currency ?? null,
    cancelledByUser: s.metadata?.cancelled_by === 'poster',
  };
}

/** Signatures older than this (seconds) are refused, as Stripe recommends. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * The event a webhook body carries, once its `Stripe-Signature` (Stripe's, or the local
 * provider's, signed the same way) checks out on the raw bytes; throws `WebhookSignatureError`
 * otherwise, and `WebhookPayloadError` for a signed body that is not an event.
 */
export function verifyWebhook(
  rawBody: Buffer | string,
  signature: string,
  secret: string,
): ProviderEvent {
  let event: Stripe.Event;
  try {
    event = Stripe.webhooks.constructEvent(rawBody, signature, secret, WEBHOOK_TOLERANCE_SECONDS);
  } catch (err) {
    throw new WebhookSignatureError((err as Error).message);
  }
  if (typeof event?.id !== 'string' || typeof event.type !== 'string')
    throw new WebhookPayloadError('not a provider event');
  return toProviderEvent(event);
}

export class WebhookSignatureError extends Error {}
export class WebhookPayloadError extends Error {}

/** A verified Stripe event (or the local provider's, signed the same way) as the domain applies it. */
export function toProviderEvent(event: Stripe.Event): ProviderEvent {
  const object = event.data?.object as { id?: string; object?: string } | undefined;
  return {
    id: event.id,
    type: event.type,
    objectId: typeof object?.id === 'string' ? object.id : null,
    session:
      object?.object === 'checkout.session'
        ? toProviderSession(object as Stripe.Checkout.Session)
        : null,
  };
}

/** Stripe through the official SDK (Checkout for posters, Connect Express + transfers for testers). */
export class StripeProvider implements PaymentProvider {
  readonly kind = 'stripe' as const;
  readonly webhookSecret: string;
  readonly stripe: Stripe;

  constructor(private readonly cfg: StripePaymentsConfig) {
    this.webhookSecret = cfg.STRIPE_WEBHOOK_SECRET;
    this.stripe = new Stripe(cfg.STRIPE_SECRET_KEY, {
      host: cfg.STRIPE_API_HOST,
      port: cfg.STRIPE_API_PORT,
      protocol: cfg.STRIPE_API_PROTOCOL,
      maxNetworkRetries: cfg.STRIPE_MAX_NETWORK_RETRIES,
      timeout: 20_000,
      telemetry: false,
      appInfo: { name: 'htm-payments' },
    });
  }

  async createCheckoutSession(input: CreateCheckoutInput): Promise<{ id: string; url: string }> {
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [
          {
            quantity: input.quantity,
            price_data: {
              currency: input.currency,
              unit_amount: input.unitAmountCents,
              product_data: { name: `Website test: ${input.title}`.slice(0, 250) },
            },
          },
        ],
        client_reference_id: input.jobId,
        metadata: {
          job_id: input.jobId,
          poster_id: input.posterId,
          attempt: String(input.attempt),
        },
        payment_intent_data: {
          metadata: { job_id: input.jobId },
          transfer_group: `job_${input.jobId}`,
        },
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
      },
      { idempotencyKey: input.idempotencyKey },
    );
    if (!session.url) throw new Error('Stripe returned a checkout session without a URL');
    return { id: session.id, url: session.url };
  }

  async retrieveCheckoutSession(id: string): Promise<ProviderCheckoutSession> {
    return toProviderSession(await this.stripe.checkout.sessions.retrieve(id));
  }

  async expireCheckoutSession(id: string): Promise<ProviderCheckoutSession> {
    try {
      return toProviderSession(await this.stripe.checkout.sessions.expire(id));
    } catch (err) {
      // Stripe refuses to expire a session that is no longer open (paid or already expired):
      // what matters is its current state.
      if (err instanceof Stripe.errors.StripeInvalidRequestError)
        return this.retrieveCheckoutSession(id);
      throw err;
    }
  }

  /** A network call, idempotent by key: nothing of it is in `_tx` (the local provider's records are). */
  async refundCheckoutSession(_tx: unknown, input: RefundInput): Promise<{ id: string }> {
    const session = await this.stripe.checkout.sessions.retrieve(input.sessionId);
    const paymentIntent =
      typeof session.payment_intent === 'string'
        ? session.payment_intent
        : session.payment_intent?.id;
    if (!paymentIntent)
      throw new Error(`Checkout session ${input.sessionId} has no payment intent to refund`);
    const refund = await this.stripe.refunds.create(
      {
        payment_intent: paymentIntent,
        amount: input.amountCents,
        reason: input.reason ?? 'duplicate',
        metadata: input.metadata,
      },
      { idempotencyKey: input.idempotencyKey },
    );
    return { id: refund.id };
  }

  async createConnectedAccount(tester: {
    id: string;
    email: string;
    country: string | null;
  }): Promise<ConnectedAccount> {
    const account = await this.stripe.accounts.create(
      {
        type: 'express',
        email: tester.email || undefined,
        country: tester.country === 'CA' ? 'CA' : 'US',
        capabilities: { transfers: { requested: true } },
        metadata: { tester_id: tester.id },
      },
      { idempotencyKey: `connect-account-${tester.id}` },
    );
    return { accountId: account.id, ready: isReady(account) };
  }

  async onboardingLink(accountId: string): Promise<string | null> {
    const base = absoluteWebBase(this.cfg);
    const link = await this.stripe.accountLinks.create({
      account: accountId,
      type: 'account_onboarding',
      refresh_url: `${base}/?payout_onboarding=refresh`,
      return_url: `${base}/?payout_onboarding=return`,
    });
    return link.url;
  }

  async accountReady(accountId: string): Promise<boolean> {
    return isReady(await this.stripe.accounts.retrieve(accountId));
  }

  async transfer(input: TransferInput): Promise<{ id: string }> {
    try {
      return await this.createTransfer(input);
    } catch (err) {
      // 400/402/404 (invalid request, card/balance errors): Stripe did not transfer. A 409
      // (idempotency conflict), 429, 5xx or a network error leaves the outcome unknown.
      const status = (err as { statusCode?: number }).statusCode;
      // An idempotency error (same key, other parameters) is not a certain refusal.
      if (
        err instanceof Stripe.errors.StripeError &&
        !(err instanceof Stripe.errors.StripeIdempotencyError) &&
        (status === 400 || status === 402 || status === 404)
      )
        throw new TransferRefusedError(err.message);
      throw err;
    }
  }

  findTransfer(input: {
    transferGroup: string;
    metadata: Record<string, string>;
  }): Promise<{ id: string } | null> {
    return findStripeTransfer(this.stripe, input);
  }

  private async createTransfer(input: TransferInput): Promise<{ id: string }> {
    const t = await this.stripe.transfers.create(
      {
        amount: input.amountCents,
        currency: input.currency,
        destination: input.accountId,
        transfer_group: input.transferGroup,
        metadata: input.metadata,
      },
      { idempotencyKey: input.idempotencyKey },
    );
    return { id: t.id };
  }
}

export async function findStripeTransfer(
  stripe: Stripe,
  input: { transferGroup: string; metadata: Record<string, string> },
): Promise<{ id: string } | null> {
  for await (const t of stripe.transfers.list({
    transfer_group: input.transferGroup,
    limit: 100,
  })) {
    if (Object.entries(input.metadata).every(([k, v]) => t.metadata?.[k] === v) && !t.reversed)
      return { id: t.id };
  }
  return null;
}

function isReady(a: Stripe.Account): boolean {
  return (
    a.capabilities?.transfers === 'active' ||
    (a.details_submitted === true && a.payouts_enabled === true)
  );
}
