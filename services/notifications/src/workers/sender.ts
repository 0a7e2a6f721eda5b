import type { Logger } from 'pino';
import type { Db } from '@htm/service-kit/db';
import { notificationKindOn, type NotificationKind } from '@htm/contracts';
import type { NotificationsConfig } from '../config.js';
import {
  leaseDueMessages,
  preferencesOf,
  markFailed,
  markSent,
  markSuppressed,
} from '../db/message.repository.js';
import { findUser } from '../db/projection.repository.js';
import type { MessageRow } from '../db/schema.js';
import { renderMessage, type MessageData } from '../domain/templates.js';
import { signUnsubscribeToken } from '../domain/unsubscribe-token.js';
import type { MailTransport } from '../providers/transport.js';

export interface MailSenderOptions {
  db: Db;
  transport: MailTransport;
  config: Pick<
    NotificationsConfig,
    | 'PUBLIC_URL'
    | 'MAIL_POLL_MS'
    | 'MAIL_RETRY_BASE_MS'
    | 'MAIL_RETRY_MAX_MS'
    | 'MAIL_UNKNOWN_RECIPIENT_ATTEMPTS'
  >;
  unsubscribeSecret: string;
  logger: Logger;
  batchSize?: number;
}

/** Delay before the next attempt after `attempts` failures: base x 2^(attempts-1), capped. */
export function retryDelay(attempts: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
}

export function unsubscribeUrl(publicUrl: string, token: string): string {
  return new URL(
    `/api/notifications/unsubscribe?token=${encodeURIComponent(token)}`,
    publicUrl,
  ).toString();
}

/**
 * Sends queued messages (notifications.messages) and retries failures with exponential backoff
 * until they go: a message is never dropped because the SMTP server is down. Checks the
 * recipient's preferences at send time.
 */
export class MailSender {
  private running = false;
  private wake?: () => void;
  private loopDone?: Promise<void>;

  constructor(private readonly opts: MailSenderOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  kick(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loopDone;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let busy = false;
      try {
        busy = (await this.runOnce()) > 0;
      } catch (err) {
        this.opts.logger.error({ err: (err as Error).message }, 'mail sender round failed');
      }
      if (!this.running) break;
      if (!busy) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, this.opts.config.MAIL_POLL_MS);
          this.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        this.wake = undefined;
      }
    }
  }

  /** One round: sends what is due; answers how many messages it handled. */
  async runOnce(): Promise<number> {
    const { db, logger } = this.opts;
    const due = await leaseDueMessages(db, this.opts.batchSize ?? 20, 60_000);
    for (const m of due)
      await this.deliver(m).catch((err) =>
        logger.error({ err: (err as Error).message, messageId: m.id }, 'mail bookkeeping failed'),
      );
    return due.length;
  }

  private async deliver(m: MessageRow): Promise<void> {
    const { db, config } = this.opts;
    const kind = m.kind as NotificationKind;
    const logger = this.opts.logger.child({ correlationId: m.correlationId ?? undefined });
    if (!notificationKindOn(kind, await preferencesOf(db, m.userId))) {
      await markSuppressed(db, m.id, 'unsubscribed');
      logger.info(
        { messageId: m.id, kind, userId: m.userId },
        'mail not sent: the user unsubscribed from this kind',
      );
      return;
    }
    const data = m.data as MessageData;
    // A recipient without an account yet (a landing-page signup) is written to at the address
    // the event named.
    const user =
      (await findUser(db, m.userId)) ??
      (data.email ? { email: data.email, name: data.name ?? '' } : undefined);
    if (!user?.email && m.attempts + 1 >= config.MAIL_UNKNOWN_RECIPIENT_ATTEMPTS) {
      // Never announced by identity (e.g. an account older than this service's streams).
      await markSuppressed(db, m.id, 'recipient address unknown');
      logger.warn(
        { messageId: m.id, kind, userId: m.userId, attempts: m.attempts + 1 },
        'mail given up: the recipient address never became known',
      );
      return;
    }
    if (!user?.email) {
      // Identity's events may not have arrived yet: try again later rather than lose it.
      await markFailed(
        db,
        m.id,
        'recipient address not known yet',
        retryDelay(m.attempts + 1, config.MAIL_RETRY_BASE_MS, config.MAIL_RETRY_MAX_MS),
      );
      return;
    }
    const unsubscribe = unsubscribeUrl(
      config.PUBLIC_URL,
      signUnsubscribeToken(this.opts.unsubscribeSecret, m.userId, kind),
    );
    const rendered = await renderMessage(kind, data, {
      name: user.name,
      publicUrl: config.PUBLIC_URL,
      unsubscribeUrl: unsubscribe,
    });
    try {
      await this.opts.transport.send({
        messageId: `<${m.id}@htm.notifications>`,
        to: user.email,
        ...rendered,
        unsubscribeUrl: unsubscribe,
      });
    } catch (err) {
      const delay = retryDelay(m.attempts + 1, config.MAIL_RETRY_BASE_MS, config.MAIL_RETRY_MAX_MS);
      await markFailed(db, m.id, (err as Error).message, delay);
      logger.warn(
        {
          err: (err as Error).message,
          messageId: m.id,
          kind,
          attempts: m.attempts + 1,
          retryInMs: delay,
        },
        'mail not sent; will retry',
      );
      return;
    }
    await markSent(db, m.id, {
      toEmail: user.email,
      subject: rendered.subject,
      text: rendered.text,
    });
    logger.info({ messageId: m.id, kind, userId: m.userId }, 'mail sent');
  }
}
