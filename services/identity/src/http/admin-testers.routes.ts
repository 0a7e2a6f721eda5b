import { Router } from 'express';
import { adminTestersQuerySchema, approveTesterBodySchema } from '@htm/contracts';
import { callerOf, catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { IdentityDeps } from '../deps.js';
import { toTesterDto } from './user.view.js';
import { listTesters, setTesterApproval } from '../domain/users.js';

export function adminTesterRoutes(deps: IdentityDeps): Router {
  const r = catalogueRoutes('identity');
  const adminOnly = [deps.auth.authenticate, deps.auth.requireRole('admin')];

  r.get('/api/admin/testers', ...adminOnly, async (req, res) => {
    const q = parseOrThrow(adminTestersQuerySchema, req.query);
    res.json({
      testers: (await listTesters(deps, { approvedOnly: false, ...q })).map(toTesterDto),
    });
  });

  r.get('/api/admin/available-testers', ...adminOnly, async (_req, res) => {
    res.json({ testers: (await listTesters(deps, { approvedOnly: true })).map(toTesterDto) });
  });

  r.patch('/api/admin/approve-tester/{id}', ...adminOnly, async (req, res) => {
    const body = parseOrThrow(approveTesterBodySchema, req.body ?? {});
    const tester = await setTesterApproval(deps, String(req.params.id), body, callerOf(req).id);
    res.json({ tester: toTesterDto(tester) });
  });

  return r.router;
}
