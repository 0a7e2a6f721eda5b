import { Router } from 'express';
import { callerOf } from '@htm/service-kit';
import type { PaymentsDeps } from '../deps.js';
import { connectPayoutAccount, getPayoutAccount } from '../domain/payout-account.js';
import { runPayouts } from '../domain/run-payouts.js';

export function payoutRoutes(deps: PaymentsDeps): Router {
  const r = Router();
  const { authenticate, requireRole } = deps.auth;

  r.get('/api/tester/payout-account', authenticate, requireRole('tester'), async (req, res) => {
    res.set('cache-control', 'no-store').json(await getPayoutAccount(deps, callerOf(req)));
  });

  r.post('/api/tester/payout-account', authenticate, requireRole('tester'), async (req, res) => {
    res.json(await connectPayoutAccount(deps, callerOf(req)));
  });

  r.post('/api/admin/payouts/run', authenticate, requireRole('admin'), async (req, res) => {
    res.json(await runPayouts(deps, callerOf(req).id));
  });

  return r;
}
