export * from './common.js';
export * from './admin.js';
export * from './identity.js';
export * from './payments.js';
export * from './jobs.js';
export * from './routes.js';
export * from './notifications.js';
export * from './live.js';
