/**
 * Access-token storage. The token is written to sessionStorage under both
 * 'access_token' and the spec's legacy 'token' key; reads also accept tokens
 * a previous version left in localStorage.
 *
 * A Logout in any tab ends the session in every tab of the browser: it writes a new
 * logout mark to localStorage (shared by the tabs), and a token counts only while the mark
 * it was stored under is still the current one. So a tab that stored its token before the
 * logout (sessionStorage is per tab) finds it void, even after a reload.
 */
const KEYS = ['access_token', 'token'] as const;
/** localStorage: the id of the last Logout in this browser. */
export const LOGOUT_MARK_KEY = 'auth_logout_mark';
/** sessionStorage: the logout mark current when the token was stored. */
const TOKEN_MARK_KEY = 'access_token_mark';

function logoutMark(): string {
  try {
    return window.localStorage.getItem(LOGOUT_MARK_KEY) ?? '';
  } catch {
    return '';
  }
}

/** True when this tab's token was stored before the last Logout of any tab. */
function sessionTokenOutlivedLogout(): boolean {
  try {
    return (window.sessionStorage.getItem(TOKEN_MARK_KEY) ?? '') !== logoutMark();
  } catch {
    return false;
  }
}

function stores(): Storage[] {
  const out: Storage[] = [];
  try {
    out.push(window.sessionStorage);
  } catch {
    /* storage disabled */
  }
  try {
    out.push(window.localStorage);
  } catch {
    /* storage disabled */
  }
  return out;
}

export function getToken(): string | null {
  if (sessionTokenOutlivedLogout()) clearTokens();
  for (const s of stores()) {
    for (const k of KEYS) {
      const v = s.getItem(k);
      if (v) return v;
    }
  }
  return null;
}

export function setToken(token: string): void {
  try {
    for (const k of KEYS) window.sessionStorage.setItem(k, token);
    window.sessionStorage.setItem(TOKEN_MARK_KEY, logoutMark());
  } catch {
    /* storage disabled: the refresh cookie still restores the session */
  }
}

export function clearTokens(): void {
  for (const s of stores()) {
    for (const k of [...KEYS, 'refresh_token', TOKEN_MARK_KEY]) s.removeItem(k);
  }
}

/** Logout: forgets the tokens and voids those every other tab of this browser holds. */
export function markLoggedOut(): void {
  clearTokens();
  try {
    window.localStorage.setItem(LOGOUT_MARK_KEY, correlationId());
  } catch {
    /* storage disabled: the other tabs still hear the broadcast */
  }
}

export function readCookie(name: string, cookies?: string): string | null {
  if (cookies === undefined && typeof document === 'undefined') return null;
  const prefix = `${name}=`;
  for (const part of (cookies ?? document.cookie).split(';')) {
    const p = part.trim();
    if (p.startsWith(prefix)) return decodeURIComponent(p.slice(prefix.length));
  }
  return null;
}

export function correlationId(): string {
  const c = globalThis.crypto as Crypto | undefined;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  const b = new Uint8Array(16);
  if (c?.getRandomValues) c.getRandomValues(b);
  else for (let i = 0; i < 16; i++) b[i] = Math.floor(Math.random() * 256);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
