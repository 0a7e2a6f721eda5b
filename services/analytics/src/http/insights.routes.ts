import { Router } from 'express';
import { insightsQuerySchema } from '@htm/contracts';
import { catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { AnalyticsDeps } from '../deps.js';
import { getInsights } from '../domain/insights.js';
import { getPublicProof } from '../domain/proof.js';

export function insightsRoutes(deps: AnalyticsDeps): Router {
  const r = catalogueRoutes('analytics');
  const { authenticate, requireRole } = deps.auth;

  r.get('/api/admin/insights', authenticate, requireRole('admin'), async (req, res) => {
    const q = parseOrThrow(insightsQuerySchema, req.query);
    res.set('cache-control', 'no-store').json(await getInsights(deps.db, q));
  });

  // Public: figures anyone may read on the landing page; a minute of caching spares the database.
  r.get('/api/public/proof', async (_req, res) => {
    res.set('cache-control', 'public, max-age=60').json(await getPublicProof(deps.db));
  });

  return r.router;
}
