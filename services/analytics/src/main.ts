import { fileURLToPath } from 'node:url';
import { hostService, type HostedService } from '@htm/events';
import { runMain } from '@htm/service-kit';
import { loadAnalyticsConfig, type AnalyticsConfig } from './config.js';
import { mountAnalytics } from './app.js';
import type { AnalyticsDeps } from './deps.js';
import { handledEvents, outbox } from './db/schema.js';
import { analyticsEventHandlers } from './events/handlers.js';

export const migrationsFolder = fileURLToPath(new URL('./db/migrations', import.meta.url));

export type AnalyticsService = HostedService<AnalyticsConfig> & { deps: AnalyticsDeps };

/** Starts the analytics service (PORT 0 = any free port). Used by main, `npm start` and tests. */
export async function startAnalytics(
  env: Record<string, string | undefined> = process.env,
  opts: { port?: number } = {},
): Promise<AnalyticsService> {
  const config = loadAnalyticsConfig(env);
  let deps!: AnalyticsDeps;
  const svc = await hostService({
    name: 'analytics',
    config,
    migrationsFolder,
    tables: { outbox, handled: handledEvents },
    port: opts.port,
    setup: (ctx) => {
      deps = ctx;
      return {
        app: (createHttp) => createHttp((app) => mountAnalytics(app, deps)),
        handlers: analyticsEventHandlers(),
      };
    },
  });
  return Object.assign(svc, { deps });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runMain('analytics', () => startAnalytics());
}
