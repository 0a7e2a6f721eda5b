import { AppError, getCorrelationId, tokenRevoked, type Caller } from '@htm/service-kit';
import type {
  AdminTestersQuery,
  ApproveTesterBody,
  InitUserBody,
  UpdateProfileBody,
} from '@htm/contracts';
import type { IdentityDeps } from '../deps.js';
import * as usersDb from '../db/user.repository.js';
import type { UserRow } from '../db/user.repository.js';
import { approvalChanged, roleChosen } from './sign-in.js';
import { needsRoleChoice, testerLocation } from './user-rules.js';
import { findLiveFamily } from '../db/session.repository.js';
import { announceClaimsChanged } from './revoke-sessions.js';
import { issueAccessToken } from './sessions.js';
import { accessClaims } from '../providers/access-token.js';

const userGone = () =>
  AppError.unauthorized('Your account no longer exists. Please sign in again.', 'unknown_user');

export async function getUser(deps: IdentityDeps, id: string): Promise<UserRow> {
  const u = await usersDb.findUser(deps.db, id);
  if (!u) throw userGone();
  return u;
}

/** A changed user and an access token with the new claims, in the caller's (checked) sign-in. */
export interface UserWithToken {
  user: UserRow;
  accessToken: string;
}

/**
 * The caller's sign-in must be alive (not logged out, revoked, expired or idle) before a route
 * hands out a fresh access token: otherwise a stolen access token could renew itself forever.
 * Checked before anything changes; a dead sign-in gets 401 `token_revoked` and changes nothing.
 */
async function assertSessionAlive(deps: IdentityDeps, caller: Caller): Promise<string> {
  const family = caller.sid
    ? await findLiveFamily(
        deps.db,
        caller.sid,
        deps.config.REFRESH_IDLE_TIMEOUT_DAYS * 24 * 3600_000,
      )
    : undefined;
  if (!family || family.userId !== caller.id) throw tokenRevoked();
  return family.id;
}

/** Whether a change touched what access tokens say about the user (not, say, assistive tech). */
function claimsDiffer(before: UserRow, after: UserRow): boolean {
  return JSON.stringify(accessClaims(before)) !== JSON.stringify(accessClaims(after));
}

/**
 * After a change of the caller's row: when the token claims changed it is announced (their other
 * tokens go stale), then a token with the new claims for this sign-in.
 */
async function withFreshToken(
  deps: IdentityDeps,
  { before, after }: { before: UserRow; after: UserRow },
  sid: string,
): Promise<UserWithToken> {
  if (claimsDiffer(before, after)) await announceClaimsChanged(deps, [after.id]);
  // Read again, as a refresh does: a change someone else announced meanwhile is in the token too.
  const claimsAt = Date.now();
  const user =
    (await deps.events.inTransaction((tx) => usersDb.readUserForToken(tx, after.id))) ?? after;
  return { user, accessToken: await issueAccessToken(deps, user, sid, claimsAt) };
}

/**
 * The role choice (POST /api/users/init): once only. Testers start unapproved unless their
 * e-mail was approved as a tester signup; a pre-approved tester created at the tester login
 * completes their location and country here.
 */
export async function chooseRole(
  deps: IdentityDeps,
  caller: Caller,
  body: InitUserBody,
): Promise<UserWithToken> {
  const correlationId = getCorrelationId();
  const sid = await assertSessionAlive(deps, caller);
  const userId = caller.id;
  const user = await deps.events.inTransaction(async (tx) => {
    const u = await usersDb.lockUser(tx, userId);
    if (!u) throw userGone();
    if (!needsRoleChoice(u) || (u.type !== null && u.type !== body.type)) {
      throw AppError.conflict('Your role has already been chosen.', 'role_already_chosen');
    }
    let approved = false;
    if (body.type === 'tester') approved = u.approved || (await usersDb.isPreApproved(tx, u.email));
    const row = await usersDb.setRole(tx, u.id, {
      type: body.type,
      location:
        body.type === 'tester' ? testerLocation(body.country, body.location) : body.location,
      country: body.type === 'tester' ? (body.country ?? null) : null,
      approved,
    });
    await deps.events.record(tx, roleChosen(row, correlationId, deps.config.TESTER_STRIKE_LIMIT));
    return { before: u, after: row };
  });
  return withFreshToken(deps, user, sid);
}

/**
 * "Update Your Profile": a tester changes their country, and with it their location (the same
 * rule as the role choice), and/or the assistive technology they use. Jobs learns all of it
 * through TesterApprovalChanged.
 */
export async function updateProfile(
  deps: IdentityDeps,
  caller: Caller,
  body: UpdateProfileBody,
): Promise<UserWithToken> {
  const sid = await assertSessionAlive(deps, caller);
  const userId = caller.id;
  const user = await deps.events.inTransaction(async (tx) => {
    const u = await usersDb.lockUser(tx, userId);
    if (!u) throw userGone();
    if (u.type !== 'tester')
      throw AppError.forbidden('Only testers have a country to update.', 'not_a_tester');
    const country = body.country ?? u.country;
    const row = await usersDb.updateTesterProfile(tx, u.id, {
      country,
      location: testerLocation(country, u.location),
      assistiveTech: body.assistive_tech,
    });
    await deps.events.record(
      tx,
      approvalChanged(row, 'profile', getCorrelationId(), deps.config.TESTER_STRIKE_LIMIT),
    );
    return { before: u, after: row };
  });
  return withFreshToken(deps, user, sid);
}

export function listTesters(
  deps: IdentityDeps,
  opts: { approvedOnly: boolean } & AdminTestersQuery,
): Promise<UserRow[]> {
  return usersDb.listTesters(deps.db, {
    approvedOnly: opts.approvedOnly,
    assistiveTech: opts.assistive_tech,
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The admin approves or unapproves a tester (TesterApprovalChanged, reason 'admin', when it
 * changes). The tester stays signed in: their access tokens carry the old approval, so they are
 * refused as stale and the next refresh, in the same sign-in, carries the new one.
 */
export async function setTesterApproval(
  deps: IdentityDeps,
  testerId: string,
  body: ApproveTesterBody,
  actorId?: string,
): Promise<UserRow> {
  const notFound = () => AppError.notFound('Tester not found.', 'tester_not_found');
  if (!UUID.test(testerId)) throw notFound();
  const { user, changed } = await deps.events.inTransaction(async (tx) => {
    const u = await usersDb.lockUser(tx, testerId);
    if (!u || u.type !== 'tester') throw notFound();
    if (u.approved === body.approved) return { user: u, changed: false };
    const row = await usersDb.setApproval(tx, u.id, body.approved);
    await deps.events.record(
      tx,
      approvalChanged(row, 'admin', getCorrelationId(), deps.config.TESTER_STRIKE_LIMIT, actorId),
    );
    return { user: row, changed: true };
  });
  if (changed) await announceClaimsChanged(deps, [user.id]);
  return user;
}
