import { testRedisPrefix, TEST_REDIS_URL, type TestIssuer } from '@htm/service-kit/testing';
import { startGateway, type RunningGateway } from '../src/main.js';

/** A gateway whose every service is `upstreamUrl` (one test server), trusting `issuer`'s tokens. */
export function startGatewayInFrontOf(
  upstreamUrl: string,
  issuer: TestIssuer,
  label: string,
  env: Record<string, string> = {},
): Promise<RunningGateway> {
  return startGateway(
    {
      LOG_LEVEL: 'silent',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: testRedisPrefix(label),
      IDENTITY_URL: upstreamUrl,
      JOBS_URL: upstreamUrl,
      PAYMENTS_URL: upstreamUrl,
      ADMIN_URL: upstreamUrl,
      IDENTITY_JWKS_URL: issuer.jwksUrl,
      UPSTREAM_TIMEOUT_MS: '20000',
      API_RATE_LIMIT_PER_MINUTE: '100000',
      ...env,
    },
    { port: 0, host: '127.0.0.1', metricsPort: 0 },
  );
}
