import { createHmac, timingSafeEqual } from 'node:crypto';
import { NOTIFICATION_KINDS, type NotificationKind } from '@htm/contracts';

/**
 * One-click unsubscribe tokens: `<base64url(userId|kind)>.<HMAC-SHA256>` (no expiry: a link in an
 * old e-mail keeps working). Pure: the secret is passed in.
 */
export function signUnsubscribeToken(
  secret: string,
  userId: string,
  kind: NotificationKind,
): string {
  const payload = Buffer.from(`${userId}|${kind}`).toString('base64url');
  return `${payload}.${mac(secret, payload)}`;
}

export function verifyUnsubscribeToken(
  secret: string,
  token: string,
): { userId: string; kind: NotificationKind } | undefined {
  const [payload, sig, extra] = token.split('.');
  if (!payload || !sig || extra !== undefined) return undefined;
  const expected = Buffer.from(mac(secret, payload));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  const [userId, kind] = Buffer.from(payload, 'base64url').toString('utf8').split('|');
  if (!userId || !(NOTIFICATION_KINDS as readonly string[]).includes(kind ?? '')) return undefined;
  return { userId, kind: kind as NotificationKind };
}

function mac(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(`unsubscribe:${payload}`).digest('base64url');
}
