import type { Express } from 'express';
import { assertRoutesCatalogued } from '@htm/service-kit';
import type { SiteCheckDeps } from './deps.js';
import { siteCheckRoutes } from './http/site-check.routes.js';

export type { SiteCheckDeps };

/** The site-check service's routes (health, errors and 404 come from createHttp). */
export function mountSiteCheck(app: Express, deps: SiteCheckDeps): void {
  app.use(siteCheckRoutes(deps));
  // A route without its catalogue entry, or an operation of this service without its route, stops the start.
  assertRoutesCatalogued(app, 'site-check');
}
