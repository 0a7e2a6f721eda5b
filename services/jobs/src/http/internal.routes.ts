import { Router } from 'express';
import { internalClearBodySchema as clearBodySchema } from '@htm/contracts';
import { catalogueRoutes, parseOrThrow, requireServiceToken } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import { clearJobs, previewClear } from '../domain/clear-jobs.js';

/** /internal/* routes: service tokens only, never proxied by the gateway. */
export function internalRoutes(deps: JobsDeps): Router {
  const r = catalogueRoutes('jobs');
  const adminOnly = requireServiceToken(deps.serviceKeys, ['admin']);
  r.get('/internal/jobs/clear-preview', adminOnly, async (_req, res) => {
    res.json(await previewClear(deps));
  });
  r.post('/internal/jobs/clear', adminOnly, async (req, res) => {
    const body = parseOrThrow(clearBodySchema, req.body ?? {});
    res.json(await clearJobs(deps, body.fingerprint, body.actor_id));
  });
  return r.router;
}
