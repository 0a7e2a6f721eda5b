import { Router } from 'express';
import {
  adminAppealsQuerySchema,
  appealBodySchema,
  appealDecisionBodySchema,
} from '@htm/contracts';
import { callerOf, catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import { decideAppeal, fileAppeal, listAppealsFor, listMyMarks } from '../domain/appeals.js';

/** Reasons and one appeal (#34): testers appeal a strike or a low rating; the admin decides. */
export function appealsRoutes(deps: JobsDeps): Router {
  const r = catalogueRoutes('jobs');
  const { authenticate, requireRole } = deps.auth;

  r.post('/api/appeals', authenticate, requireRole('tester'), async (req, res) => {
    const body = parseOrThrow(appealBodySchema, req.body ?? {});
    res.status(201).json({ appeal: await fileAppeal(deps, callerOf(req), body) });
  });

  r.get('/api/appeals', authenticate, requireRole('tester'), async (req, res) => {
    res.set('cache-control', 'no-store').json({ items: await listMyMarks(deps, callerOf(req)) });
  });

  r.get('/api/admin/appeals', authenticate, requireRole('admin'), async (req, res) => {
    const q = parseOrThrow(adminAppealsQuerySchema, req.query ?? {});
    res.set('cache-control', 'no-store').json({ appeals: await listAppealsFor(deps, q.status) });
  });

  r.post(
    '/api/admin/appeals/{id}/decision',
    authenticate,
    requireRole('admin'),
    async (req, res) => {
      const body = parseOrThrow(appealDecisionBodySchema, req.body ?? {});
      res.json({ appeal: await decideAppeal(deps, callerOf(req), String(req.params.id), body) });
    },
  );

  return r.router;
}
