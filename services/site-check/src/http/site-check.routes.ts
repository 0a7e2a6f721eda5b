import type { Router } from 'express';
import { callerOf, catalogueRoutes } from '@htm/service-kit';
import type { SiteCheckDeps } from '../deps.js';
import { readSiteCheck } from '../domain/read-site-check.js';

export function siteCheckRoutes(deps: SiteCheckDeps): Router {
  const r = catalogueRoutes('site-check');
  const { authenticate, requireRole } = deps.auth;

  r.get(
    '/api/jobs/{id}/site-check',
    authenticate,
    requireRole('poster', 'tester', 'admin'),
    async (req, res) => {
      const view = await readSiteCheck(deps, callerOf(req), String(req.params.id ?? ''));
      res.set('cache-control', 'private, no-store').json(view);
    },
  );

  return r.router;
}
