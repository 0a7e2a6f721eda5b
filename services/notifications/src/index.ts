export { startNotifications, type NotificationsService } from './main.js';
export { loadNotificationsConfig, type NotificationsConfig } from './config.js';
