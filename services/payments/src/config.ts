import { z } from 'zod';
import { DEFAULT_CASH_OUT_MIN_CENTS } from '@htm/contracts/marketplace';
import {
  PUBLIC_SECRETS,
  baseConfigSchema,
  eventBusConfigSchema,
  loadConfig,
  assertProductionSecrets,
  productionSecretProblems,
  ConfigError,
  envBool,
  ServiceKeyring,
  privacyKeyring,
} from '@htm/service-kit';

/** The development webhook secret of the local provider (never accepted in production). */
export const DEV_LOCAL_WEBHOOK_SECRET = 'whsec_dev_only_local_payments_secret';

const common = baseConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).default(8083),
  /** Where the web app is served; unset = same origin (relative redirects). */
  WEB_ORIGIN: z.string().url().optional(),
  /** Absolute base for URLs handed to outside parties (Stripe success/cancel/onboarding URLs). */
  PUBLIC_URL: z.string().url().default('http://localhost:8080'),
  /** With Stripe: how long a checkout-session or connected-account look-up is reused (ms; 0 = never). */
  PROVIDER_CACHE_MS: z.coerce.number().int().min(0).default(5000),
  /** A tester may cash out (POST /api/tester/cash-out) once their pending earnings reach this many cents. */
  CASH_OUT_MIN_CENTS: z.coerce.number().int().min(1).default(DEFAULT_CASH_OUT_MIN_CENTS),
  /** Allows PAYMENTS_PROVIDER=local with NODE_ENV=production (demo deployments only). */
  PAYMENTS_ALLOW_LOCAL_IN_PRODUCTION: envBool.default(false),
});

const localSchema = common.extend({
  PAYMENTS_PROVIDER: z.literal('local'),
  LOCAL_WEBHOOK_SECRET: z.string().min(16).default(DEV_LOCAL_WEBHOOK_SECRET),
  /** Base URL the local provider posts its signed webhooks to (default: this service's own address). */
  PAYMENTS_SELF_URL: z.string().url().optional(),
});

const stripeSchema = common.extend({
  PAYMENTS_PROVIDER: z.literal('stripe'),
  STRIPE_SECRET_KEY: z
    .string({ error: 'STRIPE_SECRET_KEY is required when PAYMENTS_PROVIDER=stripe' })
    .min(1, { error: 'STRIPE_SECRET_KEY is required when PAYMENTS_PROVIDER=stripe' }),
  STRIPE_WEBHOOK_SECRET: z
    .string({ error: 'STRIPE_WEBHOOK_SECRET is required when PAYMENTS_PROVIDER=stripe' })
    .min(1, { error: 'STRIPE_WEBHOOK_SECRET is required when PAYMENTS_PROVIDER=stripe' }),
  /** Point the SDK at another host (tests: a local stand-in). */
  STRIPE_API_HOST: z.string().optional(),
  STRIPE_API_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  STRIPE_API_PROTOCOL: z.enum(['http', 'https']).optional(),
  STRIPE_MAX_NETWORK_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
});

/** PAYMENTS_PROVIDER=local|stripe (default local) as a discriminated union. */
export const paymentsConfigSchema = z
  .preprocess(
    (env) => {
      const e = { ...(env as Record<string, unknown>) };
      if (e.PAYMENTS_PROVIDER === undefined || e.PAYMENTS_PROVIDER === '')
        e.PAYMENTS_PROVIDER = 'local';
      return e;
    },
    z.discriminatedUnion('PAYMENTS_PROVIDER', [localSchema, stripeSchema]),
  )
  .and(eventBusConfigSchema);
export type PaymentsConfig = z.infer<typeof paymentsConfigSchema>;
export type LocalPaymentsConfig = Extract<PaymentsConfig, { PAYMENTS_PROVIDER: 'local' }>;
export type StripePaymentsConfig = Extract<PaymentsConfig, { PAYMENTS_PROVIDER: 'stripe' }>;

export function loadPaymentsConfig(
  env: Record<string, string | undefined> = process.env,
): PaymentsConfig {
  const cfg = loadConfig('payments', paymentsConfigSchema, env);
  assertProductionSecrets(cfg, 'payments');
  if (cfg.NODE_ENV === 'production' && cfg.PAYMENTS_PROVIDER === 'local') {
    const problems: string[] = [];
    if (!cfg.PAYMENTS_ALLOW_LOCAL_IN_PRODUCTION)
      problems.push(
        'PAYMENTS_PROVIDER: the local (simulated) provider takes no real money; set PAYMENTS_PROVIDER=stripe with STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET, or PAYMENTS_ALLOW_LOCAL_IN_PRODUCTION=true for a demo',
      );
    else
      problems.push(...productionSecretProblems('LOCAL_WEBHOOK_SECRET', cfg.LOCAL_WEBHOOK_SECRET));
    if (problems.length) throw new ConfigError('payments', problems);
  }
  if (cfg.NODE_ENV === 'production' && cfg.PAYMENTS_PROVIDER === 'stripe') {
    // Stripe issues the webhook secret (whsec_...): its entropy is Stripe's, but a value written
    // in this repository lets anyone sign "payment completed" webhooks.
    const v = cfg.STRIPE_WEBHOOK_SECRET.trim();
    if (
      PUBLIC_SECRETS.includes(v) ||
      /^whsec_(dev|test|compose|local)[_-]?only/i.test(v) ||
      /^whsec_dev/i.test(v)
    )
      throw new ConfigError('payments', [
        "STRIPE_WEBHOOK_SECRET: this value is published in the repository; use the signing secret of your endpoint in Stripe's dashboard",
      ]);
  }
  paymentsServiceKeys(cfg); // a missing or bad service-token key stops the service here
  privacyKeyring('payments', cfg); // identity's /internal/privacy calls: its public key must be known
  return cfg;
}

/** payments accepts jobs' calls to /internal/checkout-sessions (service tokens). */
export function paymentsServiceKeys(cfg: PaymentsConfig): ServiceKeyring {
  return ServiceKeyring.fromConfig('payments', cfg, { acceptsFrom: ['jobs'] });
}

/** Base of user-facing return URLs handed to the provider (absolute). */
export function absoluteWebBase(cfg: PaymentsConfig): string {
  return (cfg.WEB_ORIGIN ?? cfg.PUBLIC_URL).replace(/\/+$/, '');
}

/** Base of redirects this service answers itself: relative when WEB_ORIGIN is unset. */
export function redirectBase(cfg: PaymentsConfig): string {
  return cfg.WEB_ORIGIN ? cfg.WEB_ORIGIN.replace(/\/+$/, '') : '';
}
