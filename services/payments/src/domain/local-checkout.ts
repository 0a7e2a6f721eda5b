import type { PaymentsDeps } from '../deps.js';
import { localSessionsOutOfStep } from '../db/local-sessions.repository.js';
import { reconcileSession } from './apply-provider-event.js';

/**
 * The local provider's webhook is sent right after its payment commits; a crash in between
 * would leave the job unpaid (hidden from testers) until someone polls its status. At start-up
 * every local checkout the provider side settled but we did not is applied through the same
 * idempotent path as a lost Stripe webhook. Returns how many were brought in line.
 */
export async function reconcileLocalCheckouts(deps: PaymentsDeps): Promise<number> {
  let n = 0;
  for (const id of await localSessionsOutOfStep(deps.db)) {
    if (await reconcileSession(deps, await deps.provider.retrieveCheckoutSession(id))) n++;
  }
  if (n)
    deps.logger.info(
      { sessions: n },
      'local checkouts settled at start-up (their webhook was never delivered)',
    );
  return n;
}
