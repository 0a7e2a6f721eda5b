import { AppError, getCorrelationId } from '@htm/service-kit';
import type { AdminTestersQuery, ApproveTesterBody, InitUserBody, UpdateProfileBody } from '@htm/contracts';
import type { IdentityDeps } from '../deps.js';
import * as usersDb from '../db/user.repository.js';
import type { UserRow } from '../db/user.repository.js';
import { approvalChanged, roleChosen } from './sign-in.js';
import { needsRoleChoice, testerLocation } from './user-rules.js';
import { revokeUserSessions } from './revoke-sessions.js';

const userGone = () => AppError.unauthorized('Your account no longer exists. Please sign in again.', 'unknown_user');

export async function getUser(deps: IdentityDeps, id: string): Promise<UserRow> {
  const u = await usersDb.findUser(deps.db, id);
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
  return deps.events.inTransaction(async (tx) => {
    const u = await usersDb.lockUser(tx, userId);
    if (!u) throw userGone();
    if (!needsRoleChoice(u) || (u.type !== null && u.type !== body.type)) {
      throw AppError.conflict('Your role has already been chosen.', 'role_already_chosen');
    }
    let approved = false;
    if (body.type === 'tester') approved = u.approved || (await usersDb.isPreApproved(tx, u.email));
    const row = await usersDb.setRole(tx, u.id, {
      type: body.type,
      location: body.type === 'tester' ? testerLocation(body.country, body.location) : body.location,
      country: body.type === 'tester' ? (body.country ?? null) : null,
      approved,
    });
    await deps.events.record(tx, roleChosen(row, correlationId, deps.config.TESTER_STRIKE_LIMIT));
    return row;
  });
}

/**
 * "Update Your Profile": a tester changes their country, and with it their location (the same
 * rule as the role choice), and/or the assistive technology they use. Jobs learns all of it
 * through TesterApprovalChanged.
 */
export async function updateProfile(deps: IdentityDeps, userId: string, body: UpdateProfileBody): Promise<UserRow> {
  return deps.events.inTransaction(async (tx) => {
    const u = await usersDb.lockUser(tx, userId);
    if (!u) throw userGone();
    if (u.type !== 'tester') throw AppError.forbidden('Only testers have a country to update.', 'not_a_tester');
    const country = body.country ?? u.country;
    const row = await usersDb.updateTesterProfile(tx, u.id, {
      country,
      location: testerLocation(country, u.location),
      assistiveTech: body.assistive_tech,
    });
    await deps.events.record(tx, approvalChanged(row, 'profile', getCorrelationId(), deps.config.TESTER_STRIKE_LIMIT));
    return row;
  });
}

export function listTesters(deps: IdentityDeps, opts: { approvedOnly: boolean } & AdminTestersQuery): Promise<UserRow[]> {
  return usersDb.listTesters(deps.db, { approvedOnly: opts.approvedOnly, assistiveTech: opts.assistive_tech });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The admin approves or unapproves a tester (TesterApprovalChanged, reason 'admin', when it
 * changes). A change ends the tester's sign-ins: their tokens carry the old approval.
 */
export async function setTesterApproval(deps: IdentityDeps, testerId: string, body: ApproveTesterBody): Promise<UserRow> {
  const notFound = () => AppError.notFound('Tester not found.', 'tester_not_found');
  if (!UUID.test(testerId)) throw notFound();
  const { user, changed } = await deps.events.inTransaction(async (tx) => {
    const u = await usersDb.lockUser(tx, testerId);
    if (!u || u.type !== 'tester') throw notFound();
    if (u.approved === body.approved) return { user: u, changed: false };
    const row = await usersDb.setApproval(tx, u.id, body.approved);
    await deps.events.record(tx, approvalChanged(row, 'admin', getCorrelationId(), deps.config.TESTER_STRIKE_LIMIT));
    return { user: row, changed: true };
  });
  if (changed) await revokeUserSessions(deps, [user.id], 'approval_changed');
  return user;
}
