import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { hostService, type HostedService } from '@htm/events';
import { runMain } from '@htm/service-kit';
import { loadNotificationsConfig, type NotificationsConfig } from './config.js';
import { mountNotifications } from './app.js';
import type { NotificationsDeps } from './deps.js';
import { handledEvents, outbox } from './db/schema.js';
import { pendingCount } from './db/message.repository.js';
import { notificationsEventHandlers } from './events/handlers.js';
import { MailSender } from './workers/sender.js';
import { DigestScheduler } from './workers/digest.scheduler.js';
import { createMailTransport } from './providers/transport.js';

export const migrationsFolder = fileURLToPath(new URL('./db/migrations', import.meta.url));

export type NotificationsService = HostedService<NotificationsConfig> & { deps: NotificationsDeps };

/** Starts the notifications service (PORT 0 = any free port). Used by main, `npm start` and tests. */
export async function startNotifications(
  env: Record<string, string | undefined> = process.env,
  opts: { port?: number } = {},
): Promise<NotificationsService> {
  const config = loadNotificationsConfig(env);
  const unsubscribeSecret =
    config.UNSUBSCRIBE_SECRET ??
    createHash('sha256').update(`unsubscribe:${config.SERVICE_TOKEN_SECRET}`).digest('base64url');
  const transport = createMailTransport(config);
  let deps!: NotificationsDeps;
  const svc = await hostService({
    name: 'notifications',
    config,
    migrationsFolder,
    tables: { outbox, handled: handledEvents },
    port: opts.port,
    setup: (ctx) => {
      const sender = new MailSender({
        db: ctx.db,
        transport,
        config,
        unsubscribeSecret,
        logger: ctx.logger.child({ component: 'mail-sender' }),
      });
      const digests = new DigestScheduler({
        db: ctx.db,
        pollMs: config.DIGEST_POLL_MS,
        priorityWindowMs: config.PRIORITY_WINDOW_MS,
        logger: ctx.logger.child({ component: 'job-digest' }),
        kick: () => sender.kick(),
      });
      deps = Object.assign(Object.create(ctx) as NotificationsDeps, {
        unsubscribeSecret,
        sender,
        digests,
      });
      ctx.metrics.gauge('mail_pending', 'E-mails queued and not yet sent', () =>
        pendingCount(ctx.db),
      );
      return {
        app: (createHttp) => createHttp((app) => mountNotifications(app, deps)),
        handlers: notificationsEventHandlers({
          logger: ctx.logger,
          kick: () => sender.kick(),
          maxEventAgeMs: config.MAIL_MAX_EVENT_AGE_MS,
          summaryWaitMs: config.MAIL_SUMMARY_WAIT_MS,
        }),
        start: async () => {
          sender.start();
          digests.start();
        },
        stop: async () => {
          await digests.stop();
          await sender.stop();
          transport.close();
        },
      };
    },
  });
  return Object.assign(svc, { deps });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runMain('notifications', () => startNotifications());
}
