import type { Express } from 'express';
import cookieParser from 'cookie-parser';
import type { ServiceContext } from '@htm/events';
import type { Redis } from '@htm/service-kit';
import type { IdentityConfig } from './config.js';
import type { KeyStore } from './tokens/signing-keys.js';
import { adminTesterRoutes } from './http/admin-testers.routes.js';
import { authRoutes } from './http/auth.routes.js';
import { jwksRoutes } from './http/jwks.routes.js';
import { userRoutes } from './http/users.routes.js';

export type IdentityDeps = ServiceContext<IdentityConfig> & {
  /** Access-token signing keys (also verify identity's own tokens). */
  keys: KeyStore;
  /** Rate-limit counters. */
  redis: Redis;
};

/** The identity service's routes (health, errors and 404 come from createHttp). */
export function mountIdentity(app: Express, deps: IdentityDeps): void {
  app.use(cookieParser());
  app.use(jwksRoutes(deps));
  app.use(authRoutes(deps));
  app.use(userRoutes(deps));
  app.use(adminTesterRoutes(deps));
}
