import type { Express } from 'express';
import type { AnalyticsDeps } from './deps.js';
import { insightsRoutes } from './http/insights.routes.js';
import { assertRoutesCatalogued, privacyKeyring, privacyRoutes } from '@htm/service-kit';
import { readAnalyticsPart } from './db/privacy.repository.js';

export type { AnalyticsDeps };

/** The analytics service's routes (health, errors and 404 come from createHttp). */
export function mountAnalytics(app: Express, deps: AnalyticsDeps): void {
  app.use(insightsRoutes(deps));
  app.use(
    privacyRoutes(privacyKeyring('analytics', deps.config), {
      part: async (userId) => ({ data: await readAnalyticsPart(deps.db, userId) }),
      handled: (id) => deps.events.handled(id),
    }),
  );
  // A route without its catalogue entry, or an operation of this service without its route, stops the start.
  assertRoutesCatalogued(app, 'analytics');
}
