/**
 * Config fails at boot in one list, in every service (issue #18 item 5): each service's schema
 * includes the shared EVENT_BUS discriminated union, so EVENT_BUS=kafka without KAFKA_BROKERS is
 * reported by its config loader together with its other bad keys, in one ConfigError.
 */
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@htm/service-kit';
import { loadAdminConfig } from '@htm/admin';
import { loadAnalyticsConfig } from '@htm/analytics';
import { loadGatewayConfig } from '@htm/gateway';
import { loadIdentityConfig } from '@htm/identity';
import { loadJobsConfig } from '@htm/jobs';
import { loadNotificationsConfig } from '@htm/notifications';
import { loadPaymentsConfig } from '@htm/payments';
import { loadSiteCheckConfig } from '@htm/site-check';

const loaders: Record<string, (env: Record<string, string | undefined>) => unknown> = {
  admin: loadAdminConfig,
  analytics: loadAnalyticsConfig,
  gateway: loadGatewayConfig,
  identity: loadIdentityConfig,
  jobs: loadJobsConfig,
  notifications: loadNotificationsConfig,
  payments: loadPaymentsConfig,
  'site-check': loadSiteCheckConfig,
};

function configError(load: () => unknown): ConfigError {
  try {
    load();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('the loader accepted the environment');
}

describe.each(Object.entries(loaders))('%s config', (service, load) => {
  it('names KAFKA_BROKERS (EVENT_BUS=kafka) and the other bad key in one error at boot', () => {
    const err = configError(() => load({ NODE_ENV: 'test', EVENT_BUS: 'kafka', PORT: 'eighty' }));
    expect(err.service).toBe(service);
    expect(err.problems.map((p) => p.split(':')[0]).sort()).toEqual(['KAFKA_BROKERS', 'PORT']);
    expect(err.message).toContain('KAFKA_BROKERS: must be set when EVENT_BUS=kafka');
  });

  it('boots with EVENT_BUS=kafka and its brokers, and with the default Redis Streams', () => {
    expect(
      load({ NODE_ENV: 'test', EVENT_BUS: 'kafka', KAFKA_BROKERS: '127.0.0.1:9092' }),
    ).toMatchObject({ EVENT_BUS: 'kafka', KAFKA_BROKERS: '127.0.0.1:9092' });
    expect(load({ NODE_ENV: 'test' })).toMatchObject({ EVENT_BUS: 'redis' });
  });
});
