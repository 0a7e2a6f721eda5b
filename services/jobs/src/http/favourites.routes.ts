import { Router } from 'express';
import { favouriteBodySchema } from '@htm/contracts';
import { callerOf, catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import { addFavourite, myFavourites, removeFavourite } from '../domain/favourites.js';

/** Favourite testers (#34): a poster favourites testers whose work they accepted, lists and removes them. */
export function favouritesRoutes(deps: JobsDeps): Router {
  const r = catalogueRoutes('jobs');
  const { authenticate, requireRole } = deps.auth;

  r.post('/api/favourites', authenticate, requireRole('poster'), async (req, res) => {
    const body = parseOrThrow(favouriteBodySchema, req.body ?? {});
    const { favourite, created } = await addFavourite(deps, callerOf(req), body.tester_id);
    res.status(created ? 201 : 200).json({ favourite });
  });

  r.get('/api/favourites', authenticate, requireRole('poster'), async (req, res) => {
    res
      .set('cache-control', 'no-store')
      .json({ favourites: await myFavourites(deps, callerOf(req)) });
  });

  r.delete('/api/favourites/{tester_id}', authenticate, requireRole('poster'), async (req, res) => {
    await removeFavourite(deps, callerOf(req), String(req.params.tester_id));
    res.status(204).end();
  });

  return r.router;
}
