import { Router } from 'express';
import { callerOf, catalogueRoutes } from '@htm/service-kit';
import type { PaymentsDeps } from '../deps.js';
import { getFinancialOverview, getTesterEarnings } from '../domain/earnings.js';

export function earningsRoutes(deps: PaymentsDeps): Router {
  const r = catalogueRoutes('payments');
  const { authenticate, requireRole } = deps.auth;

  r.get('/api/tester/my-earnings', authenticate, requireRole('tester'), async (req, res) => {
    res.set('cache-control', 'no-store').json(await getTesterEarnings(deps, callerOf(req).id));
  });

  r.get('/api/admin/financial-overview', authenticate, requireRole('admin'), async (_req, res) => {
    res.set('cache-control', 'no-store').json(await getFinancialOverview(deps));
  });

  return r.router;
}
