import { createEvent } from '@htm/events';
import { getCorrelationId } from '@htm/service-kit';
import type { FeedbackBody } from '@htm/contracts';
import type { AdminDeps } from '../deps.js';
import { insertFeedback } from '../db/feedback.repository.js';

/** Stores a feedback message and announces it (FeedbackReceived) in the same transaction. */
export async function recordFeedback(deps: AdminDeps, body: FeedbackBody): Promise<{ id: string }> {
  const id = await deps.events.inTransaction(async (tx) => {
    const row = await insertFeedback(tx, {
      email: body.email,
      message: body.message,
      pageUrl: body.page_url ?? null,
    });
    await deps.events.record(
      tx,
      createEvent(
        'FeedbackReceived',
        row.id,
        { feedbackId: row.id, email: body.email, pageUrl: body.page_url ?? null },
        { correlationId: getCorrelationId() },
      ),
    );
    return row.id;
  });
  return { id };
}
