/** Pure sign-in rules (no I/O). */

const GMAIL_DOMAINS = new Set(['gmail.com', 'googlemail.com']);

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** True for the single admin account named by ADMIN_EMAIL. */
export function isAdminEmail(email: string, adminEmail: string | undefined): boolean {
  return Boolean(adminEmail) && normaliseEmail(email) === adminEmail;
}

/**
 * Only verified Gmail addresses may sign in; the ADMIN_EMAIL account may use any verified
 * address (e.g. a Workspace account in production).
 */
export function mayUseEmail(
  email: string,
  verified: boolean,
  adminEmail: string | undefined,
): boolean {
  if (!verified) return false;
  const e = normaliseEmail(email);
  if (isAdminEmail(e, adminEmail)) return true;
  const at = e.lastIndexOf('@');
  if (at < 1) return false;
  return GMAIL_DOMAINS.has(e.slice(at + 1));
}
