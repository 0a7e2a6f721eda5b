import { fileURLToPath } from 'node:url';
import type { JWTVerifyGetKey } from 'jose';
import { hostService, type HostedService } from '@htm/events';
import { createRedis, runMain } from '@htm/service-kit';
import { googleConfigured, loadIdentityConfig, type IdentityConfig } from './config.js';
import { mountIdentity, type IdentityDeps } from './app.js';
import { handledEvents, outbox } from './db/schema.js';
import { identityHandlers } from './events/handlers.js';
import { KeyStore } from './tokens/signing-keys.js';

export const migrationsFolder = fileURLToPath(new URL('./db/migrations', import.meta.url));

export type IdentityService = HostedService<IdentityConfig> & { ctx: IdentityDeps };

/** Starts the identity service (PORT 0 = any free port). Used by main, `npm start` and tests. */
export async function startIdentity(env: Record<string, string | undefined> = process.env, opts: { port?: number } = {}): Promise<IdentityService> {
  const config = loadIdentityConfig(env);
  let keys: KeyStore | undefined;
  // Identity verifies its own tokens with its local keys (no HTTP round trip to itself).
  const getKey: JWTVerifyGetKey = (header, token) => {
    if (!keys) throw new Error('signing keys not loaded');
    return keys.getKey(header, token);
  };
  const redis = createRedis(config.REDIS_URL, { lazyConnect: false });
  let deps!: IdentityDeps;
  try {
    const svc = await hostService({
      name: 'identity',
      config,
      migrationsFolder,
      tables: { outbox, handled: handledEvents },
      port: opts.port,
      getKey,
      setup: async (ctx) => {
        keys = new KeyStore(ctx.db, { privateKey: config.JWT_PRIVATE_KEY, previousPublicKeys: config.JWT_PREVIOUS_PUBLIC_KEYS });
        await keys.init();
        deps = Object.assign(ctx, { keys, redis });
        if (!googleConfigured(config)) ctx.logger.warn('Google sign-in is not configured: DEV sign-in is active (never in production)');
        return {
          app: (createHttp) => createHttp((app) => mountIdentity(app, deps)),
          handlers: identityHandlers(deps),
          readiness: { redis: () => redis.ping() },
          stop: async () => {
            redis.disconnect();
          },
        };
      },
    });
    return svc as IdentityService;
  } catch (err) {
    redis.disconnect();
    throw err;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runMain('identity', () => startIdentity());
}
