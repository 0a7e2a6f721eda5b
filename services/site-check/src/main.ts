import { fileURLToPath } from 'node:url';
import { hostService, type HostedService } from '@htm/events';
import { runMain } from '@htm/service-kit';
import { loadSiteCheckConfig, type SiteCheckConfig } from './config.js';
import { mountSiteCheck } from './app.js';
import type { SiteCheckDeps } from './deps.js';
import { handledEvents, outbox } from './db/schema.js';
import { siteCheckEventHandlers } from './events/handlers.js';
import { createChromiumRunner } from './providers/chromium-runner.js';
import type { Connect, Resolve } from './providers/egress-proxy.js';
import { startCheckWorker, type CheckWorker } from './workers/check-worker.js';

export const migrationsFolder = fileURLToPath(new URL('./db/migrations', import.meta.url));

export type SiteCheckService = HostedService<SiteCheckConfig> & {
  deps: SiteCheckDeps;
  worker: CheckWorker;
};

/**
 * Starts the site-check service (PORT 0 = any free port): its consumers, its route and the
 * worker that runs the checks. Used by main, `npm start` and tests. `network` replaces the egress
 * proxy's resolver and connector (tests of the egress rules only).
 */
export async function startSiteCheck(
  env: Record<string, string | undefined> = process.env,
  opts: { port?: number; network?: { resolve?: Resolve; connect?: Connect } } = {},
): Promise<SiteCheckService> {
  const config = loadSiteCheckConfig(env);
  let deps!: SiteCheckDeps;
  let worker: CheckWorker | undefined;
  const svc = await hostService({
    name: 'site-check',
    config,
    migrationsFolder,
    tables: { outbox, handled: handledEvents },
    port: opts.port,
    setup: (ctx) => {
      const runner = createChromiumRunner(config, ctx.logger, opts.network);
      deps = Object.assign(ctx, { runner });
      if (!runner.available)
        ctx.logger.warn(
          { reason: runner.unavailableReason },
          'site check unavailable: every paid job gets SiteCheckFailed (unavailable)',
        );
      return {
        app: (createHttp) => createHttp((app) => mountSiteCheck(app, deps)),
        handlers: siteCheckEventHandlers(() => deps),
        start: async () => {
          worker = startCheckWorker(deps);
        },
        stop: async () => {
          await worker?.stop();
        },
      };
    },
  });
  return Object.assign(svc, { deps, worker: worker! });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runMain('site-check', () => startSiteCheck());
}
