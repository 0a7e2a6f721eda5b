export { startIdentity, type IdentityService } from './main.js';
export { loadIdentityConfig, type IdentityConfig } from './config.js';
