import { identityMessages } from '@htm/contracts/identity-messages';

/** Messages for `#auth_error=CODE` after a failed Google sign-in. */
export const AUTH_ERROR_MESSAGES: Record<string, string> = {
  gmail_only: 'Other e-mail providers coming soon',
  tester_not_approved:
    'Your tester account is not approved yet. We will e-mail you once an admin approves your signup.',
  tester_released: identityMessages.testerReleased,
  tester_signup_needed:
    'This is the tester entrance, and this Google account is not signed up as a tester yet. Sign up to test first; we will e-mail you once an admin approves you.',
  tester_signup_pending:
    'Thanks for signing up to test. An admin has not approved your signup yet; we will e-mail you as soon as they do. There is no need to sign up again.',
  site_owner_account:
    'This is the tester entrance, and this Google account is a site owner account. Sign in as a site owner to post jobs and read your results.',
  google_failed: 'Google authentication failed',
};

/** The refusals that belong on the Secure Tester Login page (intent=tester). */
export const TESTER_ENTRANCE_CODES = [
  'tester_not_approved',
  'tester_released',
  'tester_signup_needed',
  'tester_signup_pending',
  'site_owner_account',
];

export const SESSION_EXPIRED = 'Session expired. Please log in again.';
/** The spec's banner above the login screen after auth-expired (beside SESSION_EXPIRED). */
export const SESSION_EXPIRED_BANNER = 'Session expired. Re-login required.';

export function authErrorMessage(code: string | null | undefined): string | null {
  if (!code) return null;
  return AUTH_ERROR_MESSAGES[code] ?? 'Google authentication failed';
}
