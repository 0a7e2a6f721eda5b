import { identityMessages } from '@htm/contracts/identity';

/** Messages for `#auth_error=CODE` after a failed Google sign-in. */
export const AUTH_ERROR_MESSAGES: Record<string, string> = {
  gmail_only: 'Other e-mail providers coming soon',
  tester_not_approved:
    'Your tester account is not approved yet. We will e-mail you once an admin approves your signup.',
  tester_released: identityMessages.testerReleased,
  google_failed: 'Google authentication failed',
};

export const SESSION_EXPIRED = 'Session expired. Please log in again.';

export function authErrorMessage(code: string | null | undefined): string | null {
  if (!code) return null;
  return AUTH_ERROR_MESSAGES[code] ?? 'Google authentication failed';
}
