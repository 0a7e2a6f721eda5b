/** What the payments service needs from a payment provider (Stripe, or the local stand-in). */
import type { Db, Tx } from '@htm/service-kit';

export { JOB_PRICE_CENTS } from '../domain/money.js';
export const JOB_CURRENCY = 'usd';

export interface CreateCheckoutInput {
  jobId: string;
  posterId: string;
  title: string;
  attempt: number;
  /** What one unit costs, and how many (a pack: one unit per tester); amountCents = unit × quantity. */
  unitAmountCents: number;
  quantity: number;
  amountCents: number;
  currency: string;
  successUrl: string;
  cancelUrl: string;
  /** Same job and attempt -> same key -> the provider answers the same session. */
  idempotencyKey: string;
}

/** A checkout session as the provider sees it (Stripe's vocabulary). */
export interface ProviderCheckoutSession {
  id: string;
  url: string | null;
  status: 'open' | 'complete' | 'expired' | null;
  paymentStatus: 'paid' | 'unpaid' | 'no_payment_required';
  jobId: string | null;
  amountTotal: number | null;
  currency: string | null;
  /** The payer cancelled (local provider's Cancel button) rather than letting it expire. */
  cancelledByUser: boolean;
}

/**
 * A verified provider event (a webhook), in the provider-neutral shape the domain applies:
 * its id and type, the id of the object it is about, and that object when it is a checkout
 * session (null for any other object).
 */
export interface ProviderEvent {
  id: string;
  type: string;
  objectId: string | null;
  session: ProviderCheckoutSession | null;
}

export interface RefundInput {
  /** The paid checkout session whose payment is given back. */
  sessionId: string;
  amountCents: number;
  /** One key per session: retries reuse it, so the provider refunds once. */
  idempotencyKey: string;
  /** Why (Stripe's refund reason); default duplicate. */
  reason?: 'duplicate' | 'requested_by_customer';
  metadata: Record<string, string>;
}

export interface TransferInput {
  accountId: string;
  amountCents: number;
  currency: string;
  /** One transfer group per job. */
  transferGroup: string;
  /** One key per earning entry: retries and re-runs reuse it, so the provider pays once. */
  idempotencyKey: string;
  metadata: Record<string, string>;
}

export interface ConnectedAccount {
  accountId: string;
  /** Transfers can be sent to it now. */
  ready: boolean;
}

export interface PaymentProvider {
  readonly kind: 'local' | 'stripe';
  /** Secret the webhook signature is checked with. */
  readonly webhookSecret: string;
  createCheckoutSession(input: CreateCheckoutInput): Promise<{ id: string; url: string }>;
  retrieveCheckoutSession(id: string): Promise<ProviderCheckoutSession>;
  /** Closes an open session so it can no longer be paid (Stripe: checkout.sessions.expire). */
  expireCheckoutSession(id: string): Promise<ProviderCheckoutSession>;
  /**
   * Gives back a paid session's payment (Stripe: a refund of its payment intent). `tx` first, as
   * everything a handler's transaction runs takes it: a provider keeping its records in this
   * service's database (the local one) writes them there, so they commit or roll back with the
   * caller's ledger entry (on PGlite, one connection, a second handle would wait for the open
   * transaction for good); outside a transaction the caller passes its database. Stripe's refund
   * is a call over the network, made once per idempotency key.
   */
  refundCheckoutSession(tx: Tx | Db, input: RefundInput): Promise<{ id: string }>;
  createConnectedAccount(tester: {
    id: string;
    email: string;
    country: string | null;
  }): Promise<ConnectedAccount>;
  /** A fresh onboarding link (Stripe Connect Express); null when none is needed. */
  onboardingLink(accountId: string): Promise<string | null>;
  accountReady(accountId: string): Promise<boolean>;
  transfer(input: TransferInput): Promise<{ id: string }>;
  /**
   * A transfer already made for an earning or a cash-out (looked up by transfer group and the
   * metadata it was sent with), for retries older than the provider keeps idempotency keys
   * (Stripe: 24 h). Null when none.
   */
  findTransfer(input: {
    transferGroup: string;
    metadata: Record<string, string>;
  }): Promise<{ id: string } | null>;
}

/**
 * The provider definitively refused a transfer (it did not happen, e.g. insufficient balance or
 * an account that cannot receive transfers). Unlike a timeout or a 5xx, this outcome is
 * certain, so the next run may use a fresh idempotency key.
 */
export class TransferRefusedError extends Error {
  override name = 'TransferRefusedError';
}
