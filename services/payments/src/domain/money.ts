/** Money rules: integer cents inside, dollars only at the HTTP edge. */
import {
  PLATFORM_FEE_CENTS,
  PRICE_PER_TEST_CENTS,
  TESTER_SHARE_CENTS,
} from '@htm/contracts/marketplace';

/** The split is the marketplace rules module's (packages/contracts/src/marketplace.ts). */
export const JOB_PRICE_CENTS = PRICE_PER_TEST_CENTS;
export { PLATFORM_FEE_CENTS, TESTER_SHARE_CENTS };

/** Cents (integer) to dollars for JSON: 246 -> 2.46. */
export function centsToDollars(cents: number | string | bigint | null | undefined): number {
  const n = Number(cents ?? 0);
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer amount of cents: ${String(cents)}`);
  return n / 100;
}

/**
 * Whether a provider's paid amount is what the checkout session asked for: the same cents and
 * the same currency (compared case-insensitively). Anything else is booked as a mismatch, never
 * as a payment.
 */
export function paidAsAsked(
  asked: { amountCents: number; currency: string },
  paid: { amountTotal: number | null; currency: string | null },
): boolean {
  return (
    paid.amountTotal === asked.amountCents &&
    (paid.currency ?? '').toLowerCase() === asked.currency.toLowerCase()
  );
}
