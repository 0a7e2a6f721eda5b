import type { Logger } from 'pino';
import { createEvent, type ServiceEvents } from '@htm/events';
import type { Db } from '@htm/service-kit';
import { TRANSITIONS } from '@htm/contracts/marketplace';
import type { JobsConfig } from '../config.js';
import {
  deferDeliveries,
  disableEndpoint,
  leaseDueDeliveries,
  noteEndpointOutcome,
  recordAttempt,
} from '../db/webhook.repository.js';
import { DISABLE_AFTER_MS, nextAttemptAfter } from '../domain/webhooks.js';
import { sendWebhook } from '../providers/webhook-sender.js';

const TIMEOUT_MS = 5000;
const MAX_BODY_BYTES = 64 * 1024;
const BATCH = 20;
/** A leased delivery whose worker died is taken again after this long (longer than one attempt). */
const LEASE_MS = 30_000;
/** Deliveries of one endpoint leased at once: sent one after the other, all within the lease. */
const PER_ENDPOINT = Math.floor(LEASE_MS / TIMEOUT_MS) - 2;
/** Endpoints being sent to at once by this process; the rest wait for a later poll. */
const MAX_SENDING = 32;

/** An event whose change wrote webhook deliveries (the transition table's `webhook`, or a job's publication). */
export function announcesWebhook(event: { type: string }): boolean {
  return (
    event.type === 'JobPublished' ||
    Object.values(TRANSITIONS).some((t) => t.event === event.type && t.webhook)
  );
}

type LeasedDelivery = Awaited<ReturnType<typeof leaseDueDeliveries>>[number];

/** The leased deliveries (in the order their events happened) grouped by endpoint, keeping that order. */
function byEndpoint(due: LeasedDelivery[]): LeasedDelivery[][] {
  const groups = new Map<string, LeasedDelivery[]>();
  for (const d of due) {
    const list = groups.get(d.endpointId);
    if (list) list.push(d);
    else groups.set(d.endpointId, [d]);
  }
  return [...groups.values()];
}

export interface WebhookWorker {
  /** Leases the due deliveries and starts sending them (the poll loop calls it); resolves with how many it leased. */
  deliverDue(): Promise<number>;
  stop(): Promise<void>;
}

export interface WebhookWorkerDeps {
  config: JobsConfig;
  db: Db;
  logger: Logger;
  events: Pick<ServiceEvents, 'record' | 'inTransaction'>;
}

/**
 * Outgoing webhooks. The delivery rows are written in the transaction of the change they announce
 * (applyTransition: the transition table's `webhook`; the JobPaid handler: job.paid), so Postgres
 * is the durable queue; every WEBHOOK_POLL_MS (and when this process relays such a change:
 * `deliverDue`), due rows are leased and sent, failures retried with doubling delays
 * from WEBHOOK_RETRY_BASE_MS for at least 24 h under the same webhook-id (`msg_<delivery id>`).
 * An endpoint failing for 3 days is disabled and WebhookEndpointDisabled announced (its owner
 * is e-mailed by notifications).
 */
export async function startWebhookWorker(deps: WebhookWorkerDeps): Promise<WebhookWorker> {
  const { config, db, logger } = deps;
  const log = logger.child({ component: 'webhooks' });
  let stopped = false;
  /** One attempt, recorded; the retry's time when it failed (null when it will not be retried). */
  const attempt = async (d: LeasedDelivery): Promise<{ ok: boolean; next: Date | null }> => {
    const result = await sendWebhook(
      {
        url: d.url,
        secret: d.secret,
        msgId: `msg_${d.id.replace(/-/g, '')}`,
        body: JSON.stringify(d.payload),
      },
      {
        allowPrivate: config.WEBHOOKS_ALLOW_PRIVATE,
        timeoutMs: TIMEOUT_MS,
        maxBodyBytes: MAX_BODY_BYTES,
      },
    );
    const at = new Date();
    const next = result.ok
      ? null
      : nextAttemptAfter(d.attempts + 1, d.createdAt, at, config.WEBHOOK_RETRY_BASE_MS);
    await recordAttempt(db, d.id, {
      ok: result.ok,
      code: result.code,
      error: result.error,
      nextAttemptAt: next,
      at,
    });
    const failingSince = await noteEndpointOutcome(db, d.endpointId, result.ok, at);
    log[result.ok ? 'debug' : 'info'](
      {
        delivery: d.id,
        endpoint: d.endpointId,
        attempt: d.attempts + 1,
        code: result.code,
        error: result.error,
        next: next?.toISOString(),
      },
      'webhook attempt',
    );
    if (!result.ok && failingSince && at.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS) {
      await deps.events.inTransaction(async (tx) => {
        const owner = await disableEndpoint(tx, d.endpointId, at);
        if (owner)
          await deps.events.record(
            tx,
            createEvent('WebhookEndpointDisabled', d.endpointId, {
              endpointId: d.endpointId,
              ownerId: owner.ownerId,
              url: owner.url,
              failingSince: failingSince.toISOString(),
              disabledAt: at.toISOString(),
            }),
          );
      });
      log.warn({ endpoint: d.endpointId }, 'webhook endpoint disabled after failing for 3 days');
    }
    return { ok: result.ok, next };
  };

  /**
   * One endpoint's leased deliveries, one after the other in the order their events happened (a
   * job's claimed before its submitted). A failure defers the rest until its retry; a stop releases
   * them (another process takes them at once).
   */
  const sendInOrder = async (list: LeasedDelivery[]) => {
    const idsFrom = (i: number) => list.slice(i).map((r) => r.id);
    for (const [i, d] of list.entries()) {
      if (stopped) return deferDeliveries(db, idsFrom(i), null);
      const outcome = await attempt(d).catch((err: Error) => {
        log.error({ err: err.message, delivery: d.id }, 'webhook attempt failed to record');
        return { ok: false, next: null };
      });
      if (!outcome.ok) return deferDeliveries(db, idsFrom(i + 1), outcome.next);
    }
  };

  // Each endpoint's run is sent apart from the poll, so a slow endpoint (5 s a try) holds up only
  // its own deliveries: the next poll leases the others (the lease skips endpoints still sending).
  const sending = new Set<Promise<void>>();
  let leasing: Promise<number> | undefined;
  const deliverDue = (): Promise<number> =>
    (leasing ??= (async () => {
      let n = 0;
      while (!stopped && sending.size < MAX_SENDING) {
        const due = await leaseDueDeliveries(db, BATCH, LEASE_MS, PER_ENDPOINT);
        for (const list of byEndpoint(due)) {
          const run: Promise<void> = sendInOrder(list)
            .catch((err: Error) =>
              log.warn({ err: err.message, endpoint: list[0].endpointId }, 'webhook run stopped'),
            )
            .finally(() => {
              sending.delete(run);
              // A full run may have left more of this endpoint due: take it without waiting a poll.
              if (list.length === PER_ENDPOINT) void deliverDue().catch(() => undefined);
            });
          sending.add(run);
        }
        n += due.length;
        if (due.length < BATCH) break;
      }
      return n;
    })().finally(() => (leasing = undefined)));

  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      deliverDue()
        .catch((err: Error) =>
          log.warn(
            { err: err.message },
            'webhook delivery round failed; tried again at the next poll',
          ),
        )
        .finally(loop);
    }, config.WEBHOOK_POLL_MS);
  };
  loop();

  log.info(
    {
      pollMs: config.WEBHOOK_POLL_MS,
      retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
      allowPrivate: config.WEBHOOKS_ALLOW_PRIVATE,
    },
    'webhook worker started',
  );

  return {
    deliverDue,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await leasing?.catch(() => undefined);
      await Promise.all(sending);
    },
  };
}
