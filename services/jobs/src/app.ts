import type { Express } from 'express';
import type { JobsDeps } from './deps.js';
import { jobsRoutes } from './http/jobs.routes.js';
import { filesRoutes } from './http/files.routes.js';
import { internalRoutes } from './http/internal.routes.js';

export type { JobsDeps };

/** The jobs service's routes (health, errors and 404 come from createHttp). */
export function mountJobs(app: Express, deps: JobsDeps): void {
  app.use(jobsRoutes(deps));
  app.use(filesRoutes(deps));
  app.use(internalRoutes(deps));
}
