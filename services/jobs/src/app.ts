import type { Express } from 'express';
import type { JobsDeps } from './deps.js';
import { jobsRoutes } from './http/jobs.routes.js';
import { reviewRoutes } from './http/review.routes.js';
import { filesRoutes } from './http/files.routes.js';
import { internalRoutes } from './http/internal.routes.js';
import { recordingsRoutes } from './http/recordings.routes.js';
import { shareRoutes } from './http/share.routes.js';
import { webhooksRoutes } from './http/webhooks.routes.js';
import { trackersRoutes } from './http/trackers.routes.js';
import { assertRoutesCatalogued, privacyKeyring, privacyRoutes } from '@htm/service-kit';
import { jobsPrivacyAnswers } from './domain/privacy.js';
import { appealsRoutes } from './http/appeals.routes.js';
import { favouritesRoutes } from './http/favourites.routes.js';

export type { JobsDeps };

/** The jobs service's routes (health, errors and 404 come from createHttp). */
export function mountJobs(app: Express, deps: JobsDeps): void {
  // A write through this process empties the read cache when it ends (other processes' writes
  // reach it through the database's notifications): all of it, unless the route named the one
  // table it changes (res.locals.changedTable, e.g. 'jobs' for a claim).
  app.use((req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      res.once('finish', () =>
        deps.readCache.invalidate(res.locals.changedTable as string | undefined),
      );
    next();
  });
  app.use(jobsRoutes(deps));
  app.use(reviewRoutes(deps));
  app.use(filesRoutes(deps));
  app.use(recordingsRoutes(deps));
  app.use(shareRoutes(deps));
  app.use(webhooksRoutes(deps));
  app.use(trackersRoutes(deps));
  app.use(appealsRoutes(deps));
  app.use(favouritesRoutes(deps));
  app.use(internalRoutes(deps));
  app.use(privacyRoutes(privacyKeyring('jobs', deps.config), jobsPrivacyAnswers(deps)));
  // A route without its catalogue entry, or an operation of this service without its route, stops the start.
  assertRoutesCatalogued(app, 'jobs');
}
