import { createEvent } from '@htm/events';
import { getCorrelationId } from '@htm/service-kit';
import type { LeadBody } from '@htm/contracts';
import type { AdminDeps } from '../deps.js';
import { insertLead } from '../db/lead.repository.js';

/** Stores a 'Looking for a Developer?' lead and announces it (LeadReceived) in the same transaction. */
export async function recordLead(deps: AdminDeps, body: LeadBody): Promise<{ id: string }> {
  const id = await deps.events.inTransaction(async (tx) => {
    const row = await insertLead(tx, { email: body.email, message: body.message });
    await deps.events.record(
      tx,
      createEvent(
        'LeadReceived',
        row.id,
        { leadId: row.id, email: row.email },
        { correlationId: getCorrelationId() },
      ),
    );
    return row.id;
  });
  return { id };
}
