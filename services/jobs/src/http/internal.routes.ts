import { Router } from 'express';
import { requireServiceToken } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import { clearJobs } from '../domain/clear-jobs.js';

/** /internal/* routes: service tokens only, never proxied by the gateway. */
export function internalRoutes(deps: JobsDeps): Router {
  const r = Router();
  r.post('/internal/jobs/clear', requireServiceToken(deps.serviceKeys, ['admin']), async (_req, res) => {
    res.json(await clearJobs(deps));
  });
  return r;
}
