import { and, count, eq, sql } from 'drizzle-orm';
import type { EventEnvelope, EventHandlers } from '@htm/events';
import type { Tx } from '@htm/service-kit';
import type { IdentityDeps } from '../deps.js';
import { preApprovedEmails, testerRatings, testerStrikes, users } from '../db/schema.js';
import { normaliseEmail } from '../domain/gmail-rule.js';
import { approvalChanged } from '../domain/sign-in.js';
import { revokeUserSessions } from '../domain/sessions.js';

/**
 * admin's SignupApproved: keep the list of pre-approved tester e-mails. An existing tester with
 * that e-mail follows the decision (approved or unapproved, reason 'signup').
 */
export async function onSignupApproved(deps: IdentityDeps, event: EventEnvelope<'SignupApproved'>, tx: Tx): Promise<void> {
  const email = normaliseEmail(event.data.email);
  if (event.data.approved) {
    await tx
      .insert(preApprovedEmails)
      .values({ email, entryId: event.data.entryId })
      .onConflictDoUpdate({ target: preApprovedEmails.email, set: { entryId: event.data.entryId, approvedAt: new Date() } });
  } else {
    await tx.delete(preApprovedEmails).where(eq(preApprovedEmails.email, email));
  }
  const testers = await tx
    .update(users)
    .set({ approved: event.data.approved, updatedAt: new Date() })
    .where(and(eq(users.email, email), eq(users.type, 'tester'), eq(users.approved, !event.data.approved)))
    .returning();
  for (const t of testers) await deps.events.record(tx, approvalChanged(t, 'signup', event.correlationId ?? undefined));
  await revokeUserSessions(deps, testers.map((t) => t.id), 'approval_changed', tx as never);
}

/** jobs' TesterStrikeRecorded: store the strike; at the limit (3) an approved tester is unapproved. */
export async function onTesterStrikeRecorded(deps: IdentityDeps, event: EventEnvelope<'TesterStrikeRecorded'>, tx: Tx): Promise<void> {
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(event.data.testerId);
  const [u] = isUuid ? await tx.select().from(users).where(eq(users.id, event.data.testerId)).for('update') : [];
  if (!u) {
    deps.logger.warn({ testerId: event.data.testerId, eventId: event.id }, 'strike for an unknown tester ignored');
    return;
  }
  await tx.insert(testerStrikes).values({ testerId: u.id, jobId: event.data.jobId, reason: event.data.reason, eventId: event.id }).onConflictDoNothing();
  const [{ n }] = await tx.select({ n: count() }).from(testerStrikes).where(eq(testerStrikes.testerId, u.id));
  const strikes = Number(n);
  const unapprove = u.type === 'tester' && u.approved && strikes >= deps.config.TESTER_STRIKE_LIMIT;
  const [row] = await tx
    .update(users)
    .set({ strikes, ...(unapprove ? { approved: false } : {}), updatedAt: new Date() })
    .where(eq(users.id, u.id))
    .returning();
  if (unapprove) {
    await deps.events.record(tx, approvalChanged(row, 'strikes', event.correlationId ?? undefined));
    await revokeUserSessions(deps, [row.id], 'approval_changed', tx as never);
  }
}

/** jobs' TesterRated: the tester's rating_sum / rating_count grow by this job's stars, once per job. */
export async function onTesterRated(deps: IdentityDeps, event: EventEnvelope<'TesterRated'>, tx: Tx): Promise<void> {
  const d = event.data;
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(d.testerId);
  const [u] = isUuid ? await tx.select({ id: users.id }).from(users).where(eq(users.id, d.testerId)) : [];
  if (!u) {
    deps.logger.warn({ testerId: d.testerId, eventId: event.id }, 'rating for an unknown tester ignored');
    return;
  }
  const inserted = await tx.insert(testerRatings).values({ jobId: d.jobId, testerId: u.id, stars: d.stars, ratedAt: new Date(d.ratedAt) }).onConflictDoNothing().returning();
  if (!inserted.length) return;
  await tx
    .update(users)
    .set({ ratingSum: sql`${users.ratingSum} + ${d.stars}`, ratingCount: sql`${users.ratingCount} + 1`, updatedAt: new Date() })
    .where(eq(users.id, u.id));
}

export function identityHandlers(deps: IdentityDeps): EventHandlers {
  return {
    SignupApproved: (e, tx) => onSignupApproved(deps, e, tx),
    TesterStrikeRecorded: (e, tx) => onTesterStrikeRecorded(deps, e, tx),
    TesterRated: (e, tx) => onTesterRated(deps, e, tx),
  };
}
