import {
  NOTIFICATION_KIND_INFO,
  NOTIFICATION_KINDS,
  NOTIFICATION_MESSAGES,
  notificationKindOn,
  type NotificationKind,
  type NotificationPreferences,
  type NotificationPreferencesBody,
} from '@htm/contracts';
import type { Db } from '@htm/service-kit/db';
import { AppError } from '@htm/service-kit/errors';
import { preferencesOf, setPreferences } from '../db/message.repository.js';
import { verifyUnsubscribeToken } from './unsubscribe-token.js';

const asPreferences = (p: { disabled: string[]; enabled: string[] }): NotificationPreferences =>
  Object.fromEntries(
    NOTIFICATION_KINDS.map((k) => [k, notificationKindOn(k, p)]),
  ) as NotificationPreferences;

export async function readPreferences(db: Db, userId: string): Promise<NotificationPreferences> {
  return asPreferences(await preferencesOf(db, userId));
}

/** PATCH: switches the given kinds on or off, leaves the others as they were. */
export async function updatePreferences(
  db: Db,
  userId: string,
  body: NotificationPreferencesBody,
): Promise<NotificationPreferences> {
  return db.transaction(async (tx) => {
    const before = await preferencesOf(tx, userId);
    // Opt-in kinds (off until switched on) are kept in `enabled`, the others in `disabled`.
    const off = new Set(before.disabled);
    const on = new Set(before.enabled);
    for (const [kind, value] of Object.entries(body)) {
      if (typeof value !== 'boolean') continue;
      const optIn = NOTIFICATION_KIND_INFO[kind as keyof typeof NOTIFICATION_KIND_INFO]?.optIn;
      if (optIn) {
        if (value) on.add(kind);
        else on.delete(kind);
      } else if (value) off.delete(kind);
      else off.add(kind);
    }
    const next = {
      disabled: NOTIFICATION_KINDS.filter((k) => off.has(k)),
      enabled: NOTIFICATION_KINDS.filter((k) => on.has(k)),
    };
    await setPreferences(tx, userId, next);
    return asPreferences(next);
  });
}

/** What an unsubscribe link would switch off (nothing changes): 400 invalid_token for a bad link. */
export function checkUnsubscribeToken(
  secret: string,
  token: string,
): { userId: string; kind: NotificationKind } {
  const who = verifyUnsubscribeToken(secret, token);
  if (!who)
    throw AppError.invalid(
      NOTIFICATION_MESSAGES.tokenInvalid,
      { token: [NOTIFICATION_MESSAGES.tokenInvalid] },
      'invalid_token',
    );
  return who;
}

/** One-click unsubscribe: the token names the user and the kind they switch off. */
export async function unsubscribe(
  db: Db,
  secret: string,
  token: string,
): Promise<{ userId: string; kind: NotificationKind }> {
  const who = checkUnsubscribeToken(secret, token);
  await updatePreferences(db, who.userId, { [who.kind]: false });
  return who;
}
