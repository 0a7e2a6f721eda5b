import { LOGOUT_MARK_KEY, markLoggedOut } from './tokens';

/**
 * Logout in one tab signs out every tab of the browser. The tab that logs out writes a new
 * logout mark (tokens.ts: tokens stored before it no longer count, also after a reload) and
 * posts on a BroadcastChannel; the other tabs hear the channel, or the `storage` event of
 * the mark where BroadcastChannel is missing, and return to the signed-out view at once.
 */
const CHANNEL_NAME = 'htm-session';
const LOGOUT_MESSAGE = 'logout';

let channel: BroadcastChannel | null | undefined;

function sessionChannel(): BroadcastChannel | null {
  if (channel === undefined) {
    try {
      channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL_NAME) : null;
    } catch {
      channel = null;
    }
  }
  return channel;
}

/** This tab logged out: void every tab's token and tell the open tabs. */
export function announceLogout(): void {
  markLoggedOut();
  sessionChannel()?.postMessage({ type: LOGOUT_MESSAGE });
}

/** Runs `onLogout` when another tab of this browser logs out; returns the unsubscribe. */
export function onLogoutInOtherTab(onLogout: () => void): () => void {
  const ch = sessionChannel();
  const onMessage = (e: MessageEvent) => {
    if ((e.data as { type?: unknown } | null)?.type === LOGOUT_MESSAGE) onLogout();
  };
  const onStorage = (e: StorageEvent) => {
    if (e.key === LOGOUT_MARK_KEY && e.newValue) onLogout();
  };
  ch?.addEventListener('message', onMessage);
  window.addEventListener('storage', onStorage);
  return () => {
    ch?.removeEventListener('message', onMessage);
    window.removeEventListener('storage', onStorage);
  };
}
