import { eq } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { eraseUser, type ErasedUser } from '@htm/service-kit/erasure';
import { digestJobs, jobs, messages, preferences, testedSites, users } from './schema.js';

/** All SQL of the notifications part of "Your data, your call". */

export async function readNotificationsPart(
  db: Db | Tx,
  userId: string,
): Promise<Record<string, unknown>> {
  const [address] = await db.select().from(users).where(eq(users.id, userId));
  const [prefs] = await db.select().from(preferences).where(eq(preferences.userId, userId));
  const sent = await db
    .select({
      id: messages.id,
      kind: messages.kind,
      status: messages.status,
      toEmail: messages.toEmail,
      subject: messages.subject,
      text: messages.text,
      createdAt: messages.createdAt,
      sentAt: messages.sentAt,
    })
    .from(messages)
    .where(eq(messages.userId, userId));
  // What the job digest keeps: the sites the tester has tested (fresh eyes) and the jobs already announced to them.
  const sites = await db
    .select({ siteHost: testedSites.siteHost })
    .from(testedSites)
    .where(eq(testedSites.testerId, userId));
  const announced = await db
    .select({ jobId: digestJobs.jobId, createdAt: digestJobs.createdAt })
    .from(digestJobs)
    .where(eq(digestJobs.testerId, userId));
  return {
    address: address ?? null,
    email_preferences: prefs ?? null,
    emails: sent,
    tested_sites: sites,
    jobs_in_digests: announced,
  };
}

/** Deletes the address, the preferences, the digest's memory and every e-mail to the user (pending ones are never sent). */
export async function eraseNotificationsUser(tx: Tx, user: ErasedUser): Promise<void> {
  await eraseUser(tx, user, [
    { forget: messages, where: messages.userId },
    { forget: preferences, where: preferences.userId },
    { forget: testedSites, where: testedSites.testerId },
    { forget: digestJobs, where: digestJobs.testerId },
    { forget: users, where: users.id },
    // The job projection keeps no one's id: its poster is nobody now.
    { pseudonymise: jobs, where: jobs.posterId, as: 'deleted' },
  ]);
}
