import { eq, or } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { eraseUser, type ErasedUser } from '@htm/service-kit/erasure';
import { auditLog, feedback, leads, waitlistEntries } from './schema.js';

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
export async function eraseAdminUser(tx: Tx, user: ErasedUser, email: string): Promise<void> {
  await eraseUser(tx, user, [
    { forget: waitlistEntries, where: waitlistEntries.userId },
    ...(email
      ? [
          { forget: waitlistEntries, where: waitlistEntries.email, is: email },
          { forget: feedback, where: feedback.email, is: email },
          { forget: leads, where: leads.email, is: email },
        ]
      : []),
  ]);
}
