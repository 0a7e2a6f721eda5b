import { assertRoutesCatalogued } from '@htm/service-kit';
import type { Express } from 'express';
import cookieParser from 'cookie-parser';
import type { IdentityDeps } from './deps.js';
import { adminTesterRoutes } from './http/admin-testers.routes.js';
import { authRoutes } from './http/auth.routes.js';
import { jwksRoutes } from './http/jwks.routes.js';
import { privacyRoutes } from './http/privacy.routes.js';
import { userRoutes } from './http/users.routes.js';

export type { IdentityDeps };

/** The identity service's routes (health, errors and 404 come from createHttp). */
export function mountIdentity(app: Express, deps: IdentityDeps): void {
  app.use(cookieParser());
  app.use(jwksRoutes(deps));
  app.use(authRoutes(deps));
  app.use(userRoutes(deps));
  app.use(adminTesterRoutes(deps));
  app.use(privacyRoutes(deps));
  // A route without its catalogue entry, or an operation of this service without its route, stops the start.
  assertRoutesCatalogued(app, 'identity');
}
