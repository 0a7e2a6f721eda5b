import { z } from 'zod';
import {
  ConfigError,
  baseConfigSchema,
  eventBusConfigSchema,
  loadConfig,
  assertProductionSecrets,
  envBool,
  ServiceKeyring,
  privacyKeyring,
} from '@htm/service-kit';
import {
  PACK_FILL_WINDOW_DEFAULT_MS,
  SESSION_CHECK_DEFAULTS as SC,
  type SessionCheckThresholds,
} from '@htm/contracts/marketplace';

const HOUR = 3600_000;

const MB = 1024 * 1024;
/**
 * The defaults of the recording limits, in one place (each overridable by its RECORDING_* key):
 * a recording is at most 500 MB (RECORDING_MAX_BYTES); a tester holds two uploads in flight, and
 * 1 GB of recordings not yet submitted; a job's recordings stay within three full-size ones (a
 * submission, a revision, one retake); all recordings together within 50 GB of disk.
 */
export const RECORDING_LIMITS = {
  maxBytes: 500 * MB,
  uploadsPerTester: 2,
  uploadsPerJob: 2,
  pendingBytesPerTester: 1024 * MB,
  bytesPerJob: 1500 * MB,
  diskBudgetBytes: 50 * 1024 * MB,
  /**
   * An upload that received nothing for this long no longer counts as in flight (a recorder
   * PATCHes every few seconds; one that crashed must not block a new recording until the 24 h
   * sweep). Its bytes count until the sweep deletes it.
   */
  stalledAfterMs: 10 * 60_000,
} as const;
const ms = (def: number) => z.coerce.number().int().min(1).default(def);

export const jobsConfigSchema = baseConfigSchema
  .extend({
    PORT: z.coerce.number().int().min(0).default(8082),
    PAYMENTS_URL: z.string().url().default('http://127.0.0.1:8083'),
    /** How long posting a job waits for payments to open its checkout session (ms). */
    PAYMENTS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(8000),
    /** Claimed or revision_requested jobs one tester may hold at once. */
    MAX_ACTIVE_CLAIMS: z.coerce.number().int().min(1).default(1),
    /** Timers (ms). CLAIM_TIMEOUT_MS unset: the job's expected_completion_hours. */
    AUTO_ACCEPT_AFTER_MS: ms(96 * HOUR),
    REVISION_WINDOW_MS: ms(48 * HOUR),
    CLAIM_TIMEOUT_MS: z.coerce.number().int().min(1).optional(),
    /** How long a paid re-test is held for the tester of the original job (ms; 0 = not held). */
    RETEST_RESERVE_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(24 * HOUR),
    /** A pack's slot nobody has claimed this long after payment is closed and its $1 refunded (ms). */
    PACK_FILL_WINDOW_MS: z.coerce.number().int().min(1).default(PACK_FILL_WINDOW_DEFAULT_MS),
    /** Uploads: local disk under UPLOAD_DIR (default DATA_DIR/uploads) unless S3_BUCKET is set. */
    UPLOAD_DIR: z.string().optional(),
    S3_BUCKET: z.string().min(1).optional(),
    S3_REGION: z.string().default('us-east-1'),
    S3_ENDPOINT: z.string().url().optional(),
    S3_FORCE_PATH_STYLE: envBool.default(false),
    S3_PREFIX: z.string().default('uploads/'),
    /** Signed file links (`?sig=`): HMAC secret (required in production; in development derived from SERVICE_TOKEN_SECRET) and lifetime. */
    FILE_URL_SECRET: z.string().min(32).optional(),
    FILE_URL_TTL_MS: ms(15 * 60_000),
    /** Run the timer worker inside the API process (`npm run start` of this service); false when it runs as its own deployment. */
    JOBS_WITH_WORKER: envBool.default(true),
    /** Health and metrics port of the standalone worker (worker-main). */
    WORKER_PORT: z.coerce.number().int().min(0).default(8085),
    /** How long the list of available jobs and tester standings may be answered from memory (ms; 0 = never). Changes empty it at once. */
    READ_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5000),
    /**
     * For this long after a job is paid only top-rated testers (rating_avg >= 4.5 over 3+ ratings)
     * see and may claim it, when one exists for its geo rule (ms; 0 turns the window off).
     */
    PRIORITY_WINDOW_MS: z.coerce.number().int().min(0).default(600_000),
    /** How often the timer worker rebuilds missing timers from the deadlines in the database (ms); also done at start-up. */
    TIMER_RECONCILE_MS: ms(60_000),
    /** An upload that sends nothing for this long is abandoned: its request ends and its temporary file is deleted (ms). */
    UPLOAD_IDLE_TIMEOUT_MS: ms(60_000),
    /** Screen recordings (tus uploads at /api/recordings): largest upload in bytes (default 500 MB). */
    RECORDING_MAX_BYTES: z.coerce.number().int().min(1).default(RECORDING_LIMITS.maxBytes),
    /** Screen recordings: uploads not finished yet a tester may have at once (one more: 429). */
    RECORDING_MAX_UPLOADS_PER_TESTER: z.coerce
      .number()
      .int()
      .min(1)
      .default(RECORDING_LIMITS.uploadsPerTester),
    /** Screen recordings: uploads not finished yet a job may have at once (one more: 429). */
    RECORDING_MAX_UPLOADS_PER_JOB: z.coerce
      .number()
      .int()
      .min(1)
      .default(RECORDING_LIMITS.uploadsPerJob),
    /**
     * Screen recordings: bytes of a tester's recordings not yet in a submission (an upload counts
     * at its declared length, a deferred one at RECORDING_MAX_BYTES; past it: 413).
     */
    RECORDING_MAX_PENDING_BYTES_PER_TESTER: z.coerce
      .number()
      .int()
      .min(1)
      .default(RECORDING_LIMITS.pendingBytesPerTester),
    /** Screen recordings: bytes of all recordings of one job (past it: 413). */
    RECORDING_MAX_BYTES_PER_JOB: z.coerce
      .number()
      .int()
      .min(1)
      .default(RECORDING_LIMITS.bytesPerJob),
    /**
     * Screen recordings: bytes of every recording stored together; past it, or with less than
     * MIN_FREE_DISK_BYTES left on the uploads' disk once the uploads in flight arrive, a new
     * recording is refused with 507.
     */
    RECORDING_DISK_BUDGET_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(RECORDING_LIMITS.diskBudgetBytes),
    /** Longest recording the web app records before stopping itself (ms; default 10 minutes). */
    RECORDING_MAX_MS: ms(10 * 60_000),
    /** Recordings are deleted this many days after their job completes. */
    RECORDING_RETENTION_DAYS: z.coerce.number().min(0).default(90),
    /** An upload that received nothing for this long (and was never submitted) is deleted (ms). */
    RECORDING_ABANDONED_MS: ms(24 * HOUR),
    /** How often the worker sweeps abandoned and expired recordings (ms). */
    RECORDING_SWEEP_MS: ms(HOUR),
    /** ffmpeg / ffprobe used to make recordings seekable (remux, no re-encoding) and measure them. */
    FFMPEG_PATH: z.string().default('ffmpeg'),
    FFPROBE_PATH: z.string().default('ffprobe'),
    /**
     * A timer that fails because the database or Redis is unreachable or out of a resource is
     * retried without limit, the wait doubling from TIMER_RETRY_BASE_MS up to TIMER_RETRY_MAX_DELAY_MS
     * (ms): a due timer is applied once the database is back, however long it was gone. Other
     * errors (a bug) get TIMER_MAX_ATTEMPTS attempts; the rebuild retries such failed timers too.
     */
    TIMER_RETRY_BASE_MS: ms(1000),
    TIMER_RETRY_MAX_DELAY_MS: ms(60_000),
    TIMER_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(8),
    /**
     * /readyz fails (check `disk`) when the file system holding the uploads (UPLOAD_DIR, default
     * DATA_DIR/uploads) has fewer free bytes than this; /api/healthz then says "low disk space".
     * 0 turns the check off. Uploads that meet a full disk answer 507 either way.
     */
    MIN_FREE_DISK_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(64 * 1024 * 1024),
    /** Timer worker concurrency. */
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(5),
    /** Where the product is reached (webhook bodies' report_url). */
    PUBLIC_URL: z.string().url().default('http://localhost:8080'),
    /** First webhook retry after this long (ms), then doubling; retried for at least 24 h. */
    WEBHOOK_RETRY_BASE_MS: ms(30_000),
    /** How often the delivery worker looks for due webhook deliveries (ms). */
    WEBHOOK_POLL_MS: ms(1000),
    /** AES-256-GCM key (32 bytes, base64) of posters' issue-tracker tokens; unset: derived from FILE_URL_SECRET (production requires that), else SERVICE_TOKEN_SECRET. */
    TRACKER_CREDENTIALS_KEY: z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, {
        message: 'must be 32 bytes, base64 (openssl rand -base64 32)',
      })
      .optional(),
    /** GitHub's REST API (GitHub Enterprise: https://HOST/api/v3). */
    GITHUB_API_URL: z.string().url().default('https://api.github.com'),
    /**
     * Session checks ("Every session checked"; defaults from the rules module's
     * SESSION_CHECK_DEFAULTS): a recording the job asks for lasts SESSION_CHECK_MIN_RECORDING_MS,
     * the tester talks SESSION_CHECK_MIN_TALK_PCT % of it, no silent and still stretch is longer than
     * SESSION_CHECK_MAX_IDLE_MS; silence is below SESSION_CHECK_SILENCE_DB for
     * SESSION_CHECK_SILENCE_MIN_MS; the screen is compared SESSION_CHECK_FREEZE_FPS times a second
     * (changes under SESSION_CHECK_FREEZE_NOISE count as none); a report with
     * SESSION_CHECK_DUPLICATE_CONTAINMENT of its phrases in another one is a copy (texts under
     * SESSION_CHECK_MIN_SHINGLES phrases are not judged).
     */
    SESSION_CHECK_MIN_RECORDING_MS: z.coerce.number().int().min(0).default(SC.minRecordingMs),
    SESSION_CHECK_MIN_TALK_PCT: z.coerce.number().min(0).max(100).default(SC.minTalkPct),
    SESSION_CHECK_MAX_IDLE_MS: ms(SC.maxIdleMs),
    SESSION_CHECK_SILENCE_DB: z.coerce.number().max(0).default(SC.silenceNoiseDb),
    SESSION_CHECK_SILENCE_MIN_MS: ms(SC.silenceMinMs),
    SESSION_CHECK_FREEZE_NOISE: z.coerce.number().gt(0).max(1).default(SC.freezeNoise),
    SESSION_CHECK_FREEZE_FPS: z.coerce.number().gt(0).max(30).default(SC.freezeFps),
    SESSION_CHECK_DUPLICATE_CONTAINMENT: z.coerce
      .number()
      .gt(0)
      .max(1)
      .default(SC.duplicateContainment),
    SESSION_CHECK_MIN_SHINGLES: z.coerce.number().int().min(1).default(SC.minShingles),
    /** How often each jobs process looks for submissions waiting for their check (ms). */
    SESSION_CHECK_POLL_MS: ms(2000),
    /**
     * `off` (tests of other flows only, refused in production): reports reach their poster at
     * submission, unchecked. `on`: every report is held from its poster until its check passes.
     */
    SESSION_CHECKS: z.enum(['on', 'off']).default('on'),
    /** How often each jobs process looks for report summaries to compute (ms; issue #51). */
    SUMMARY_POLL_MS: ms(1000),
    /**
     * A PEM file of certificate authorities trusted for Jira sites besides the usual public ones
     * (a self-hosted Jira behind a company CA; the tests' local Jira). Jira sites are https only.
     */
    TRACKER_CA_FILE: z.string().min(1).optional(),
    /** Allow webhook endpoints on loopback/private addresses (npm start's local receivers); refused in production. */
    WEBHOOKS_ALLOW_PRIVATE: envBool.default(false),
    /** Tests only, refused in production: a job may name a local address (the site check's fixture sites). */
    SITE_CHECK_ALLOW_PRIVATE: envBool.default(false),
  })
  .and(eventBusConfigSchema);
export type JobsConfig = z.infer<typeof jobsConfigSchema>;

export function loadJobsConfig(env: Record<string, string | undefined> = process.env): JobsConfig {
  const cfg = loadConfig('jobs', jobsConfigSchema, env);
  // FILE_URL_SECRET signs file links: in production it is its own secret, never derived.
  assertProductionSecrets(cfg, 'jobs', { FILE_URL_SECRET: cfg.FILE_URL_SECRET });
  if (cfg.NODE_ENV === 'production' && cfg.WEBHOOKS_ALLOW_PRIVATE)
    throw new ConfigError('jobs', [
      'WEBHOOKS_ALLOW_PRIVATE: must not be true in production (webhooks could reach internal addresses)',
    ]);
  if (cfg.NODE_ENV === 'production' && cfg.SESSION_CHECKS === 'off')
    throw new ConfigError('jobs', [
      'SESSION_CHECKS: must not be off in production (reports would reach their owners unchecked)',
    ]);
  if (cfg.NODE_ENV === 'production' && cfg.SITE_CHECK_ALLOW_PRIVATE)
    throw new ConfigError('jobs', [
      'SITE_CHECK_ALLOW_PRIVATE: must not be true in production (jobs could name internal addresses)',
    ]);
  jobsServiceKeys(cfg); // a missing or bad service-token key stops the service here
  privacyKeyring('jobs', cfg); // identity's /internal/privacy calls: its public key must be known
  return cfg;
}

/** jobs signs its calls to payments and accepts admin's calls (service tokens). */
export function jobsServiceKeys(cfg: JobsConfig): ServiceKeyring {
  return ServiceKeyring.fromConfig('jobs', cfg, { signs: true, acceptsFrom: ['admin'] });
}

/** The session checks' thresholds in force (the rules module's defaults, overridden by env). */
export function sessionCheckThresholds(cfg: JobsConfig): SessionCheckThresholds {
  return {
    minRecordingMs: cfg.SESSION_CHECK_MIN_RECORDING_MS,
    minTalkPct: cfg.SESSION_CHECK_MIN_TALK_PCT,
    maxIdleMs: cfg.SESSION_CHECK_MAX_IDLE_MS,
    silenceNoiseDb: cfg.SESSION_CHECK_SILENCE_DB,
    silenceMinMs: cfg.SESSION_CHECK_SILENCE_MIN_MS,
    freezeNoise: cfg.SESSION_CHECK_FREEZE_NOISE,
    freezeFps: cfg.SESSION_CHECK_FREEZE_FPS,
    duplicateContainment: cfg.SESSION_CHECK_DUPLICATE_CONTAINMENT,
    minShingles: cfg.SESSION_CHECK_MIN_SHINGLES,
  };
}
