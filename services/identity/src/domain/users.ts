import { and, desc, eq, sql } from 'drizzle-orm';
import { AppError, getCorrelationId, type Tx } from '@htm/service-kit';
import type { AdminTestersQuery, ApproveTesterBody, InitUserBody, UpdateProfileBody } from '@htm/contracts';
import type { IdentityDeps } from '../deps.js';
import { preApprovedEmails, users, type UserRow } from '../db/schema.js';
import { approvalChanged, roleChosen } from './sign-in.js';
import { needsRoleChoice, testerLocation } from './user-view.js';
import { revokeUserSessions } from './sessions.js';

const userGone = () => AppError.unauthorized('Your account no longer exists. Please sign in again.', 'unknown_user');

export async function getUser(deps: IdentityDeps, id: string): Promise<UserRow> {
  const [u] = await deps.db.select().from(users).where(eq(users.id, id));
  if (!u) throw userGone();
  return u;
}

/**
 * The role choice (POST /api/users/init): once only. Testers start unapproved unless their
 * e-mail was approved as a tester signup; a pre-approved tester created at the tester login
 * completes their location and country here.
 */
export async function chooseRole(deps: IdentityDeps, userId: string, body: InitUserBody): Promise<UserRow> {
  const correlationId = getCorrelationId();
  const user = await deps.db.transaction(async (tx) => {
    const [u] = await tx.select().from(users).where(eq(users.id, userId)).for('update');
    if (!u) throw userGone();
    if (!needsRoleChoice(u) || (u.type !== null && u.type !== body.type)) {
      throw AppError.conflict('Your role has already been chosen.', 'role_already_chosen');
    }
    let approved = false;
    if (body.type === 'tester') {
      const [pre] = await tx.select().from(preApprovedEmails).where(eq(preApprovedEmails.email, u.email));
      approved = u.approved || Boolean(pre);
    }
    const [row] = await tx
      .update(users)
      .set({
        type: body.type,
        location: body.type === 'tester' ? testerLocation(body.country, body.location) : body.location,
        country: body.type === 'tester' ? (body.country ?? null) : null,
        approved,
        updatedAt: new Date(),
      })
      .where(eq(users.id, u.id))
      .returning();
    await deps.events.record(tx as Tx, roleChosen(row, correlationId));
    return row;
  });
  deps.events.kick();
  return user;
}

/**
 * "Update Your Profile": a tester changes their country, and with it their location (the same
 * rule as the role choice), and/or the assistive technology they use. Jobs learns all of it
 * through TesterApprovalChanged.
 */
export async function updateProfile(deps: IdentityDeps, userId: string, body: UpdateProfileBody): Promise<UserRow> {
  const user = await deps.db.transaction(async (tx) => {
    const [u] = await tx.select().from(users).where(eq(users.id, userId)).for('update');
    if (!u) throw userGone();
    if (u.type !== 'tester') throw AppError.forbidden('Only testers have a country to update.', 'not_a_tester');
    const country = body.country ?? u.country;
    const [row] = await tx
      .update(users)
      .set({
        country,
        location: testerLocation(country, u.location),
        ...(body.assistive_tech !== undefined ? { assistiveTech: body.assistive_tech } : {}),
        updatedAt: new Date(),
      })
      .where(eq(users.id, u.id))
      .returning();
    await deps.events.record(tx as Tx, approvalChanged(row, 'profile', getCorrelationId()));
    return row;
  });
  deps.events.kick();
  return user;
}

export async function listTesters(deps: IdentityDeps, opts: { approvedOnly: boolean } & AdminTestersQuery): Promise<UserRow[]> {
  const where = and(
    eq(users.type, 'tester'),
    opts.approvedOnly ? eq(users.approved, true) : undefined,
    opts.assistive_tech ? sql`${users.assistiveTech} @> ${JSON.stringify([opts.assistive_tech])}::jsonb` : undefined,
  );
  return deps.db.select().from(users).where(where).orderBy(desc(users.createdAt));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The admin approves or unapproves a tester (TesterApprovalChanged, reason 'admin', when it
 * changes). A change ends the tester's sign-ins: their tokens carry the old approval.
 */
export async function setTesterApproval(deps: IdentityDeps, testerId: string, body: ApproveTesterBody): Promise<UserRow> {
  const notFound = () => AppError.notFound('Tester not found.', 'tester_not_found');
  if (!UUID.test(testerId)) throw notFound();
  const { user, changed } = await deps.db.transaction(async (tx) => {
    const [u] = await tx.select().from(users).where(eq(users.id, testerId)).for('update');
    if (!u || u.type !== 'tester') throw notFound();
    if (u.approved === body.approved) return { user: u, changed: false };
    const [row] = await tx.update(users).set({ approved: body.approved, updatedAt: new Date() }).where(eq(users.id, u.id)).returning();
    await deps.events.record(tx as Tx, approvalChanged(row, 'admin', getCorrelationId()));
    return { user: row, changed: true };
  });
  deps.events.kick();
  if (changed) await revokeUserSessions(deps, [user.id], 'approval_changed');
  return user;
}
