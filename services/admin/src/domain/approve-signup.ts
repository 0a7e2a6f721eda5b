import { createEvent } from '@htm/events';
import { AppError, getCorrelationId } from '@htm/service-kit';
import type { AdminDeps } from '../deps.js';
import { setWaitlistApproval, type WaitlistEntry } from '../db/waitlist.repository.js';
import { recordAudit } from './audit.js';

/**
 * Sets an entry's approval. For tester signups and waitlist entries it announces
 * SignupApproved (identity pre-approves that e-mail as a tester) in the same transaction;
 * a job request's flag only marks it handled, so no tester approval follows from it.
 */
export async function approveSignup(
  deps: AdminDeps,
  id: string,
  approved: boolean,
  actorId?: string,
): Promise<WaitlistEntry> {
  const entry = await deps.events.inTransaction(async (tx) => {
    const row = await setWaitlistApproval(tx, id, approved);
    if (!row) return undefined;
    if (row.kind !== 'job_request') {
      const event = createEvent(
        'SignupApproved',
        row.id,
        { entryId: row.id, email: row.email, role: row.role, approved: row.approved },
        { correlationId: getCorrelationId() },
      );
      await deps.events.record(tx, event);
      // Admin's own action: its audit row in the same transaction (keyed by the event's id).
      await recordAudit(tx, event, actorId);
    }
    return row;
  });
  if (!entry) throw AppError.notFound('Waitlist entry not found.', 'waitlist_entry_not_found');
  return entry;
}
