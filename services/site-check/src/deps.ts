import type { ServiceContext } from '@htm/events';
import type { SiteCheckConfig } from './config.js';
import type { SiteRunner } from './domain/runner.js';

/** Everything the site-check routes, handlers and worker need (built once in main.ts). */
export type SiteCheckDeps = ServiceContext<SiteCheckConfig> & {
  /** Runs one check in a browser (Chromium through the egress proxy), or says it cannot. */
  runner: SiteRunner;
};
