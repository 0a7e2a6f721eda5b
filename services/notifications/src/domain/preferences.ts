import {
  NOTIFICATION_KINDS,
  NOTIFICATION_MESSAGES,
  type NotificationKind,
  type NotificationPreferences,
  type NotificationPreferencesBody,
} from '@htm/contracts';
import type { Db } from '@htm/service-kit/db';
import { AppError } from '@htm/service-kit/errors';
import { disabledKinds, setDisabledKinds } from '../db/message.repository.js';
import { verifyUnsubscribeToken } from './unsubscribe-token.js';

const asPreferences = (disabled: string[]): NotificationPreferences =>
  Object.fromEntries(
    NOTIFICATION_KINDS.map((k) => [k, !disabled.includes(k)]),
  ) as NotificationPreferences;

export async function readPreferences(db: Db, userId: string): Promise<NotificationPreferences> {
  return asPreferences(await disabledKinds(db, userId));
}

/** PATCH: switches the given kinds on or off, leaves the others as they were. */
export async function updatePreferences(
  db: Db,
  userId: string,
  body: NotificationPreferencesBody,
): Promise<NotificationPreferences> {
  return db.transaction(async (tx) => {
    const off = new Set(await disabledKinds(tx, userId));
    for (const [kind, on] of Object.entries(body)) {
      if (on === true) off.delete(kind);
      else if (on === false) off.add(kind);
    }
    const disabled = NOTIFICATION_KINDS.filter((k) => off.has(k));
    await setDisabledKinds(tx, userId, disabled);
    return asPreferences(disabled);
  });
}

/** What an unsubscribe link would switch off (nothing changes): 400 invalid_token for a bad link. */
export function checkUnsubscribeToken(secret: string, token: string): { userId: string; kind: NotificationKind } {
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
