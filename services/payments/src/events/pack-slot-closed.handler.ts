import type { EventEnvelope } from '@htm/events';
import type { Tx } from '@htm/service-kit';
import type { PaymentsDeps } from '../deps.js';
import { refundJobPayment, type Recorder } from './jobs-cleared.handler.js';

/** PackSlotClosed: a pack's slot nobody claimed in its fill window gives its $1 back, once. */
export async function refundUnfilledSlot(
  deps: PaymentsDeps,
  tx: Tx,
  event: EventEnvelope<'PackSlotClosed'>,
  events: Recorder = deps.events,
): Promise<void> {
  const d = event.data;
  await refundJobPayment(
    deps,
    tx,
    d.jobId,
    {
      reason: 'pack_slot_unfilled',
      correlationId: event.correlationId ?? undefined,
      packId: d.packId,
      title: d.title,
    },
    events,
  );
}
