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

/**
 * Parses `env` with a zod schema once at boot; fails fast listing every bad key. A service's
 * schema is `baseConfigSchema.extend({...}).and(eventBusConfigSchema)`, so rules between keys
 * (EVENT_BUS=kafka needs KAFKA_BROKERS) are zod issues reported in the same list as the rest.
 */
export function loadConfig<S extends z.ZodType>(
  service: string,
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      service,
      parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
    );
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
  /** OpenTelemetry: OTLP/HTTP collector URL; set, every request is traced (docs/operations.md). Unset: off. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /**
   * Development only: each service's service-token key is derived from this and its name when
   * no keys are configured (see service-token.ts). Production uses SERVICE_TOKEN_PRIVATE_KEY and SERVICE_TOKEN_PUBLIC_KEYS.
   */
  SERVICE_TOKEN_SECRET: z.string().min(32).default('dev-only-service-token-secret-change-me!!'),
  /** The development secret before the last change, still accepted on /internal routes. */
  SERVICE_TOKEN_PREVIOUS_SECRET: z.string().min(32).optional(),
  /** This service's own ES256 key for calls to other services' /internal routes (PKCS8 PEM or private JWK). Required in production for jobs and admin. */
  SERVICE_TOKEN_PRIVATE_KEY: z.string().optional(),
  /** Public keys of the services allowed to call this one: JSON {"jobs": "PEM or JWK" or [new, previous]}. Required in production for jobs and payments. */
  SERVICE_TOKEN_PUBLIC_KEYS: z.string().optional(),
  JWT_ISSUER: z.string().default('htm-identity'),
  JWT_AUDIENCE: z.string().default('htm-api'),
  IDENTITY_URL: z.string().url().default('http://127.0.0.1:8081'),
  /** Where access-token keys are published; defaults to IDENTITY_URL + /internal/jwks. */
  IDENTITY_JWKS_URL: z.string().url().optional(),
  ADMIN_EMAIL: z.string().email().optional(),
  TRUST_PROXY: bool.default(false),
  /** Interface the HTTP server binds: loopback by default; containers set 0.0.0.0. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** On SIGTERM, how long /readyz answers 503 while requests are still served, before the server stops (ms). */
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(9000).default(0),
});

/** Settings of Kafka consumers, read with either transport (unset keys keep kafkajs' defaults). */
const kafkaTiming = {
  /** Kafka consumers: longest a fetch waits on an idle partition, ms (kafkajs default 5000). */
  KAFKA_MAX_WAIT_MS: z.coerce.number().int().positive().optional(),
  /** Kafka consumers: a member silent this long leaves its group, ms (kafkajs default 30000). */
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  /** Kafka consumers: heartbeat interval, ms (kafkajs default 3000; below the session timeout). */
  KAFKA_HEARTBEAT_INTERVAL_MS: z.coerce.number().int().positive().optional(),
};

const KAFKA_BROKERS_REQUIRED = 'must be set when EVENT_BUS=kafka (comma-separated host:port list)';

/**
 * The event transport, EVENT_BUS=redis|kafka (default redis), as a discriminated union: kafka
 * requires KAFKA_BROKERS. Every service's schema includes it (`.and(eventBusConfigSchema)`), so a
 * missing broker list is reported at boot with the other bad keys, and a parsed config's type
 * says that a Kafka bus has its brokers.
 */
export const eventBusConfigSchema = z.discriminatedUnion(
  'EVENT_BUS',
  [
    z.object({
      /** redis (Redis Streams, default) or kafka (needs KAFKA_BROKERS). */
      EVENT_BUS: z.literal('redis').default('redis'),
      KAFKA_BROKERS: z.string().optional(),
      ...kafkaTiming,
    }),
    z.object({
      EVENT_BUS: z.literal('kafka'),
      KAFKA_BROKERS: z
        .string({ error: KAFKA_BROKERS_REQUIRED })
        .refine((v) => v.trim() !== '', { error: KAFKA_BROKERS_REQUIRED }),
      ...kafkaTiming,
    }),
  ],
  {
    error: (issue) =>
      issue.code === 'invalid_union'
        ? 'Invalid option: expected one of "redis"|"kafka"'
        : undefined,
  },
);
export type EventBusConfig = z.infer<typeof eventBusConfigSchema>;

/** The shared settings: baseConfigSchema's keys and the event transport. */
export type BaseConfig = z.infer<typeof baseConfigSchema> & EventBusConfig;

/**
 * Every secret value written down anywhere in this repository (code defaults, docker-compose,
 * the k8s dev overlay, .env.example, test helpers). They are public: production refuses them.
 * The test `packages/service-kit/test/public-secrets.test.ts` checks that the list is complete.
 */
export const PUBLIC_SECRETS: readonly string[] = [
  'dev-only-service-token-secret-change-me!!',
  'dev-only-identity-auth-secret-change-me!!',
  'compose-only-service-token-secret-0123456789',
  'compose-only-file-url-secret-0123456789abcdef',
  'compose-only-identity-auth-secret-0123456789',
  'dev-cluster-service-token-secret-0123456789',
  'dev-cluster-identity-auth-secret-0123456789',
  'dev-cluster-file-url-secret-0123456789abcdef',
  'whsec_dev_only_local_payments_secret',
  'admin-tests-service-token-secret-0123456789',
  'test-service-token-secret-0123456789abcdef',
  'CHANGE_ME',
];

/** The placeholder ADMIN_EMAIL of the repository's defaults and overlays: refused in production. */
export const PLACEHOLDER_ADMIN_EMAIL = 'admin@gmail.com';

/** Minimum estimated entropy of a production secret, in bytes. */
export const MIN_SECRET_ENTROPY_BYTES = 32;

/**
 * A rough upper bound of a secret's entropy in bytes: length × log2(alphabet of the character
 * classes it uses), and no more than its distinct characters allow. `openssl rand -base64 32`
 * and `openssl rand -hex 32` pass; words, repeats and short strings do not.
 */
export function secretEntropyBytes(value: string): number {
  let pool = 0;
  if (/[a-z]/.test(value)) pool += 26;
  if (/[A-Z]/.test(value)) pool += 26;
  if (/[0-9]/.test(value)) pool += 10;
  if (/[^a-zA-Z0-9]/.test(value)) pool += 32;
  const distinct = new Set(value).size;
  const perChar = Math.log2(Math.max(1, Math.min(pool, distinct * 2)));
  return (value.length * perChar) / 8;
}

/** What is wrong with `value` as the production secret `name` (nothing: an empty list). */
export function productionSecretProblems(name: string, value: string | undefined): string[] {
  if (!value) return [`${name}: must be set in production`];
  const v = value.trim();
  if (PUBLIC_SECRETS.includes(v) || /^(dev-only|compose-only|dev-cluster)/.test(v)) {
    return [
      `${name}: this value is published in the repository; generate a new one (openssl rand -base64 48)`,
    ];
  }
  if (secretEntropyBytes(v) < MIN_SECRET_ENTROPY_BYTES) {
    return [
      `${name}: too weak; use at least ${MIN_SECRET_ENTROPY_BYTES} random bytes (openssl rand -base64 48)`,
    ];
  }
  return [];
}

/**
 * Refuses public or weak secrets (`extra`: the service's own), the placeholder admin and a
 * missing database in production. (Service-token keys are checked by ServiceKeyring.fromConfig.)
 */
export function assertProductionSecrets(
  cfg: Pick<BaseConfig, 'NODE_ENV' | 'DATABASE_URL' | 'ADMIN_EMAIL'>,
  service: string,
  extra: Record<string, string | undefined> = {},
): void {
  if (cfg.NODE_ENV !== 'production') return;
  const problems: string[] = [];
  for (const [name, value] of Object.entries(extra))
    problems.push(...productionSecretProblems(name, value));
  if (!cfg.DATABASE_URL) problems.push('DATABASE_URL: must be set in production');
  if (cfg.ADMIN_EMAIL && cfg.ADMIN_EMAIL.trim().toLowerCase() === PLACEHOLDER_ADMIN_EMAIL) {
    problems.push(
      `ADMIN_EMAIL: ${PLACEHOLDER_ADMIN_EMAIL} is the repository's placeholder; name your real admin account`,
    );
  }
  if (problems.length) throw new ConfigError(service, problems);
}

export { bool as envBool };
