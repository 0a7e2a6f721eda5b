import { AppError, type Caller } from '@htm/service-kit';
import type { PayoutAccountResponse } from '@htm/contracts';
import type { PaymentsDeps } from '../deps.js';
import {
  findPayoutAccount,
  insertPayoutAccount,
  markPayoutAccountReady,
  type PayoutAccountRow,
} from '../db/payout.repository.js';

type AccountRow = PayoutAccountRow;

function findAccount(deps: PaymentsDeps, testerId: string): Promise<AccountRow | undefined> {
  return findPayoutAccount(deps.db, testerId);
}

/** Re-reads a not-yet-ready account at the provider (Stripe onboarding finishes outside our app). */
export async function refreshAccount(deps: PaymentsDeps, row: AccountRow): Promise<AccountRow> {
  if (row.status === 'ready') return row;
  try {
    if (
      !(await deps.lookups.get(`account:${row.accountId}`, () =>
        deps.provider.accountReady(row.accountId),
      ))
    )
      return row;
  } catch (err) {
    deps.logger.warn(
      { err: (err as Error).message, accountId: row.accountId },
      'could not read a connected account',
    );
    return row;
  }
  const updated = await markPayoutAccountReady(deps.db, row.testerId);
  return updated ?? row;
}

/** GET /api/tester/payout-account */
export async function getPayoutAccount(
  deps: PaymentsDeps,
  caller: Caller,
): Promise<PayoutAccountResponse> {
  const row = await findAccount(deps, caller.id);
  if (!row) return { connected: false, account_id: null, onboarding_url: null };
  const fresh = await refreshAccount(deps, row);
  return { connected: fresh.status === 'ready', account_id: fresh.accountId, onboarding_url: null };
}

/**
 * POST /api/tester/payout-account: creates the tester's connected account once (Stripe Connect
 * Express, or a simulated account that is ready at once in local mode) and, while onboarding
 * is unfinished, answers a fresh onboarding link.
 */
export async function connectPayoutAccount(
  deps: PaymentsDeps,
  caller: Caller,
): Promise<PayoutAccountResponse> {
  // Only an approved tester can be paid: nobody else gets a provider account made for them.
  if (!caller.approved)
    throw AppError.forbidden('Only approved testers can set up payouts.', 'tester_not_approved');
  let row = await findAccount(deps, caller.id);
  if (!row) {
    let created;
    try {
      created = await deps.provider.createConnectedAccount({
        id: caller.id,
        email: caller.email,
        country: caller.country,
      });
    } catch (err) {
      deps.logger.error({ err }, 'payment provider refused to create a connected account');
      throw new AppError(
        'bad_gateway',
        'The payment provider is not answering. Please try again.',
        { code: 'provider_unavailable' },
      );
    }
    await insertPayoutAccount(deps.db, {
      testerId: caller.id,
      provider: deps.provider.kind,
      accountId: created.accountId,
      ready: created.ready,
    });
    row = (await findAccount(deps, caller.id))!;
  }
  row = await refreshAccount(deps, row);
  if (row.status === 'ready')
    return { connected: true, account_id: row.accountId, onboarding_url: null };
  let link: string | null;
  try {
    link = await deps.provider.onboardingLink(row.accountId);
  } catch (err) {
    deps.logger.error({ err }, 'payment provider refused an onboarding link');
    throw new AppError('bad_gateway', 'The payment provider is not answering. Please try again.', {
      code: 'provider_unavailable',
    });
  }
  return { connected: false, account_id: row.accountId, onboarding_url: link };
}
