import type { Express } from 'express';
import type { NotificationsDeps } from './deps.js';
import { notificationsRoutes } from './http/notifications.routes.js';
import { assertRoutesCatalogued, privacyKeyring, privacyRoutes } from '@htm/service-kit';
import { readNotificationsPart } from './db/privacy.repository.js';

export type { NotificationsDeps };

/** The notifications service's routes (health, errors and 404 come from createHttp). */
export function mountNotifications(app: Express, deps: NotificationsDeps): void {
  app.use(notificationsRoutes(deps));
  app.use(
    privacyRoutes(privacyKeyring('notifications', deps.config), {
      part: async (userId) => ({ data: await readNotificationsPart(deps.db, userId) }),
      handled: (id) => deps.events.handled(id),
    }),
  );
  // A route without its catalogue entry, or an operation of this service without its route, stops the start.
  assertRoutesCatalogued(app, 'notifications');
}
