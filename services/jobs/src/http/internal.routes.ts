import { Router } from 'express';
import { z } from 'zod';
import { parseOrThrow, requireServiceToken } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import { clearJobs, previewClear } from '../domain/clear-jobs.js';

const clearBodySchema = z.object({
  fingerprint: z.string({ error: 'The preview fingerprint is required' }).min(1, 'The preview fingerprint is required'),
  actor_id: z.string().min(1).optional(),
});

/** /internal/* routes: service tokens only, never proxied by the gateway. */
export function internalRoutes(deps: JobsDeps): Router {
  const r = Router();
  const adminOnly = requireServiceToken(deps.serviceKeys, ['admin']);
  r.get('/internal/jobs/clear-preview', adminOnly, async (_req, res) => {
    res.json(await previewClear(deps));
  });
  r.post('/internal/jobs/clear', adminOnly, async (req, res) => {
    const body = parseOrThrow(clearBodySchema, req.body ?? {});
    res.json(await clearJobs(deps, body.fingerprint, body.actor_id));
  });
  return r;
}
