import type { ServiceContext } from '@htm/events';
import type { AnalyticsConfig } from './config.js';

/** Everything the analytics routes and use cases need (built once in main.ts). */
export type AnalyticsDeps = ServiceContext<AnalyticsConfig>;
