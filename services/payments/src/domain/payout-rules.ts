/** Pure payout rules (no database, no provider): idempotency keys, retries, earning status. */

/** The idempotency key of an earning's transfer: the same for every retry and re-run. */
export const payoutKey = (earningId: string) => `payout-${earningId}`;

/** The idempotency key of a cash-out's one transfer: the same for every retry and resume. */
export const cashOutKey = (cashOutId: string) => `cash-out-${cashOutId}`;

/** Stripe keeps idempotency keys for at least 24 hours; look transfers up well before that. */
export const KEY_LIFETIME_MS = 20 * 3600_000;

/**
 * An unfinished attempt older than the provider keeps its key (a retry, tries > 1) first looks
 * for a transfer it may already have made.
 */
export function mustLookForTransfer(
  attempt: { tries: number; keyCreatedAt: Date },
  now = Date.now(),
): boolean {
  return attempt.tries > 1 && now - attempt.keyCreatedAt.getTime() > KEY_LIFETIME_MS;
}

/**
 * The key the next attempt uses after a failure: a certain refusal (the transfer did not
 * happen) may retry with a fresh key; an unknown outcome must reuse the one it has.
 */
export function nextPayoutKey(
  earningId: string,
  attempt: { tries: number; idempotencyKey: string },
  refused: boolean,
): string {
  return refused ? `${payoutKey(earningId)}-r${attempt.tries}` : attempt.idempotencyKey;
}

/** How a tester's earning is shown: paid once it has a payout entry, else how it was accepted. */
export function earningStatus(row: {
  payout_id: string | null;
  accepted_by: string | null;
}): 'paid' | 'auto_accepted' | 'accepted' {
  return row.payout_id ? 'paid' : row.accepted_by === 'auto' ? 'auto_accepted' : 'accepted';
}
