import { Router } from 'express';
import { requireServiceToken, serviceTokenSecrets } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import { clearJobs } from '../domain/clear-jobs.js';

/** /internal/* routes: service tokens only, never proxied by the gateway. */
export function internalRoutes(deps: JobsDeps): Router {
  const r = Router();
  r.post('/internal/jobs/clear', requireServiceToken(serviceTokenSecrets(deps.config), ['admin']), async (_req, res) => {
    res.json(await clearJobs(deps));
  });
  return r;
}
