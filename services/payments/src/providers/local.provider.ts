import { createHash, randomBytes } from 'node:crypto';
import type { Db, Tx } from '@htm/service-kit';
import {
  cancelLocalSession,
  completeLocalSession,
  createLocalRefund,
  createLocalTransfer,
  createLocalSession,
  expireLocalSession,
  findLocalSession,
  type LocalSessionRow,
} from '../db/local-sessions.repository.js';
import type {
  ConnectedAccount,
  CreateCheckoutInput,
  PaymentProvider,
  ProviderCheckoutSession,
  RefundInput,
  TransferInput,
} from './provider.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random id like Stripe's: prefix + 24 base62 characters (~143 bits). */
export function randomId(prefix: string, length = 24): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; out.length < length && i < bytes.length; i++) {
    if (bytes[i] < 248) out += ALPHABET[bytes[i] % 62];
  }
  return `${prefix}${out}`;
}

export type { LocalSessionRow };

/** The Stripe checkout session object the local provider shows in its webhook events. */
export function localSessionObject(s: LocalSessionRow) {
  return {
    id: s.id,
    object: 'checkout.session',
    amount_subtotal: s.amountCents,
    amount_total: s.amountCents,
    cancel_url: s.cancelUrl,
    client_reference_id: s.jobId,
    created: Math.floor(s.createdAt.getTime() / 1000),
    currency: s.currency,
    livemode: false,
    metadata: {
      job_id: s.jobId,
      poster_id: s.posterId,
      ...(s.cancelledByUser ? { cancelled_by: s.cancelledByUser } : {}),
    },
    mode: 'payment',
    payment_status: s.paymentStatus,
    status: s.status,
    success_url: s.successUrl,
    url: null,
  };
}

/**
 * The embedded provider (PAYMENTS_PROVIDER=local): plays Stripe's part with its own tables,
 * so the rest of the service (webhook, status reconciliation, payouts) is the same code.
 * No money moves.
 */
export class LocalProvider implements PaymentProvider {
  readonly kind = 'local' as const;

  constructor(
    private readonly db: Db,
    readonly webhookSecret: string,
  ) {}

  async createCheckoutSession(input: CreateCheckoutInput): Promise<{ id: string; url: string }> {
    const row = await createLocalSession(this.db, {
      id: randomId('cs_local_'),
      idempotencyKey: input.idempotencyKey,
      jobId: input.jobId,
      posterId: input.posterId,
      title: input.title,
      amountCents: input.amountCents,
      quantity: input.quantity,
      currency: input.currency,
      successUrl: input.successUrl,
      cancelUrl: input.cancelUrl,
    });
    return { id: row.id, url: `/api/payments/local/checkout/${row.id}` };
  }

  async findSession(id: string, db: Db | Tx = this.db): Promise<LocalSessionRow | undefined> {
    return findLocalSession(db, id);
  }

  async retrieveCheckoutSession(id: string): Promise<ProviderCheckoutSession> {
    const row = await this.findSession(id);
    if (!row) throw new Error(`No such checkout session: ${id}`);
    return {
      id: row.id,
      url: `/api/payments/local/checkout/${row.id}`,
      status: row.status as ProviderCheckoutSession['status'],
      paymentStatus: row.paymentStatus as ProviderCheckoutSession['paymentStatus'],
      jobId: row.jobId,
      amountTotal: row.amountCents,
      currency: row.currency,
      cancelledByUser: row.cancelledByUser === 'poster',
    };
  }

  /** Like Stripe's expire: an open session closes and can no longer be paid; others are left as they are. */
  async expireCheckoutSession(id: string): Promise<ProviderCheckoutSession> {
    await expireLocalSession(this.db, id);
    return this.retrieveCheckoutSession(id);
  }

  /**
   * A simulated refund of a paid session, idempotent by key (the same key answers the same
   * refund), stored through `tx`: in a caller's transaction it commits with the caller's ledger
   * entry or not at all.
   */
  async refundCheckoutSession(tx: Tx | Db, input: RefundInput): Promise<{ id: string }> {
    const session = await this.findSession(input.sessionId, tx);
    if (!session || session.paymentStatus !== 'paid')
      throw new Error(`Checkout session ${input.sessionId} has no payment to refund`);
    const id = await createLocalRefund(tx, {
      id: randomId('re_local_'),
      idempotencyKey: input.idempotencyKey,
      sessionId: input.sessionId,
      amountCents: input.amountCents,
      reason: input.metadata.reason ?? null,
    });
    return { id };
  }

  /** The payer clicked Pay: the session completes (only an open one). */
  async complete(id: string): Promise<LocalSessionRow | undefined> {
    return completeLocalSession(this.db, id);
  }

  /** The payer clicked Cancel: the session expires at once (only an open one). */
  async cancel(id: string): Promise<LocalSessionRow | undefined> {
    return cancelLocalSession(this.db, id);
  }

  async createConnectedAccount(): Promise<ConnectedAccount> {
    return { accountId: randomId('acct_local_', 16), ready: true };
  }

  async onboardingLink(): Promise<string | null> {
    return null;
  }

  async accountReady(): Promise<boolean> {
    return true;
  }

  /** Local idempotency keys never expire, so a retry always finds its transfer by key. */
  async findTransfer(): Promise<{ id: string } | null> {
    return null;
  }

  /** A simulated transfer, idempotent by key: the same key always answers the same transfer. */
  async transfer(input: TransferInput): Promise<{ id: string }> {
    const id = `tr_local_${createHash('sha256').update(input.idempotencyKey).digest('hex').slice(0, 24)}`;
    await createLocalTransfer(this.db, {
      id,
      idempotencyKey: input.idempotencyKey,
      accountId: input.accountId,
      amountCents: input.amountCents,
      transferGroup: input.transferGroup,
    });
    return { id };
  }
}
