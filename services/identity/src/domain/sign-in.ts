import { createEvent, type EventEnvelope } from '@htm/events';
import { getCorrelationId } from '@htm/service-kit';
import type { AssistiveTech, AuthErrorCode, SignInIntent } from '@htm/contracts';
import type { IdentityDeps } from '../deps.js';
import { createSigninSession } from '../db/session.repository.js';
import {
  insertUser,
  isPreApproved,
  isSignupPending,
  lockUserByGoogleSub,
  setRole,
  updateAccount,
  type UserRow,
} from '../db/user.repository.js';
import { isAdminEmail, mayUseEmail, normaliseEmail } from './gmail-rule.js';
import { hashSecret, randomSecret } from './tokens.js';
import { mayUseTesterEntrance } from './user-rules.js';
import { cancelDeletionOnSignIn } from './privacy.js';

/** What Google (or the dev sign-in) told us about the person. */
export interface SignInAccount {
  sub: string;
  email: string;
  emailVerified: boolean;
  name: string;
}

export type SignInResult =
  { ok: true; sessionId: string; user: UserRow } | { ok: false; error: AuthErrorCode };

type Patch = Partial<Pick<UserRow, 'email' | 'name'>>;
type RoleChange = Pick<UserRow, 'type' | 'approved'>;

/**
 * The one sign-in path (Google callback and dev sign-in): Gmail rule, admin rule, approval
 * rule, then a single-use session id for the browser. A refused sign-in changes nothing.
 */
export async function completeSignIn(
  deps: IdentityDeps,
  account: SignInAccount,
  intent: SignInIntent,
): Promise<SignInResult> {
  const adminEmail = deps.config.ADMIN_EMAIL;
  const email = normaliseEmail(account.email);
  if (!account.sub || !mayUseEmail(email, account.emailVerified, adminEmail))
    return { ok: false, error: 'gmail_only' };
  const admin = isAdminEmail(email, adminEmail);
  const name = (account.name ?? '').trim().slice(0, 200) || email.slice(0, email.indexOf('@'));
  const correlationId = getCorrelationId();

  const attempt = () =>
    deps.events.inTransaction(async (tx): Promise<SignInResult | 'retry'> => {
      const existing = await lockUserByGoogleSub(tx, account.sub);
      const pre = await isPreApproved(tx, email);
      const events: EventEnvelope[] = [];
      let user: UserRow;

      if (!existing) {
        const type = admin ? 'admin' : intent === 'tester' && pre ? 'tester' : null;
        if (intent === 'tester' && !type)
          return {
            ok: false,
            error: (await isSignupPending(tx, email))
              ? 'tester_signup_pending'
              : 'tester_signup_needed',
          };
        const row = await insertUser(tx, {
          googleSub: account.sub,
          email,
          name,
          type,
          approved: type !== null,
        });
        if (!row) return 'retry';
        user = row;
        events.push(
          createEvent('UserSignedUp', user.id, { userId: user.id, email, name }, { correlationId }),
        );
        if (type === 'admin') events.push(roleChosen(user, correlationId));
        if (type === 'tester')
          events.push(
            approvalChanged(user, 'signup', correlationId, deps.config.TESTER_STRIKE_LIMIT),
          );
      } else {
        const patch: Patch = {};
        if (existing.email !== email) patch.email = email;
        if (existing.name !== name) patch.name = name;
        let role: RoleChange | undefined;
        if (admin && existing.type !== 'admin') {
          role = { type: 'admin', approved: true };
        } else if (!admin && existing.type === 'admin') {
          // ADMIN_EMAIL now names someone else: this account chooses a role again.
          role = { type: null, approved: false };
        } else if (intent === 'tester' && existing.type === null && pre) {
          role = { type: 'tester', approved: true };
        }
        const next = { ...existing, ...patch, ...role };
        if (intent === 'tester' && !mayUseTesterEntrance(next, deps.config.TESTER_STRIKE_LIMIT)) {
          // Say what is true: a site owner, someone not signed up as a tester, or a tester not approved.
          if (next.type === 'poster') return { ok: false, error: 'site_owner_account' };
          if (next.type === null)
            return {
              ok: false,
              error: (await isSignupPending(tx, email))
                ? 'tester_signup_pending'
                : 'tester_signup_needed',
            };
          return { ok: false, error: 'tester_not_approved' };
        }
        user = existing;
        // Signing in again within the grace period keeps the account ("Delete my account").
        const cancelled = await cancelDeletionOnSignIn(tx, existing.id, correlationId);
        if (cancelled) events.push(cancelled);
        if (Object.keys(patch).length) user = await updateAccount(tx, existing.id, patch);
        // A new name on the Google account reaches e-mails and the admin's lists through this event.
        if (patch.name !== undefined)
          events.push(
            createEvent(
              'UserRenamed',
              user.id,
              { userId: user.id, email: user.email, name: user.name, previousName: existing.name },
              { correlationId },
            ),
          );
        if (role) {
          user = await setRole(tx, existing.id, role);
          if (role.type === 'admin') events.push(roleChosen(user, correlationId));
          if (role.type === 'tester')
            events.push(
              approvalChanged(user, 'signup', correlationId, deps.config.TESTER_STRIKE_LIMIT),
            );
        }
      }

      const sessionId = randomSecret();
      await createSigninSession(tx, {
        idHash: hashSecret(sessionId),
        userId: user.id,
        expiresAt: new Date(Date.now() + deps.config.SIGNIN_SESSION_TTL_SECONDS * 1000),
      });
      await deps.events.record(tx, ...events);
      return { ok: true, sessionId, user };
    });

  let result = await attempt();
  if (result === 'retry') result = await attempt();
  if (result === 'retry') throw new Error('could not create the user');
  return result;
}

/** `strikeLimit`: identity's TESTER_STRIKE_LIMIT, announced for a tester so jobs acts on the same limit. */
export function roleChosen(user: UserRow, correlationId: string | undefined, strikeLimit?: number) {
  return createEvent(
    'UserRoleChosen',
    user.id,
    {
      userId: user.id,
      email: user.email,
      name: user.name,
      type: user.type ?? 'poster',
      location: user.location ?? null,
      country: user.country ?? null,
      approved: user.approved,
      ...(user.type === 'tester' && strikeLimit !== undefined ? { strikeLimit } : {}),
    },
    { correlationId },
  );
}

/** `strikeLimit`: identity's TESTER_STRIKE_LIMIT, announced so jobs unapproves at the same strike. */
export function approvalChanged(
  user: UserRow,
  reason: 'admin' | 'signup' | 'strikes' | 'profile' | 'appeal',
  correlationId: string | undefined,
  strikeLimit: number,
  actorId?: string,
) {
  return createEvent(
    'TesterApprovalChanged',
    user.id,
    {
      userId: user.id,
      email: user.email,
      name: user.name,
      approved: user.approved,
      country: user.country ?? null,
      location: user.location ?? null,
      assistiveTech: user.assistiveTech as AssistiveTech[],
      reason,
      strikeLimit,
      ...(actorId ? { actorId } : {}),
    },
    { correlationId },
  );
}
