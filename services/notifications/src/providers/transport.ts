import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { NotificationsConfig } from '../config.js';

export interface OutgoingMail {
  /** Stable per message row, so a receiver can drop a copy sent twice after a crash. */
  messageId: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  unsubscribeUrl: string;
}

export interface MailTransport {
  readonly kind: 'smtp' | 'file';
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

function envelopeOf(from: string, mail: OutgoingMail) {
  return {
    from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    messageId: mail.messageId,
    // RFC 2369 + RFC 8058: one-click unsubscribe from the mail client (a POST to the same URL).
    list: { unsubscribe: { url: mail.unsubscribeUrl, comment: 'Unsubscribe' } },
    headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}

/** nodemailer to SMTP_URL; without it, each message is written as an .eml file under MAIL_DIR (default DATA_DIR/mail). */
export function createMailTransport(
  config: Pick<NotificationsConfig, 'SMTP_URL' | 'MAIL_DIR' | 'DATA_DIR' | 'MAIL_FROM'>,
): MailTransport {
  if (config.SMTP_URL) {
    const smtp = nodemailer.createTransport(config.SMTP_URL, {
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    } as object);
    return {
      kind: 'smtp',
      async send(mail) {
        await smtp.sendMail(envelopeOf(config.MAIL_FROM, mail));
      },
      close: () => smtp.close(),
    };
  }
  const dir = config.MAIL_DIR ?? path.join(config.DATA_DIR, 'mail');
  const files = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'unix',
  });
  return {
    kind: 'file',
    async send(mail) {
      const info = (await files.sendMail(envelopeOf(config.MAIL_FROM, mail))) as {
        message: Buffer;
      };
      await mkdir(dir, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${mail.messageId.replace(/[^a-z0-9-]/gi, '').slice(0, 60)}.eml`;
      await writeFile(path.join(dir, name), info.message);
    },
    close: () => files.close(),
  };
}
