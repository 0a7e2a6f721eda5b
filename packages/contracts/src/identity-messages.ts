/**
 * Identity's user-facing copy, with no zod: the web app's landing and sign-in pages import it
 * without pulling the schemas (and zod) into their initial JavaScript. Re-exported by ./identity.
 */
export const identityMessages = {
  role: 'Please choose a role',
  location: 'Please choose a location',
  country: 'Please choose a country',
  approved: 'Please say whether the tester is approved',
  sessionId: 'A sign-in session id is required',
  /** Sign-in refusal and dashboard copy for a tester unapproved by the strike rule. */
  testerReleased:
    'Your tester account was paused after missed deadlines (jobs not submitted in time). An admin must re-approve it before you can take jobs again.',
} as const;
