/**
 * What a visitor set out to do when they went to Google sign-in ('Get Your Site Tested' and the
 * site-owner sign-in: poster; the Tester Login: tester), kept in this tab across the round trip so
 * Choose Your Role can preselect it.
 */
export type SignInIntent = 'poster' | 'tester';
const KEY = 'htm.sign_in_intent';

export function rememberIntent(intent: SignInIntent): void {
  try {
    sessionStorage.setItem(KEY, intent);
  } catch {
    /* storage unavailable: nothing is preselected */
  }
}

export function rememberedIntent(): SignInIntent | null {
  try {
    const v = sessionStorage.getItem(KEY);
    return v === 'poster' || v === 'tester' ? v : null;
  } catch {
    return null;
  }
}
