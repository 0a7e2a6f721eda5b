import { z } from 'zod';

/** Thrown at boot when the environment is wrong; names every bad key at once. */
export class ConfigError extends Error {
  constructor(
    readonly service: string,
    readonly problems: string[],
  ) {
    super(`${service}: invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** Parses `env` with a zod schema once at boot; fails fast listing every bad key. */
export function loadConfig<S extends z.ZodType>(
  service: string,
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ConfigError(service, problems);
  }
  return parsed.data;
}

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Settings every service reads. Services extend this with their own keys. */
export const baseConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** node-postgres when set, else PGlite under DATA_DIR/<service>. */
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('.data'),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /** Prefix for every Redis key (streams, queues, rate limits): lets tests share one Redis. */
  REDIS_PREFIX: z.string().default('htm:'),
  EVENT_BUS: z.enum(['redis', 'kafka']).default('redis'),
  KAFKA_BROKERS: z.string().optional(),
  /** Shared secret for internal service tokens (HS256). Required in production. */
  SERVICE_TOKEN_SECRET: z.string().min(32).default('dev-only-service-token-secret-change-me!!'),
  /** The secret before the last rotation, still accepted on /internal routes until every caller has the new one. */
  SERVICE_TOKEN_PREVIOUS_SECRET: z.string().min(32).optional(),
  JWT_ISSUER: z.string().default('htm-identity'),
  JWT_AUDIENCE: z.string().default('htm-api'),
  IDENTITY_URL: z.string().url().default('http://127.0.0.1:8081'),
  /** Where access-token keys are published; defaults to IDENTITY_URL + /internal/jwks. */
  IDENTITY_JWKS_URL: z.string().url().optional(),
  ADMIN_EMAIL: z.string().email().optional(),
  TRUST_PROXY: bool.default(false),
  /** Interface the HTTP server binds: loopback by default; containers set 0.0.0.0. */
  HOST: z.string().min(1).default('127.0.0.1'),
});
export type BaseConfig = z.infer<typeof baseConfigSchema>;

/** The secrets /internal routes accept: the current one, then the previous one during a rotation. */
export function serviceTokenSecrets(cfg: Pick<BaseConfig, 'SERVICE_TOKEN_SECRET' | 'SERVICE_TOKEN_PREVIOUS_SECRET'>): string[] {
  return [cfg.SERVICE_TOKEN_SECRET, ...(cfg.SERVICE_TOKEN_PREVIOUS_SECRET ? [cfg.SERVICE_TOKEN_PREVIOUS_SECRET] : [])];
}

/** Refuses the development defaults of secrets in production. */
export function assertProductionSecrets(cfg: BaseConfig, service: string): void {
  if (cfg.NODE_ENV !== 'production') return;
  const problems: string[] = [];
  if (cfg.SERVICE_TOKEN_SECRET.startsWith('dev-only')) problems.push('SERVICE_TOKEN_SECRET: must be set in production');
  if (!cfg.DATABASE_URL) problems.push('DATABASE_URL: must be set in production');
  if (problems.length) throw new ConfigError(service, problems);
}

export { bool as envBool };
