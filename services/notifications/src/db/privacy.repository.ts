import { eq } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { handledEvents, jobs, messages, preferences, users } from './schema.js';

/** All SQL of the notifications part of "Your data, your call". */

export async function readNotificationsPart(db: Db | Tx, userId: string): Promise<Record<string, unknown>> {
  const [address] = await db.select().from(users).where(eq(users.id, userId));
  const [prefs] = await db.select().from(preferences).where(eq(preferences.userId, userId));
  const sent = await db
    .select({ id: messages.id, kind: messages.kind, status: messages.status, toEmail: messages.toEmail, subject: messages.subject, text: messages.text, createdAt: messages.createdAt, sentAt: messages.sentAt })
    .from(messages)
    .where(eq(messages.userId, userId));
  return { address: address ?? null, email_preferences: prefs ?? null, emails: sent };
}

/** Deletes the address, the preferences and every e-mail to the user (pending ones are never sent). */
export async function eraseNotificationsUser(tx: Tx, userId: string): Promise<void> {
  await tx.delete(messages).where(eq(messages.userId, userId));
  await tx.delete(preferences).where(eq(preferences.userId, userId));
  await tx.delete(users).where(eq(users.id, userId));
  await tx.update(jobs).set({ posterId: 'deleted' }).where(eq(jobs.posterId, userId));
}

export async function wasHandled(db: Db, eventId: string): Promise<boolean> {
  const [row] = await db.select({ id: handledEvents.eventId }).from(handledEvents).where(eq(handledEvents.eventId, eventId));
  return Boolean(row);
}
