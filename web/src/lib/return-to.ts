/**
 * Where a signed-out visitor was going (an e-mail's /dashboard?job=… or ?tab=earnings link): kept
 * across the Google sign-in round trip (sessionStorage, this tab only) and taken once after it.
 */
const KEY = 'htm.return_to';

/** Only paths of the dashboard are kept (never another origin). */
const isDashboardPath = (p: string) => /^\/dashboard(?:[/?#]|$)/.test(p);

export function rememberReturnTo(path: string): void {
  try {
    if (isDashboardPath(path) && path !== '/dashboard') sessionStorage.setItem(KEY, path);
  } catch {
    /* storage unavailable: the visitor lands on the dashboard */
  }
}

/** Where to go after sign-in: the remembered dashboard path, or /dashboard. */
export function returnTo(): string {
  try {
    const p = sessionStorage.getItem(KEY);
    if (p && isDashboardPath(p)) return p;
  } catch {
    /* storage unavailable */
  }
  return '/dashboard';
}

/** The dashboard is open: the remembered path has served. */
export function forgetReturnTo(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    /* storage unavailable */
  }
}
