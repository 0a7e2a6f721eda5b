import { useSyncExternalStore } from 'react';

/** Who runs the product and how to reach them: the gateway's OPERATOR_NAME, OPERATOR_ADDRESS and SUPPORT_EMAIL. */
export interface SiteInfo {
  operator: string | null;
  address: string | null;
  supportEmail: string | null;
}

const NONE: SiteInfo = { operator: null, address: null, supportEmail: null };
let cached: SiteInfo | null = null;

/** The <meta name="htm:..."> tags the gateway adds to the page's head (only those configured). */
export function readSiteInfo(doc: Document = document): SiteInfo {
  const meta = (name: string) =>
    doc.querySelector<HTMLMetaElement>(`meta[name="htm:${name}"]`)?.content.trim() || null;
  return {
    operator: meta('operator'),
    address: meta('operator-address'),
    supportEmail: meta('support-email'),
  };
}

const snapshot = () => (cached ??= readSiteInfo());
const subscribe = () => () => undefined;

/**
 * The operator's details, shown only where they are set. The prerendered landing page is built
 * without them (they are configuration): the hydrating render matches it, then shows them.
 */
export function useSiteInfo(): SiteInfo {
  return useSyncExternalStore(subscribe, snapshot, () => NONE);
}

/** Tests: read the meta tags again. */
export function resetSiteInfo(): void {
  cached = null;
}
