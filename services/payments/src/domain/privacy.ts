import type { EventEnvelope } from '@htm/events';
import type { PrivacyAnswers } from '@htm/service-kit';
import type { Tx } from '@htm/service-kit/db';
import type { PaymentsDeps } from '../deps.js';
import { erasePaymentsUser, owedTo, readPaymentsPart } from '../db/privacy.repository.js';

/** The payments service's answers to identity's /internal/privacy calls ("Your data, your call"). */
export function paymentsPrivacyAnswers(deps: PaymentsDeps): PrivacyAnswers {
  return {
    part: async (userId) => ({ data: await readPaymentsPart(deps.db, userId) }),
    blockers: async (userId) => {
      const owed = await owedTo(deps.db, userId);
      if (owed.pendingCents <= 0 || owed.payable) return [];
      const dollars = (owed.pendingCents / 100).toFixed(2);
      return [
        `You are owed $${dollars} that cannot be paid yet: connect a payout account (Earnings) and cash out first, so the money reaches you.`,
      ];
    },
    handled: (eventId) => deps.events.handled(eventId),
  };
}

/** UserDeleted: the person leaves the money records, the records stay (the ledger sums do not change). */
export async function eraseUserInPayments(
  deps: Pick<PaymentsDeps, 'logger'>,
  e: EventEnvelope<'UserDeleted'>,
  tx: Tx,
): Promise<void> {
  await erasePaymentsUser(tx, e.data);
  deps.logger.info({ userId: e.data.userId }, 'user anonymised in payments (ledger kept)');
}
