import type { Express } from 'express';
import type { NotificationsDeps } from './deps.js';
import { notificationsRoutes } from './http/notifications.routes.js';

export type { NotificationsDeps };

/** The notifications service's routes (health, errors and 404 come from createHttp). */
export function mountNotifications(app: Express, deps: NotificationsDeps): void {
  app.use(notificationsRoutes(deps));
}
