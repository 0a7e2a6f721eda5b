export { startNotifications, type NotificationsService } from './main.js';
