export { startSiteCheck, type SiteCheckService } from './main.js';
export { loadSiteCheckConfig, type SiteCheckConfig } from './config.js';
export { chromiumMissing } from './providers/chromium-runner.js';
