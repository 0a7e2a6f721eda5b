import type { SiteCheckFinding } from '@htm/contracts';

/** A health check finding as site-check writes it (for the summary's tests): the page is slow on a phone. */
export const SLOW_ON_PHONE: SiteCheckFinding = {
  key: 'speed:lcp:phone',
  topic: 'speed',
  impact: 'serious',
  count: 1,
  sizes: ['phone'],
  text: 'The main content took 6.1 s to appear on a phone.',
  rule: null,
};
