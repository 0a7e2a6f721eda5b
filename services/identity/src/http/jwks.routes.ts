import { catalogueRoutes } from '@htm/service-kit';
import { Router } from 'express';
import type { IdentityDeps } from '../deps.js';

/** GET /internal/jwks: the public ES256 keys (current and recently retired) other services verify with. */
export function jwksRoutes(deps: IdentityDeps): Router {
  const r = catalogueRoutes('identity');
  r.get('/internal/jwks', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json(deps.keys.jwks());
  });
  return r.router;
}
