import { fileURLToPath } from 'node:url';
import { hostService, type HostedService } from '@htm/events';
import { runMain } from '@htm/service-kit';
import { loadAdminConfig, type AdminConfig } from './config.js';
import { mountAdmin } from './app.js';
import { handledEvents, outbox } from './db/schema.js';
import { adminEventHandlers } from './events/handlers.js';
import { deadLetterSummary } from './domain/dead-letters.js';

export const migrationsFolder = fileURLToPath(new URL('./db/migrations', import.meta.url));

/** Starts the admin service (PORT 0 = any free port). Used by main, `npm start` and tests. */
export async function startAdmin(
  env: Record<string, string | undefined> = process.env,
  opts: { port?: number } = {},
): Promise<HostedService<AdminConfig>> {
  const config = loadAdminConfig(env);
  return hostService({
    name: 'admin',
    config,
    migrationsFolder,
    tables: { outbox, handled: handledEvents },
    port: opts.port,
    setup: (ctx) => {
      // Alert on any value above 0: events no consumer could apply (the Overview shows them with a Replay button).
      ctx.metrics.gauge(
        'event_dead_letters_all_groups',
        'Events in dead letter across every consumer group (alert when above 0)',
        async () => (await deadLetterSummary(ctx)).total,
      );
      return {
        app: (createHttp) => createHttp((app) => mountAdmin(app, ctx)),
        handlers: adminEventHandlers(),
      };
    },
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runMain('admin', () => startAdmin());
}
