import { Router } from 'express';
import { leadBodySchema } from '@htm/contracts';
import { catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { AdminDeps } from '../deps.js';
import { recordLead } from '../domain/record-lead.js';

export function leadRoutes(deps: AdminDeps): Router {
  const r = catalogueRoutes('admin');
  r.post('/api/leads', async (req, res) => {
    const body = parseOrThrow(leadBodySchema, req.body);
    await recordLead(deps, body);
    res.status(201).json({ success: true });
  });
  return r.router;
}
