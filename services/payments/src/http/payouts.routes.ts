import { Router } from 'express';
import { callerOf, catalogueRoutes, idempotency } from '@htm/service-kit';
import type { PaymentsDeps } from '../deps.js';
import { connectPayoutAccount, getPayoutAccount } from '../domain/payout-account.js';
import { runPayouts } from '../domain/run-payouts.js';
import { cashOut } from '../domain/cash-out.js';

export function payoutRoutes(deps: PaymentsDeps): Router {
  const r = catalogueRoutes('payments');
  const { authenticate, requireRole } = deps.auth;

  r.get('/api/tester/payout-account', authenticate, requireRole('tester'), async (req, res) => {
    res.set('cache-control', 'no-store').json(await getPayoutAccount(deps, callerOf(req)));
  });

  r.post('/api/tester/payout-account', authenticate, requireRole('tester'), async (req, res) => {
    res.json(await connectPayoutAccount(deps, callerOf(req)));
  });

  // A repeat with the same Idempotency-Key answers the first answer (a retry after a lost reply).
  const once = idempotency({
    query: (text, params) => deps.dbHandle.query(text, params),
    schema: 'payments',
    logger: deps.logger,
  });
  r.post('/api/tester/cash-out', authenticate, requireRole('tester'), once, async (req, res) => {
    res.status(202).json(await cashOut(deps, callerOf(req)));
  });

  r.post('/api/admin/payouts/run', authenticate, requireRole('admin'), async (req, res) => {
    res.json(await runPayouts(deps, callerOf(req).id));
  });

  return r.router;
}
