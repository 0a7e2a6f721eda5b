import type { EventEnvelope, EventHandlers } from '@htm/events';
import type { Tx } from '@htm/service-kit/db';
import type { IdentityDeps } from '../deps.js';
import { TESTER_SIGNUP_ROLES } from '@htm/contracts';
import {
  addPendingSignup,
  addPreApprovedEmail,
  addRating,
  findUser,
  isPreApproved,
  lockTestersByEmail,
  lockUser,
  recordRating,
  recordStrike,
  removePendingSignup,
  removePreApprovedEmail,
  removeRating,
  removeStrike,
  setApproval,
  setStrikes,
} from '../db/user.repository.js';
import { normaliseEmail } from '../domain/gmail-rule.js';
import { approvalChanged } from '../domain/sign-in.js';
import { announceClaimsChanged } from '../domain/revoke-sessions.js';
import { releasedForStrikes } from '../domain/user-rules.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * admin's SignupApproved: keep the list of pre-approved tester e-mails. An existing tester with
 * that e-mail follows the decision (approved or unapproved, reason 'signup').
 */
export async function onSignupApproved(
  deps: IdentityDeps,
  event: EventEnvelope<'SignupApproved'>,
  tx: Tx,
): Promise<void> {
  const email = normaliseEmail(event.data.email);
  if (event.data.approved) {
    await addPreApprovedEmail(tx, email, event.data.entryId);
    await removePendingSignup(tx, email);
  } else {
    await removePreApprovedEmail(tx, email);
    // Un-approved: the signup waits for the admin again (the Tester Login says so).
    if (isTesterSignupRole(event.data.role))
      await addPendingSignup(tx, email, event.data.entryId, new Date(event.occurredAt));
  }
  const testers = [];
  for (const t of await lockTestersByEmail(tx, email, !event.data.approved))
    testers.push(await setApproval(tx, t.id, event.data.approved));
  for (const t of testers)
    await deps.events.record(
      tx,
      approvalChanged(
        t,
        'signup',
        event.correlationId ?? undefined,
        deps.config.TESTER_STRIKE_LIMIT,
      ),
    );
  // The testers stay signed in; tokens with the old approval are refused as stale (rows locked until commit).
  await announceClaimsChanged(
    deps,
    testers.map((t) => t.id),
  );
}

const isTesterSignupRole = (role: string) =>
  (TESTER_SIGNUP_ROLES as readonly string[]).includes(role);

/**
 * admin's WaitlistJoined: a tester signup from the landing page waits for the admin. Identity keeps
 * the e-mail so the Tester Login says "waiting for approval" instead of "sign up first".
 */
export async function onWaitlistJoined(
  event: EventEnvelope<'WaitlistJoined'>,
  tx: Tx,
): Promise<void> {
  if (!isTesterSignupRole(event.data.role)) return;
  const email = normaliseEmail(event.data.email);
  // Already approved (events of one entry are in order; a second signup of an approved e-mail changes nothing).
  if (await isPreApproved(tx, email)) return;
  await addPendingSignup(tx, email, event.data.entryId, new Date(event.occurredAt));
}

/** jobs' TesterStrikeRecorded: store the strike; at TESTER_STRIKE_LIMIT an approved tester is unapproved. */
export async function onTesterStrikeRecorded(
  deps: IdentityDeps,
  event: EventEnvelope<'TesterStrikeRecorded'>,
  tx: Tx,
): Promise<void> {
  const u = UUID.test(event.data.testerId) ? await lockUser(tx, event.data.testerId) : undefined;
  if (!u) {
    deps.logger.warn(
      { testerId: event.data.testerId, eventId: event.id },
      'strike for an unknown tester ignored',
    );
    return;
  }
  const strikes = await recordStrike(tx, {
    testerId: u.id,
    jobId: event.data.jobId,
    reason: event.data.reason,
    eventId: event.id,
  });
  const unapprove = u.type === 'tester' && u.approved && strikes >= deps.config.TESTER_STRIKE_LIMIT;
  await setStrikes(tx, u.id, strikes);
  if (unapprove) {
    const row = await setApproval(tx, u.id, false);
    await deps.events.record(
      tx,
      approvalChanged(
        row,
        'strikes',
        event.correlationId ?? undefined,
        deps.config.TESTER_STRIKE_LIMIT,
      ),
    );
    await announceClaimsChanged(deps, [row.id]);
  }
}

/** jobs' TesterRated: the tester's rating_sum / rating_count grow by this job's stars, once per job. */
export async function onTesterRated(
  deps: IdentityDeps,
  event: EventEnvelope<'TesterRated'>,
  tx: Tx,
): Promise<void> {
  const d = event.data;
  const u = UUID.test(d.testerId) ? await findUser(tx, d.testerId) : undefined;
  if (!u) {
    deps.logger.warn(
      { testerId: d.testerId, eventId: event.id },
      'rating for an unknown tester ignored',
    );
    return;
  }
  if (
    !(await recordRating(tx, {
      jobId: d.jobId,
      testerId: u.id,
      stars: d.stars,
      ratedAt: new Date(d.ratedAt),
    }))
  )
    return;
  await addRating(tx, u.id, d.stars);
}

/**
 * jobs' AppealDecided, overturned: a strike leaves the tester's count (a tester that strike
 * released is approved again, reason 'appeal'; a failed session check's only when the admin had
 * confirmed it as one), or a rating leaves their average. Upheld: nothing.
 */
export async function onAppealDecided(
  deps: IdentityDeps,
  event: EventEnvelope<'AppealDecided'>,
  tx: Tx,
): Promise<void> {
  const d = event.data;
  if (d.decision !== 'overturn') return;
  if (d.kind === 'rating') return removeRating(tx, d.jobId);
  // A failed session check not confirmed as a strike yet: no strike to remove.
  if (d.kind === 'session_check' && !d.strikeOverturned) return;
  const u = UUID.test(d.testerId) ? await lockUser(tx, d.testerId) : undefined;
  if (!u) {
    deps.logger.warn(
      { testerId: d.testerId, eventId: event.id },
      'overturned strike of an unknown tester ignored',
    );
    return;
  }
  const limit = deps.config.TESTER_STRIKE_LIMIT;
  const wasReleased = releasedForStrikes(u, limit);
  const strikes = await removeStrike(tx, u.id, d.jobId);
  let row = await setStrikes(tx, u.id, strikes);
  if (wasReleased && strikes < limit) {
    row = await setApproval(tx, u.id, true);
    await deps.events.record(
      tx,
      approvalChanged(row, 'appeal', event.correlationId ?? undefined, limit, d.actorId),
    );
    await announceClaimsChanged(deps, [row.id]);
  }
}

export function identityHandlers(deps: IdentityDeps): EventHandlers {
  return {
    WaitlistJoined: (e, tx) => onWaitlistJoined(e, tx),
    SignupApproved: (e, tx) => onSignupApproved(deps, e, tx),
    TesterStrikeRecorded: (e, tx) => onTesterStrikeRecorded(deps, e, tx),
    TesterRated: (e, tx) => onTesterRated(deps, e, tx),
    AppealDecided: (e, tx) => onAppealDecided(deps, e, tx),
  };
}
