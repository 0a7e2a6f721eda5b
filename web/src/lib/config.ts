/** Feature flags (spec section 3): all on in this build. */
export const featureFlags = {
  enable_country_cta: true,
  enable_waitlist_fix: true,
  INLINE_PREVIEW_ENABLED: true,
} as const;

/** The job-posting config set of spec section 3. */
export const jobPostingConfig = {
  /** Always post to /api/jobs. */
  forceJobsEndpoint: true,
  /** No refresh popup: a 401 is refreshed silently once, then retried. */
  disableRefreshPopup: true,
  silentRefreshOnceThenRetry: true,
  /** The admin account can post jobs too. */
  adminHasPosterCapabilities: true,
  structuredErrorLogging: true,
  logRequestFailures: true,
} as const;

export const API_BASE = '/api';
export const REQUEST_TIMEOUT_MS = 10_000;
export const REFRESH_TIMEOUT_MS = 5_000;
export const TOAST_MS = 5_000;
export const STATUS_MS = 3_000;
/** The readable XSRF cookie: `__Secure-XSRF-TOKEN` when the site is served over https, else this. */
export const XSRF_COOKIE = 'XSRF-TOKEN';
export const SECURE_XSRF_COOKIE = `__Secure-${XSRF_COOKIE}`;
export const XSRF_HEADER = 'X-XSRF-TOKEN';
// Business rules (price, tester share, limits) come from the marketplace rules module:
// @htm/contracts/marketplace (and the form limits from @htm/contracts/jobs).
