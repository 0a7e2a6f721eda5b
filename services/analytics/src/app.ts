import type { Express } from 'express';
import type { AnalyticsDeps } from './deps.js';
import { insightsRoutes } from './http/insights.routes.js';

export type { AnalyticsDeps };

/** The analytics service's routes (health, errors and 404 come from createHttp). */
export function mountAnalytics(app: Express, deps: AnalyticsDeps): void {
  app.use(insightsRoutes(deps));
}
