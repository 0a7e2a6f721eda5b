import { z } from 'zod';
import { baseConfigSchema, loadConfig, assertProductionSecrets, ConfigError, envBool } from '@htm/service-kit';

const HOUR = 3600_000;
const ms = (def: number) => z.coerce.number().int().min(1).default(def);

export const jobsConfigSchema = baseConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).default(8082),
  PAYMENTS_URL: z.string().url().default('http://127.0.0.1:8083'),
  /** Claimed or revision_requested jobs one tester may hold at once. */
  MAX_ACTIVE_CLAIMS: z.coerce.number().int().min(1).default(1),
  /** Timers (ms). CLAIM_TIMEOUT_MS unset: the job's expected_completion_hours. */
  AUTO_ACCEPT_AFTER_MS: ms(96 * HOUR),
  REVISION_WINDOW_MS: ms(48 * HOUR),
  CLAIM_TIMEOUT_MS: z.coerce.number().int().min(1).optional(),
  /** Uploads: local disk under UPLOAD_DIR (default DATA_DIR/uploads) unless S3_BUCKET is set. */
  UPLOAD_DIR: z.string().optional(),
  S3_BUCKET: z.string().min(1).optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ENDPOINT: z.string().url().optional(),
  S3_FORCE_PATH_STYLE: envBool.default(false),
  S3_PREFIX: z.string().default('uploads/'),
  /** Signed file links (`?sig=`): HMAC secret (default derived from SERVICE_TOKEN_SECRET) and lifetime. */
  FILE_URL_SECRET: z.string().min(32).optional(),
  FILE_URL_TTL_MS: ms(15 * 60_000),
  /** Run the timer worker inside the API process (`npm run start` of this service); false when it runs as its own deployment. */
  JOBS_WITH_WORKER: envBool.default(true),
  /** Health and metrics port of the standalone worker (worker-main). */
  WORKER_PORT: z.coerce.number().int().min(0).default(8085),
  /** How long the list of available jobs and tester standings may be answered from memory (ms; 0 = never). Changes empty it at once. */
  READ_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5000),
  /** Timer worker concurrency. */
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(5),
});
export type JobsConfig = z.infer<typeof jobsConfigSchema>;

export function loadJobsConfig(env: Record<string, string | undefined> = process.env): JobsConfig {
  const cfg = loadConfig('jobs', jobsConfigSchema, env);
  assertProductionSecrets(cfg, 'jobs');
  if (cfg.NODE_ENV === 'production' && cfg.FILE_URL_SECRET === undefined && cfg.SERVICE_TOKEN_SECRET.startsWith('dev-only')) {
    throw new ConfigError('jobs', ['FILE_URL_SECRET: must be set in production']);
  }
  return cfg;
}
