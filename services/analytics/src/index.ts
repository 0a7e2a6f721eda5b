export { startAnalytics, type AnalyticsService } from './main.js';
export { loadAnalyticsConfig, type AnalyticsConfig } from './config.js';
export { rebuildAnalytics } from './rebuild.js';
