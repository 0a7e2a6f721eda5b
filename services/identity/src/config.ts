import { DEFAULT_STRIKE_LIMIT } from '@htm/contracts/marketplace';
import { z } from 'zod';
import {
  assertProductionSecrets,
  baseConfigSchema,
  ConfigError,
  envBool,
  eventBusConfigSchema,
  loadConfig,
  ServiceKeyring,
  type ServiceTokenConfig,
} from '@htm/service-kit';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() ? v.trim() : undefined));

export const identityConfigSchema = baseConfigSchema
  .extend({
    PORT: z.coerce.number().int().min(0).default(8081),
    /** Absolute base for URLs handed to outside parties (the Google callback). */
    PUBLIC_URL: z.string().url().default('http://localhost:8080'),
    /** Where the web app lives; unset means the gateway's own origin (relative redirects). */
    WEB_ORIGIN: optionalString,
    /**
     * The development sign-in (`/api/auth/dev/login`, anyone may sign in as anyone, the admin
     * included): only when Google is not configured AND this is true. `npm start` sets it for the
     * embedded default; docker-compose and production leave it off.
     */
    DEV_SIGN_IN: envBool.default(false),
    GOOGLE_CLIENT_ID: optionalString,
    GOOGLE_CLIENT_SECRET: optionalString,
    GOOGLE_CALLBACK_URL: optionalString,
    GOOGLE_AUTH_URL: z.string().url().default('https://accounts.google.com/o/oauth2/v2/auth'),
    GOOGLE_TOKEN_URL: z.string().url().default('https://oauth2.googleapis.com/token'),
    GOOGLE_USERINFO_URL: z
      .string()
      .url()
      .default('https://openidconnect.googleapis.com/v1/userinfo'),
    /** ES256 signing key: PKCS8 PEM or a private JWK as JSON. Unset: generated once, kept in the database. */
    JWT_PRIVATE_KEY: optionalString,
    /** Public keys still accepted and published after a rotation: a JWKS `{"keys":[...]}` or a JSON array of JWKs. */
    JWT_PREVIOUS_PUBLIC_KEYS: optionalString,
    /** Signs the OAuth state cookie and derives the XSRF token. Required in production. */
    AUTH_SECRET: z.string().min(32).default('dev-only-identity-auth-secret-change-me!!'),
    ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(30).max(3600).default(900),
    /** Lifetime of the one-time session_id handed to the browser after sign-in. */
    SIGNIN_SESSION_TTL_SECONDS: z.coerce.number().int().min(10).max(600).default(120),
    /** Absolute lifetime of a refresh-token family (one sign-in). */
    REFRESH_FAMILY_TTL_DAYS: z.coerce.number().min(0.0001).max(90).default(30),
    /** A sign-in whose refresh token was not used for this long ends (idle timeout). */
    REFRESH_IDLE_TIMEOUT_DAYS: z.coerce.number().min(0.00001).max(90).default(7),
    /** Sign-in, session exchange and refresh requests per minute per client IP (each group counted apart). */
    AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
    /** The rate-limit window (a minute; shorter only in tests). */
    AUTH_RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(100).default(60_000),
    /** Strikes at which a tester is unapproved. */
    TESTER_STRIKE_LIMIT: z.coerce.number().int().min(1).default(DEFAULT_STRIKE_LIMIT),
    /** Where the other services answer identity's /internal/privacy calls (data export parts, deletion checks). */
    JOBS_URL: z.string().url().default('http://127.0.0.1:8082'),
    PAYMENTS_URL: z.string().url().default('http://127.0.0.1:8083'),
    ADMIN_URL: z.string().url().default('http://127.0.0.1:8084'),
    NOTIFICATIONS_URL: z.string().url().default('http://127.0.0.1:8086'),
    ANALYTICS_URL: z.string().url().default('http://127.0.0.1:8087'),
    /** "Delete my account": time in which signing in again cancels the deletion (7 days). */
    DELETION_GRACE_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(7 * 24 * 3600_000),
    /** "Download my data": lifetime of the e-mailed signed link (24 h), and the least time between two exports (a day). */
    EXPORT_LINK_TTL_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(24 * 3600_000),
    EXPORT_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(24 * 3600_000),
    /** Scratch folder where an export's zip is built before it is stored in the database (default DATA_DIR/exports). */
    EXPORT_DIR: optionalString,
    /**
     * /readyz fails (check `disk`; /api/healthz then says "low disk space") when the file system
     * holding the service's files has fewer free bytes than this: jobs' uploads (UPLOAD_DIR,
     * default DATA_DIR/uploads), identity's EXPORT_DIR. 0 turns the check off. Uploads that meet a
     * full disk answer 507, an export is tried again by the next sweep, either way.
     */
    MIN_FREE_DISK_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(64 * 1024 * 1024),
    /** How often the privacy sweep builds exports, starts due deletions and checks erasures. */
    PRIVACY_SWEEP_MS: z.coerce.number().int().min(50).default(15_000),
  })
  .and(eventBusConfigSchema);
export type IdentityConfig = z.infer<typeof identityConfigSchema> & { ADMIN_EMAIL?: string };

export function loadIdentityConfig(
  env: Record<string, string | undefined> = process.env,
): IdentityConfig {
  const cfg = loadConfig('identity', identityConfigSchema, env);
  const problems: string[] = [];
  try {
    assertProductionSecrets(cfg, 'identity', { AUTH_SECRET: cfg.AUTH_SECRET });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  if (cfg.NODE_ENV === 'production') {
    if (!cfg.GOOGLE_CLIENT_ID)
      problems.push('GOOGLE_CLIENT_ID: must be set in production (Google is the only sign-in)');
    if (!cfg.GOOGLE_CLIENT_SECRET)
      problems.push('GOOGLE_CLIENT_SECRET: must be set in production (Google is the only sign-in)');
    if (!cfg.JWT_PRIVATE_KEY)
      problems.push(
        'JWT_PRIVATE_KEY: must be set in production (a managed ES256 key; see docs/operations.md, key rotation)',
      );
    if (cfg.DEV_SIGN_IN)
      problems.push('DEV_SIGN_IN: the development sign-in is never available in production');
  } else if (Boolean(cfg.GOOGLE_CLIENT_ID) !== Boolean(cfg.GOOGLE_CLIENT_SECRET)) {
    problems.push('GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET: set both or neither');
  }
  if (problems.length) throw new ConfigError('identity', problems);
  identityServiceKeys(cfg); // a missing or bad service-token key stops the service here
  const adminEmail =
    cfg.ADMIN_EMAIL ?? (cfg.NODE_ENV === 'production' ? undefined : 'admin@gmail.com');
  return { ...cfg, ADMIN_EMAIL: adminEmail?.trim().toLowerCase() };
}

/** True when real Google sign-in is configured. */
export function googleConfigured(cfg: IdentityConfig): boolean {
  return Boolean(cfg.GOOGLE_CLIENT_ID && cfg.GOOGLE_CLIENT_SECRET);
}

/** The development sign-in exists only without Google, when switched on, and never in production. */
export function devSignInEnabled(cfg: IdentityConfig): boolean {
  return !googleConfigured(cfg) && cfg.DEV_SIGN_IN && cfg.NODE_ENV !== 'production';
}

/** Where the browser lands after sign-in: WEB_ORIGIN, or relative to the gateway's origin. */
export function webRedirect(cfg: IdentityConfig, hash: string): string {
  const origin = (cfg.WEB_ORIGIN ?? '').replace(/\/+$/, '');
  return `${origin}/#${hash}`;
}

export function googleCallbackUrl(cfg: IdentityConfig): string {
  return (
    cfg.GOOGLE_CALLBACK_URL ?? `${cfg.PUBLIC_URL.replace(/\/+$/, '')}/api/auth/google/callback`
  );
}

/** identity signs its /internal/privacy calls to every other service (service tokens). */
export function identityServiceKeys(cfg: ServiceTokenConfig): ServiceKeyring {
  return ServiceKeyring.fromConfig('identity', cfg, { signs: true });
}
