import type { Express } from 'express';
import { adminServiceKeys } from './config.js';
import type { AdminDeps } from './deps.js';
import { createJobsClient, type JobsClient } from './clients/jobs.client.js';
import { adminRoutes } from './http/admin.routes.js';
import { feedbackRoutes } from './http/feedback.routes.js';
import { leadRoutes } from './http/leads.routes.js';
import { telemetryRoutes } from './http/telemetry.routes.js';
import { waitlistRoutes } from './http/waitlist.routes.js';
import { assertRoutesCatalogued, privacyKeyring, privacyRoutes } from '@htm/service-kit';
import { readAdminPart } from './db/privacy.repository.js';

export type { AdminDeps };

/** The admin service's routes (health, errors and 404 come from createHttp). */
export function mountAdmin(
  app: Express,
  deps: AdminDeps,
  jobs: JobsClient = defaultJobsClient(deps),
): void {
  app.use(feedbackRoutes(deps));
  app.use(waitlistRoutes(deps));
  app.use(leadRoutes(deps));
  app.use(telemetryRoutes(deps));
  app.use(adminRoutes(deps, jobs));
  app.use(
    privacyRoutes(privacyKeyring('admin', deps.config), {
      part: async (userId, email) => ({ data: await readAdminPart(deps.db, userId, email) }),
      handled: (id) => deps.events.handled(id),
    }),
  );
  // A route without its catalogue entry, or an operation of this service without its route, stops the start.
  assertRoutesCatalogued(app, 'admin');
}

function defaultJobsClient(deps: AdminDeps): JobsClient {
  return createJobsClient({
    baseUrl: deps.config.JOBS_URL,
    keys: adminServiceKeys(deps.config),
    logger: deps.logger,
  });
}
