import { accessSync, constants } from 'node:fs';
import type { Logger } from 'pino';
import type { SiteCheckConfig } from '../config.js';
import type { SiteRunner } from '../domain/runner.js';
import type { Connect, Resolve } from './egress-proxy.js';
import { runSiteCheck } from './site-runner.js';

/** The product's token at the end of the check's user agent. */
export const SITE_CHECK_PRODUCT = 'HumanTest-SiteCheck/1.0';

/** Whether Debian's Chromium (or the configured browser) is installed and runnable. */
export function chromiumMissing(path: string): string | null {
  try {
    accessSync(path, constants.X_OK);
    return null;
  } catch {
    return `no browser at ${path} (install Debian's chromium: apt-get install chromium)`;
  }
}

/** The runner of the service: Chromium through the egress proxy, with the configured limits. */
export function createChromiumRunner(
  config: SiteCheckConfig,
  logger: Logger,
  network: { resolve?: Resolve; connect?: Connect } = {},
): SiteRunner {
  const missing = chromiumMissing(config.SITE_CHECK_CHROMIUM_PATH);
  return {
    available: !missing,
    unavailableReason: missing,
    run: (url) =>
      runSiteCheck(url, {
        chromePath: config.SITE_CHECK_CHROMIUM_PATH,
        allowPrivate: config.SITE_CHECK_ALLOW_PRIVATE,
        pageTimeoutMs: config.SITE_CHECK_PAGE_TIMEOUT_MS,
        checkTimeoutMs: config.SITE_CHECK_TIMEOUT_MS,
        memoryLimitMb: config.SITE_CHECK_MEMORY_LIMIT_MB,
        lighthouse: config.SITE_CHECK_LIGHTHOUSE,
        maxLinks: config.SITE_CHECK_MAX_LINKS,
        userAgent: SITE_CHECK_PRODUCT,
        logger,
        ...network,
      }),
  };
}
