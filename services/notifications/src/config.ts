import { z } from 'zod';
import {
  baseConfigSchema,
  eventBusConfigSchema,
  loadConfig,
  assertProductionSecrets,
  ConfigError,
  envBool,
  privacyKeyring,
} from '@htm/service-kit';

const ms = (def: number) => z.coerce.number().int().min(1).default(def);

export const notificationsConfigSchema = baseConfigSchema
  .extend({
    PORT: z.coerce.number().int().min(0).default(8086),
    /** SMTP server (nodemailer URL, e.g. smtps://user:pass@smtp.example.com). Unset: each message is written as an .eml under MAIL_DIR. */
    SMTP_URL: z.string().url().optional(),
    /** Where .eml files go without SMTP_URL (default DATA_DIR/mail). */
    MAIL_DIR: z.string().optional(),
    MAIL_FROM: z.string().min(3).default('HumanTest <no-reply@localhost>'),
    /** The address people open the product at: links and the unsubscribe URL in e-mails start with it. */
    PUBLIC_URL: z.string().url().default('http://localhost:8080'),
    /**
     * HMAC secret of unsubscribe links (at least 32 random bytes). Required in production; elsewhere
     * it defaults to one derived from SERVICE_TOKEN_SECRET.
     */
    UNSUBSCRIBE_SECRET: z
      .union([z.literal('').transform(() => undefined), z.string().min(32)])
      .optional(),
    /** The development sign-in (identity's setting): with it on and no SMTP_URL, GET /api/dev/mail lists the e-mails written. */
    DEV_SIGN_IN: envBool.default(false),
    /** Identity's setting: with Google configured there is no development sign-in, so no /api/dev/mail. */
    GOOGLE_CLIENT_ID: z.string().optional(),
    /** Sender: how often it looks for due messages, first retry delay (doubles per attempt) and the longest delay. */
    MAIL_POLL_MS: ms(1000),
    MAIL_RETRY_BASE_MS: ms(5000),
    MAIL_RETRY_MAX_MS: ms(3600_000),
    /** Events older than this queue no e-mail (projections still apply): the first start replays the streams from their beginning. */
    MAIL_MAX_EVENT_AGE_MS: ms(48 * 3600_000),
    /**
     * The results-ready e-mail waits up to this long for the report's summary (jobs computes it
     * within seconds) so that it can list what to fix first; it goes without them after that.
     */
    MAIL_SUMMARY_WAIT_MS: ms(90_000),
    /** Attempts before a message whose recipient's address never arrived is given up (suppressed, logged). */
    MAIL_UNKNOWN_RECIPIENT_ATTEMPTS: z.coerce.number().int().min(1).default(12),
    /** How often the job digest looks for testers to tell about new jobs (each gets at most one an hour). */
    DIGEST_POLL_MS: ms(60_000),
    /**
     * The jobs service's priority window (same key, same value): the digest announces a job only
     * once its window is over, so nobody is told about a job they cannot claim yet. 0 = no window.
     */
    PRIORITY_WINDOW_MS: z.coerce.number().int().min(0).default(600_000),
  })
  .and(eventBusConfigSchema);
export type NotificationsConfig = z.infer<typeof notificationsConfigSchema>;

export function loadNotificationsConfig(
  env: Record<string, string | undefined> = process.env,
): NotificationsConfig {
  const cfg = loadConfig('notifications', notificationsConfigSchema, env);
  privacyKeyring('notifications', cfg); // identity's /internal/privacy calls: its public key must be known
  assertProductionSecrets(cfg, 'notifications', { UNSUBSCRIBE_SECRET: cfg.UNSUBSCRIBE_SECRET });
  if (cfg.NODE_ENV === 'production' && !cfg.SMTP_URL)
    throw new ConfigError('notifications', ['SMTP_URL: must be set in production']);
  return cfg;
}

/**
 * GET /api/dev/mail: only where anyone may sign in as anyone anyway (the development sign-in on,
 * Google not configured, not production) and no mail leaves the machine (no SMTP_URL).
 */
export function devMailOn(
  cfg: Pick<NotificationsConfig, 'NODE_ENV' | 'DEV_SIGN_IN' | 'GOOGLE_CLIENT_ID' | 'SMTP_URL'>,
): boolean {
  return (
    cfg.NODE_ENV !== 'production' &&
    cfg.DEV_SIGN_IN &&
    !cfg.GOOGLE_CLIENT_ID?.trim() &&
    !cfg.SMTP_URL
  );
}
