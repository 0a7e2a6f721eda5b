import { Queue, UnrecoverableError, Worker, type Job as BullJob } from 'bullmq';
import type { Logger } from 'pino';
import {
  classifyError,
  ServiceEvents,
  type EventBus,
  type EventEnvelope,
  type Subscription,
} from '@htm/events';
import { createBlockingRedis, createRedis, type Db, type Metrics } from '@htm/service-kit';
import type { Tx } from '@htm/service-kit/db';
import type { JobsConfig } from '../config.js';
import { handledEvents, outbox } from '../db/schema.js';
import { countOverdueTimers, listTimedJobs, type TimedJob } from '../db/job.repository.js';
import { applyAccept } from '../domain/review-submission.js';
import { closeUnfilledSlot, expireHold } from '../domain/release-job.js';
import { startWebhookWorker, type WebhookWorker } from './webhooks.js';

/** Queue, timer and consumer-group names: published names, never rename (stranded jobs). */
export const TIMER_QUEUE = 'jobs-timers';
export const TIMERS = {
  claimTimeout: 'claim-timeout',
  autoAccept: 'auto-accept',
  revisionWindow: 'revision-window',
  packFill: 'pack-fill',
} as const;
export const WORKER_GROUP = 'jobs-worker';

export type TimerName = (typeof TIMERS)[keyof typeof TIMERS];
export interface ClaimTimeoutData {
  jobId: string;
  testerId: string;
  deadlineAt: string;
}
export interface AutoAcceptData {
  jobId: string;
  submissionId: string;
}
export interface RevisionWindowData {
  jobId: string;
  testerId: string;
  deadlineAt: string;
}

export interface PackFillData {
  jobId: string;
}

export function bullPrefix(cfg: Pick<JobsConfig, 'REDIS_PREFIX'>): string {
  return `${cfg.REDIS_PREFIX}bull`;
}

/** Deterministic BullMQ job ids (no colons): scheduling the same timer twice is a no-op. */
export const timerIds = {
  claimTimeout: (jobId: string, deadlineAt: string) =>
    `${TIMERS.claimTimeout}-${jobId}-${Date.parse(deadlineAt)}`,
  autoAccept: (jobId: string, submissionId: string) =>
    `${TIMERS.autoAccept}-${jobId}-${submissionId}`,
  revisionWindow: (jobId: string, deadlineAt: string) =>
    `${TIMERS.revisionWindow}-${jobId}-${Date.parse(deadlineAt)}`,
  packFill: (jobId: string) => `${TIMERS.packFill}-${jobId}`,
};

/** The worker's event plumbing: ServiceEvents (record in a transaction, wake the relay after the commit). */
export type TimerEvents = Pick<ServiceEvents, 'record' | 'inTransaction'>;

export interface TimerDeps {
  events: TimerEvents;
  logger: Logger;
}

/**
 * Runs one timer. Each re-checks the job in one conditional UPDATE (the repository's
 * applyTransition 'auto_accept' / 'claim_timeout' / 'revision_expired', the same the API uses) and does nothing when the job moved on
 * (submitted in time, accepted, reclaimed...). Returns what happened.
 */
export async function runTimer(
  deps: TimerDeps,
  name: string,
  data: unknown,
): Promise<'applied' | 'stale'> {
  const at = new Date();
  const applied = await deps.events.inTransaction(async (tx: Tx) => {
    if (name === TIMERS.autoAccept) {
      const d = data as AutoAcceptData;
      return !!(await applyAccept(tx, deps, {
        jobId: d.jobId,
        submissionId: d.submissionId,
        by: 'auto',
        at,
        reason: null,
      }));
    }
    if (name === TIMERS.claimTimeout || name === TIMERS.revisionWindow) {
      const d = data as ClaimTimeoutData;
      const reason = name === TIMERS.claimTimeout ? 'claim_timeout' : 'revision_expired';
      return expireHold(tx, deps, {
        reason,
        jobId: d.jobId,
        testerId: d.testerId,
        deadlineAt: new Date(d.deadlineAt),
      });
    }
    if (name === TIMERS.packFill)
      return closeUnfilledSlot(tx, deps, { jobId: (data as PackFillData).jobId, at });
    deps.logger.error({ name }, 'unknown timer');
    return false;
  });
  deps.logger.info({ timer: name, data, applied }, 'timer fired');
  return applied ? 'applied' : 'stale';
}

export interface JobsWorkerDeps {
  config: JobsConfig;
  db: Db;
  bus: EventBus;
  logger: Logger;
  /** The API's event plumbing when both run in one process; otherwise the worker runs its own outbox relay. */
  events?: ServiceEvents;
  /** Where the `jobs_timers_overdue` gauge goes (the API's or the standalone worker's registry). */
  metrics?: Metrics;
}

/** Timers overdue by more than this show in the `jobs_timers_overdue` metric. */
export const OVERDUE_GRACE_MS = 60_000;
/** Effectively unlimited: a transient failure (database or Redis away) never exhausts a timer's attempts. */
const UNLIMITED_ATTEMPTS = 2 ** 31 - 1;

/** The wait before retry `attempt` (1-based) of a failed timer: doubling from the base, capped. */
export function timerRetryDelay(
  cfg: Pick<JobsConfig, 'TIMER_RETRY_BASE_MS' | 'TIMER_RETRY_MAX_DELAY_MS'>,
  attempt: number,
): number {
  return Math.min(
    cfg.TIMER_RETRY_BASE_MS * 2 ** Math.min(Math.max(attempt, 1) - 1, 30),
    cfg.TIMER_RETRY_MAX_DELAY_MS,
  );
}

export interface JobsWorker {
  queue: Queue;
  worker: Worker;
  /** Schedules the timer an event asks for (exposed for tests). */
  schedule(event: EventEnvelope): Promise<void>;
  /** Re-creates every timer the database says is due (missing ones fire; existing ones are left alone). */
  reconcile(): Promise<number>;
  /** Outgoing webhooks (workers/webhooks.ts), run beside the timers. */
  webhooks: WebhookWorker;
  stop(): Promise<void>;
}

/**
 * The timer worker: consumes JobClaimed, WorkSubmitted, RevisionRequested, JobPublished (a pack slot's fill deadline) and SubmissionAccepted (removes timers a job no longer needs) (consumer group
 * 'jobs-worker') and turns them into delayed BullMQ jobs, then processes those when due.
 */
export async function startJobsWorker(deps: JobsWorkerDeps): Promise<JobsWorker> {
  const { config, logger } = deps;
  const prefix = bullPrefix(config);
  let ownEvents: ServiceEvents | undefined;
  let events: ServiceEvents | undefined = deps.events;
  if (!events) {
    ownEvents = new ServiceEvents({
      service: 'jobs',
      db: deps.db,
      outbox,
      handled: handledEvents,
      bus: deps.bus,
      logger,
    });
    await ownEvents.start({ consumers: false });
    events = ownEvents;
  }
  const queueConn = createRedis(config.REDIS_URL);
  const workerConn = createBlockingRedis(config.REDIS_URL);
  queueConn.on('error', (err) => logger.warn({ err: err.message }, 'redis (timer queue) error'));
  workerConn.on('error', (err) => logger.warn({ err: err.message }, 'redis (timer worker) error'));
  const queue = new Queue(TIMER_QUEUE, {
    connection: queueConn,
    prefix,
    defaultJobOptions: {
      // Transient failures (database or Redis unreachable, disk full...) retry until they succeed
      // (capped backoff, the worker's backoffStrategy); other errors stop after TIMER_MAX_ATTEMPTS.
      attempts: UNLIMITED_ATTEMPTS,
      backoff: { type: 'capped' },
      // The last 100 completed timers are kept to look at, for a day at most: Redis holds a small
      // bounded set (reached within minutes of steady traffic), not every timer of two weeks. A
      // redelivered event scheduling a timer that already ran is harmless (it fires again, finds
      // the job moved on and does nothing). Failed timers are what an operator needs to see.
      removeOnComplete: { age: 24 * 3600, count: 100 },
      removeOnFail: { age: 30 * 24 * 3600, count: 10_000 },
    },
    // BullMQ's own event stream (nobody here reads it) is capped at 1,000 entries instead of 10,000.
    streams: { events: { maxLen: 1000 } },
  });
  const timerDeps: TimerDeps = { events, logger };
  const worker = new Worker(
    TIMER_QUEUE,
    async (job: BullJob) => {
      try {
        return await runTimer(timerDeps, job.name, job.data);
      } catch (err) {
        const attempt = job.attemptsMade + 1;
        const kind = classifyError(err);
        // A bug or a row the timer cannot apply: a few attempts, then failed (the rebuild tries it again later).
        if (kind === 'permanent' || (kind === 'unknown' && attempt >= config.TIMER_MAX_ATTEMPTS))
          throw new UnrecoverableError((err as Error).message);
        logger.warn(
          {
            err: (err as Error).message,
            timer: job.name,
            id: job.id,
            attempt,
            kind,
            retryInMs: timerRetryDelay(config, attempt),
          },
          'timer failed; will retry',
        );
        throw err;
      }
    },
    {
      connection: workerConn,
      prefix,
      concurrency: config.WORKER_CONCURRENCY,
      // Timers created before this release carry { type: 'exponential', attempts: 8 }; new ones 'capped'.
      settings: {
        backoffStrategy: (attemptsMade: number) => timerRetryDelay(config, attemptsMade),
      },
    },
  );
  worker.on('failed', (job, err) => {
    if (job && job.finishedOn)
      logger.error(
        { err: err.message, timer: job.name, id: job.id, attempts: job.attemptsMade },
        'timer failed; the rebuild retries it',
      );
  });
  if (deps.metrics && !deps.metrics.registry.getSingleMetric('jobs_timers_overdue'))
    deps.metrics.gauge(
      'jobs_timers_overdue',
      `Timers due more than ${OVERDUE_GRACE_MS / 1000} s ago and not applied yet (alert when above 0 for minutes)`,
      () => countOverdueTimers(deps.db, OVERDUE_GRACE_MS),
    );
  worker.on('error', (err) => logger.warn({ err: err.message }, 'timer worker error'));

  const delayUntil = (iso: string) => Math.max(0, Date.parse(iso) - Date.now());
  /**
   * Removes a waiting timer whose job moved on, so Redis does not hold it until its deadline
   * (a claim's can be days away). One running now is left alone (it finds the job moved on).
   */
  const removeTimer = async (id: string): Promise<void> => {
    const state = await queue.getJobState(id);
    if (state === 'delayed' || state === 'waiting' || state === 'prioritized')
      await queue.remove(id);
  };
  const schedule = async (event: EventEnvelope): Promise<void> => {
    if (event.type === 'JobClaimed') {
      const d = (event as EventEnvelope<'JobClaimed'>).data;
      const data: ClaimTimeoutData = {
        jobId: d.jobId,
        testerId: d.testerId,
        deadlineAt: d.deadlineAt,
      };
      await queue.add(TIMERS.claimTimeout, data, {
        jobId: timerIds.claimTimeout(d.jobId, d.deadlineAt),
        delay: delayUntil(d.deadlineAt),
      });
    } else if (event.type === 'WorkSubmitted') {
      const d = (event as EventEnvelope<'WorkSubmitted'>).data;
      const data: AutoAcceptData = { jobId: d.jobId, submissionId: d.submissionId };
      await queue.add(TIMERS.autoAccept, data, {
        jobId: timerIds.autoAccept(d.jobId, d.submissionId),
        delay: delayUntil(d.autoAcceptAt),
      });
      // The hold this submission ended: its timer would only fire to find the work submitted.
      if (d.heldUntil)
        await removeTimer(
          d.revision > 0
            ? timerIds.revisionWindow(d.jobId, d.heldUntil)
            : timerIds.claimTimeout(d.jobId, d.heldUntil),
        );
    } else if (event.type === 'SubmissionAccepted') {
      const d = (event as EventEnvelope<'SubmissionAccepted'>).data;
      if (d.acceptedBy !== 'auto' && d.submissionId)
        await removeTimer(timerIds.autoAccept(d.jobId, d.submissionId));
    } else if (event.type === 'RevisionRequested') {
      const d = (event as EventEnvelope<'RevisionRequested'>).data;
      const data: RevisionWindowData = {
        jobId: d.jobId,
        testerId: d.testerId,
        deadlineAt: d.deadlineAt,
      };
      await queue.add(TIMERS.revisionWindow, data, {
        jobId: timerIds.revisionWindow(d.jobId, d.deadlineAt),
        delay: delayUntil(d.deadlineAt),
      });
    } else if (event.type === 'JobPublished') {
      const d = (event as EventEnvelope<'JobPublished'>).data;
      if (!d.fillDeadlineAt) return;
      const data: PackFillData = { jobId: d.jobId };
      await queue.add(TIMERS.packFill, data, {
        jobId: timerIds.packFill(d.jobId),
        delay: delayUntil(d.fillDeadlineAt),
      });
    }
  };

  /**
   * The database is the source of truth for timers: Redis may lose them (restart without
   * persistence, failover to an empty replica, eviction, a wipe). At start-up and every
   * TIMER_RECONCILE_MS this adds a delayed job for every deadline in jobs.jobs under the same
   * deterministic id the event path uses: an existing timer makes the add a no-op, a missing
   * one is re-created, an overdue one fires at once. A due timer BullMQ holds as failed (its
   * attempts spent: a release before unlimited retries, or a bug since fixed) would make the add
   * a no-op forever, so it is retried now. Firing twice is harmless anyway (each timer re-checks
   * the job in one conditional UPDATE).
   */
  const timerFor = (
    j: TimedJob,
  ):
    | {
        name: TimerName;
        data: ClaimTimeoutData | AutoAcceptData | RevisionWindowData | PackFillData;
        jobId: string;
        at: Date;
      }
    | undefined => {
    if (j.status === 'claimed' && j.claimDeadlineAt && j.testerId) {
      const deadlineAt = j.claimDeadlineAt.toISOString();
      return {
        name: TIMERS.claimTimeout,
        data: { jobId: j.id, testerId: j.testerId, deadlineAt },
        jobId: timerIds.claimTimeout(j.id, deadlineAt),
        at: j.claimDeadlineAt,
      };
    }
    if (j.status === 'submitted' && j.autoAcceptAt && j.currentSubmissionId) {
      return {
        name: TIMERS.autoAccept,
        data: { jobId: j.id, submissionId: j.currentSubmissionId },
        jobId: timerIds.autoAccept(j.id, j.currentSubmissionId),
        at: j.autoAcceptAt,
      };
    }
    if (j.status === 'revision_requested' && j.revisionDeadlineAt && j.testerId) {
      const deadlineAt = j.revisionDeadlineAt.toISOString();
      return {
        name: TIMERS.revisionWindow,
        data: { jobId: j.id, testerId: j.testerId, deadlineAt },
        jobId: timerIds.revisionWindow(j.id, deadlineAt),
        at: j.revisionDeadlineAt,
      };
    }
    if (j.status === 'open' && j.fillDeadlineAt) {
      return {
        name: TIMERS.packFill,
        data: { jobId: j.id },
        jobId: timerIds.packFill(j.id),
        at: j.fillDeadlineAt,
      };
    }
    return undefined;
  };
  let reconciling: Promise<number> | undefined;
  const reconcile = (): Promise<number> =>
    (reconciling ??= (async () => {
      let after: string | undefined;
      let n = 0;
      for (;;) {
        const page = await listTimedJobs(deps.db, after, 500);
        if (!page.length) break;
        const timers = page.map(timerFor).filter((t) => !!t);
        await queue.addBulk(
          timers.map((t) => ({
            name: t.name,
            data: t.data,
            opts: { jobId: t.jobId, delay: Math.max(0, t.at.getTime() - Date.now()) },
          })),
        );
        for (const t of timers) {
          if (t.at.getTime() > Date.now()) continue;
          const state = await queue.getJobState(t.jobId);
          // A pack's slot open past its fill deadline whose timer already ran (the slot was held
          // then, and released since): it is closed now, by running its timer again.
          if (state === 'completed' && t.name === TIMERS.packFill) {
            await queue.remove(t.jobId);
            await queue.add(t.name, t.data, { jobId: t.jobId });
            continue;
          }
          if (state !== 'failed') continue;
          const failed = await queue.getJob(t.jobId);
          if (!failed) continue;
          logger.warn(
            { timer: t.name, id: t.jobId, attempts: failed.attemptsMade, err: failed.failedReason },
            'due timer had failed; retrying it',
          );
          // Spent attempts start again (a timer scheduled before unlimited retries had 8).
          await failed
            .retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true })
            .catch((err: Error) =>
              logger.warn({ err: err.message, id: t.jobId }, 'could not retry a failed timer'),
            );
        }
        n += timers.length;
        after = page[page.length - 1].id;
      }
      logger.debug({ timers: n }, 'timers reconciled from the database');
      return n;
    })().finally(() => (reconciling = undefined)));
  const reconcileQuietly = () =>
    reconcile().catch((err: Error) =>
      logger.warn(
        { err: err.message },
        'timer reconciliation failed; retried at the next interval',
      ),
    );
  await reconcileQuietly();
  const reconcileTimer = setInterval(() => void reconcileQuietly(), config.TIMER_RECONCILE_MS);
  reconcileTimer.unref();

  const sub: Subscription = await deps.bus.subscribe({
    group: WORKER_GROUP,
    sources: ['jobs'],
    handler: async (event) => {
      await schedule(event);
    },
  });
  logger.info({ queue: TIMER_QUEUE, prefix }, 'jobs timer worker started');
  const webhooks = await startWebhookWorker({ config, db: deps.db, bus: deps.bus, logger, events });

  let stopping: Promise<void> | undefined;
  return {
    queue,
    worker,
    schedule,
    reconcile,
    webhooks,
    stop: () =>
      (stopping ??= (async () => {
        clearInterval(reconcileTimer);
        await webhooks.stop();
        await reconciling?.catch(() => undefined);
        await sub.stop();
        await worker.close();
        await queue.close();
        workerConn.disconnect();
        queueConn.disconnect();
        await ownEvents?.stop();
      })()),
  };
}
