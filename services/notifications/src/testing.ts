/**
 * For tests of other packages (the root end-to-end tests): `import { startInbox } from
 * '@htm/notifications/testing'`, a real SMTP server in the test process that keeps every message.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export interface Inbox {
  port: number;
  mails: ParsedMail[];
  /** Mails to one address. */
  to(email: string): ParsedMail[];
  /** Stops listening (connections are refused: "SMTP down"). */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/** An SMTP server that parses and keeps every message it accepts. */
export async function startInbox(port = 0): Promise<Inbox> {
  const mails: ParsedMail[] = [];
  const make = () =>
    new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, _session, callback) {
        simpleParser(stream)
          .then((m) => {
            mails.push(m);
            callback();
          })
          .catch((err: Error) => callback(err));
      },
    });
  let server = make();
  const listen = (p: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => resolve((server.server.address() as AddressInfo).port));
    });
  const bound = await listen(port);
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    port: bound,
    mails,
    to: (email) =>
      mails.filter((m) =>
        (Array.isArray(m.to) ? m.to : m.to ? [m.to] : []).some((a) =>
          a.value.some((v) => v.address === email),
        ),
      ),
    down: close,
    async up() {
      server = make();
      await listen(bound);
    },
    close,
  };
}
