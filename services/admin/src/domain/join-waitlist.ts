import { createEvent } from '@htm/events';
import { AppError, getCorrelationId, type Caller } from '@htm/service-kit';
import { WAITLIST_MESSAGES, waitlistKindOf, type WaitlistBody } from '@htm/contracts';
import type { AdminDeps } from '../deps.js';
import { insertWaitlistEntry, type WaitlistEntry } from '../db/waitlist.repository.js';

/**
 * Stores a waitlist entry, tester signup or job request and announces it (WaitlistJoined) in
 * the same transaction. The same e-mail and role twice is a 409, except for job requests: each
 * request is stored.
 */
export async function joinWaitlist(
  deps: AdminDeps,
  body: WaitlistBody,
  caller: Caller | null,
): Promise<WaitlistEntry> {
  const kind = waitlistKindOf(body.role);
  if (kind === 'job_request' && !caller)
    throw AppError.unauthorized(WAITLIST_MESSAGES.signInFirst, 'sign_in_required');
  const entry = await deps.events.inTransaction(async (tx) => {
    const row = await insertWaitlistEntry(tx, {
      email: body.email,
      role: body.role,
      kind,
      name: body.name ?? null,
      url: body.url ?? null,
      note: body.note ?? null,
      userId: caller?.id ?? null,
    });
    if (!row) return undefined;
    await deps.events.record(
      tx,
      createEvent(
        'WaitlistJoined',
        row.id,
        { entryId: row.id, email: row.email, role: row.role, name: row.name },
        { correlationId: getCorrelationId() },
      ),
    );
    return row;
  });
  if (!entry) throw AppError.conflict(WAITLIST_MESSAGES.alreadySignedUp, 'already_signed_up');
  return entry;
}
