import { eq, or } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { auditLog, feedback, handledEvents, leads, waitlistEntries } from './schema.js';

/** All SQL of the admin service's part of "Your data, your call" (rows kept by e-mail or user id). */

export async function readAdminPart(
  db: Db | Tx,
  userId: string,
  email: string | undefined,
): Promise<Record<string, unknown>> {
  const byUser = email
    ? or(eq(waitlistEntries.userId, userId), eq(waitlistEntries.email, email))
    : eq(waitlistEntries.userId, userId);
  const waitlist = await db.select().from(waitlistEntries).where(byUser);
  const sent = email ? await db.select().from(feedback).where(eq(feedback.email, email)) : [];
  const leadRows = email ? await db.select().from(leads).where(eq(leads.email, email)) : [];
  const audit = await db
    .select()
    .from(auditLog)
    .where(
      or(
        eq(auditLog.actorId, userId),
        eq(auditLog.target, `user:${userId}`),
        eq(auditLog.target, `tester:${userId}`),
      ),
    );
  return {
    waitlist_entries: waitlist,
    feedback: sent,
    leads: leadRows,
    audit_log_about_you: audit,
  };
}

/**
 * Deletes what the person sent through the public forms (waitlist, signup, job requests,
 * feedback, leads). The audit log is append-only (the record of the admin's actions): it names
 * the user by id only and is kept.
 */
export async function eraseAdminUser(tx: Tx, userId: string, email: string): Promise<void> {
  await tx
    .delete(waitlistEntries)
    .where(
      email
        ? or(eq(waitlistEntries.userId, userId), eq(waitlistEntries.email, email))
        : eq(waitlistEntries.userId, userId),
    );
  if (email) {
    await tx.delete(feedback).where(eq(feedback.email, email));
    await tx.delete(leads).where(eq(leads.email, email));
  }
}

export async function wasHandled(db: Db, eventId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: handledEvents.eventId })
    .from(handledEvents)
    .where(eq(handledEvents.eventId, eventId));
  return Boolean(row);
}
