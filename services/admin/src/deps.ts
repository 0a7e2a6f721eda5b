import type { ServiceContext } from '@htm/events';
import type { AdminConfig } from './config.js';

/** Everything the admin routes and use cases need (built once in main.ts). */
export type AdminDeps = ServiceContext<AdminConfig>;
