import type { ServiceContext } from '@htm/events';
import type { NotificationsConfig } from './config.js';
import type { MailSender } from './workers/sender.js';
import type { DigestScheduler } from './workers/digest.scheduler.js';

/** Everything the notifications routes and use cases need (built once in main.ts). */
export interface NotificationsDeps extends ServiceContext<NotificationsConfig> {
  unsubscribeSecret: string;
  sender: MailSender;
  digests: DigestScheduler;
}
