export { startAdmin } from './main.js';
export { loadAdminConfig, type AdminConfig } from './config.js';
