import { fileURLToPath } from 'node:url';
import type { JWTVerifyGetKey } from 'jose';
import { hostService, type HostedService } from '@htm/events';
import { createRequestRedis, diskSpaceCheck, runMain } from '@htm/service-kit';
import {
  devSignInEnabled,
  identityServiceKeys,
  loadIdentityConfig,
  type IdentityConfig,
} from './config.js';
import { createPrivacyClient } from './clients/privacy.client.js';
import { exportDir, startPrivacySweep } from './domain/privacy.js';
import { reconcileAdminRole } from './domain/admin-role.js';
import { mountIdentity } from './app.js';
import type { IdentityDeps } from './deps.js';
import { handledEvents, outbox } from './db/schema.js';
import { identityHandlers } from './events/handlers.js';
import { KeyStore } from './providers/signing-keys.js';

export const migrationsFolder = fileURLToPath(new URL('./db/migrations', import.meta.url));

export type IdentityService = HostedService<IdentityConfig> & {
  ctx: IdentityDeps;
  privacySweep: { runNow(): Promise<void> };
};

/** Starts the identity service (PORT 0 = any free port). Used by main, `npm start` and tests. */
export async function startIdentity(
  env: Record<string, string | undefined> = process.env,
  opts: { port?: number } = {},
): Promise<IdentityService> {
  const config = loadIdentityConfig(env);
  let keys: KeyStore | undefined;
  // Identity verifies its own tokens with its local keys (no HTTP round trip to itself).
  const getKey: JWTVerifyGetKey = (header, token) => {
    if (!keys) throw new Error('signing keys not loaded');
    return keys.getKey(header, token);
  };
  // Every command bounded, so a hung Redis never holds a sign-in or a logout for long: rate-limit
  // calls give up after 200 ms (http/rate-limit.ts), session revocations after 2 s.
  const redis = createRequestRedis(config.REDIS_URL, { lazyConnect: false, commandTimeout: 2000 });
  let deps!: IdentityDeps;
  let sweep: ReturnType<typeof startPrivacySweep> | undefined;
  const serviceKeys = identityServiceKeys(config);
  const privacy = createPrivacyClient({
    urls: {
      jobs: config.JOBS_URL,
      payments: config.PAYMENTS_URL,
      admin: config.ADMIN_URL,
      notifications: config.NOTIFICATIONS_URL,
      analytics: config.ANALYTICS_URL,
    },
    keys: serviceKeys,
  });
  try {
    const svc = await hostService({
      name: 'identity',
      config,
      migrationsFolder,
      tables: { outbox, handled: handledEvents },
      port: opts.port,
      getKey,
      setup: async (ctx) => {
        keys = new KeyStore(ctx.db, {
          privateKey: config.JWT_PRIVATE_KEY,
          previousPublicKeys: config.JWT_PREVIOUS_PUBLIC_KEYS,
        });
        await keys.init();
        deps = Object.assign(ctx, { keys, redis, privacy });
        if (devSignInEnabled(config)) {
          const warning =
            'DEV SIGN-IN IS ON: anyone who can reach this server can sign in as anyone, the admin included (DEV_SIGN_IN=true, no Google configured). Never expose it beyond this machine.';
          ctx.logger.warn(warning);
          if (config.LOG_LEVEL !== 'silent') process.stderr.write(`\n!!! ${warning}\n\n`);
        }
        return {
          app: (createHttp) => createHttp((app) => mountIdentity(app, deps)),
          handlers: identityHandlers(deps),
          readiness: {
            redis: () => redis.ping(),
            disk: diskSpaceCheck(exportDir(deps), config.MIN_FREE_DISK_BYTES),
          },
          start: async () => {
            sweep = startPrivacySweep(deps);
          },
          stop: async () => {
            await sweep?.stop();
            redis.disconnect();
          },
        };
      },
    });
    // Before anyone refreshes: the admin role follows ADMIN_EMAIL as configured now.
    await reconcileAdminRole(deps).catch(async (err: unknown) => {
      await svc.stop();
      throw err;
    });
    return Object.assign(svc, {
      privacySweep: { runNow: () => sweep?.runNow() ?? Promise.resolve() },
    }) as IdentityService;
  } catch (err) {
    redis.disconnect();
    throw err;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runMain('identity', () => startIdentity());
}
