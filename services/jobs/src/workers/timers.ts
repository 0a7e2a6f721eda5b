import { DelayedError, Queue, UnrecoverableError, Worker, type Job as BullJob } from 'bullmq';
import type { Logger } from 'pino';
import { classifyError, ServiceEvents, type EventBus, type EventEnvelope } from '@htm/events';
import { createBlockingRedis, createRedis, type Db, type Metrics } from '@htm/service-kit';
import type { Tx } from '@htm/service-kit/db';
import { TRANSITIONS, type JobTimer, type Transition } from '@htm/contracts/marketplace';
import type { JobsConfig } from '../config.js';
import { handledEvents, outbox } from '../db/schema.js';
import {
  countOverdueTimers,
  findJob,
  listTimedJobs,
  reportHeld,
  type TimedJob,
} from '../db/job.repository.js';
import { applyAccept } from '../domain/review/review-submission.js';
import { closeUnfilledSlot, expireHold } from '../domain/release-job.js';
import { timerDueAt } from '../domain/job-state.js';
import { startWebhookWorker, type WebhookWorker } from './webhooks.js';

/** Queue, timer and consumer-group names: published names, never rename (stranded jobs). */
export const TIMER_QUEUE = 'jobs-timers';
export const TIMERS = {
  claimTimeout: 'claim-timeout',
  autoAccept: 'auto-accept',
  revisionWindow: 'revision-window',
  packFill: 'pack-fill',
} as const;
/**
 * The consumer group the worker read the jobs stream with until #50 (its timers now follow from
 * the outbox relay, `timersOf`): kept as a published name, and for its dead letters.
 */
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

/** Effectively unlimited: a transient failure (database or Redis away) never exhausts a timer's attempts. */
const UNLIMITED_ATTEMPTS = 2 ** 31 - 1;

/** The timer queue's options, the same for every Queue that adds timers (the worker's, the API's). */
export function timerQueueOptions(config: Pick<JobsConfig, 'REDIS_PREFIX'>) {
  return {
    prefix: bullPrefix(config),
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
  };
}

/** A timer to add: its BullMQ name, data, deterministic id and when it fires. */
export interface TimerSpec {
  name: TimerName;
  data: ClaimTimeoutData | AutoAcceptData | RevisionWindowData | PackFillData;
  jobId: string;
  at: Date;
}

/** The transition table's `timers` of the rows that record this event (rows sharing an event agree: job-state.test.ts). */
export function tableTimersOf(type: string): Transition['timers'] {
  return Object.values(TRANSITIONS).find((t) => t.event === type)?.timers;
}

/**
 * The timers one of this service's events starts and ends: for an event of the transition table,
 * the table row's `timers` (each started one fires at the deadline the event carries; ended ones
 * are the hold the change finished); for JobPublished, a pack slot's fill deadline. Pure: the
 * outbox relay applies it to every batch it publishes (`TimerScheduler`).
 */
export function timersOf(event: EventEnvelope): { add: TimerSpec[]; remove: string[] } {
  const add: TimerSpec[] = [];
  const remove: string[] = [];
  if (event.type === 'JobPublished') {
    const d = (event as EventEnvelope<'JobPublished'>).data;
    if (d.fillDeadlineAt)
      add.push({
        name: TIMERS.packFill,
        data: { jobId: d.jobId },
        jobId: timerIds.packFill(d.jobId),
        at: new Date(d.fillDeadlineAt),
      });
    return { add, remove };
  }
  const timers = tableTimersOf(event.type);
  // A hold's timer (the claim's, the revision window's): fires at the deadline the event carries.
  const hold = (name: typeof TIMERS.claimTimeout | typeof TIMERS.revisionWindow): TimerSpec => {
    const d = (event as EventEnvelope<'JobClaimed' | 'RevisionRequested'>).data;
    const id = name === TIMERS.claimTimeout ? timerIds.claimTimeout : timerIds.revisionWindow;
    return {
      name,
      data: { jobId: d.jobId, testerId: d.testerId, deadlineAt: d.deadlineAt },
      jobId: id(d.jobId, d.deadlineAt),
      at: new Date(d.deadlineAt),
    };
  };
  const starts: Record<JobTimer, () => TimerSpec> = {
    claim_timeout: () => hold(TIMERS.claimTimeout),
    auto_accept: () => {
      const d = (event as EventEnvelope<'WorkSubmitted'>).data;
      return {
        name: TIMERS.autoAccept,
        data: { jobId: d.jobId, submissionId: d.submissionId },
        jobId: timerIds.autoAccept(d.jobId, d.submissionId),
        at: new Date(d.autoAcceptAt),
      };
    },
    revision_window: () => hold(TIMERS.revisionWindow),
  };
  if (timers?.starts) add.push(starts[timers.starts]());
  const d = event.data as {
    jobId: string;
    revision?: number;
    heldUntil?: string;
    submissionId?: string;
  };
  for (const ended of timers?.ends ?? []) {
    // The hold a submission ended: the claim's timer (revision 0) or the revision window's.
    if (ended === 'claim_timeout' && d.heldUntil && !d.revision)
      remove.push(timerIds.claimTimeout(d.jobId, d.heldUntil));
    if (ended === 'revision_window' && d.heldUntil && d.revision)
      remove.push(timerIds.revisionWindow(d.jobId, d.heldUntil));
    // The auto-accept of the accepted submission (when the timer itself accepted, it is running: left alone).
    if (ended === 'auto_accept' && d.submissionId)
      remove.push(timerIds.autoAccept(d.jobId, d.submissionId));
  }
  return { add, remove };
}

/**
 * Adds and removes the timers `events` call for on `queue` (timersOf), in order. Adding an id
 * already there is a no-op; a removed timer is only one still waiting (one running now is left
 * alone: it finds the job moved on).
 */
export async function applyTimers(queue: Queue, events: EventEnvelope[]): Promise<void> {
  for (const event of events) {
    const { add, remove } = timersOf(event);
    for (const t of add)
      await queue.add(t.name, t.data, {
        jobId: t.jobId,
        delay: Math.max(0, t.at.getTime() - Date.now()),
      });
    for (const id of remove) {
      const state = await queue.getJobState(id);
      if (state === 'delayed' || state === 'waiting' || state === 'prioritized')
        await queue.remove(id);
    }
  }
}

/**
 * The jobs service's timers, derived from its own events as its outbox relay publishes them (every
 * process that relays jobs' outbox has one: the API's replicas, a standalone worker). The database
 * is the source of truth: a timer this misses (a crash between the commit and here, Redis away) is
 * rebuilt by the worker's reconciler from the deadlines in jobs.jobs.
 */
export class TimerScheduler {
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    readonly queue: Queue,
    private readonly logger: Logger,
    private readonly onClose?: () => Promise<void>,
  ) {}

  /** A Queue of its own on REDIS_URL (the API's side: it adds timers, the worker runs them). */
  static fromConfig(config: JobsConfig, logger: Logger): TimerScheduler {
    const conn = createRedis(config.REDIS_URL);
    conn.on('error', (err) => logger.warn({ err: err.message }, 'redis (timer scheduling) error'));
    const queue = new Queue(TIMER_QUEUE, { connection: conn, ...timerQueueOptions(config) });
    return new TimerScheduler(queue, logger, async () => {
      await queue.close();
      conn.disconnect();
    });
  }

  /** The outbox relay's hook: schedules after the batches before it, never throws. */
  relayed(events: EventEnvelope[]): void {
    if (this.closed || !events.some((e) => e.type === 'JobPublished' || tableTimersOf(e.type)))
      return;
    this.chain = this.chain
      .then(() => applyTimers(this.queue, events))
      .catch((err: Error) =>
        this.logger.warn(
          { err: err.message, events: events.length },
          'timers not scheduled now; the reconciler rebuilds them from the database',
        ),
      );
  }

  /** Resolves once every batch told so far is applied. */
  settled(): Promise<void> {
    return this.chain;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.chain;
    await this.onClose?.();
  }
}

/** The worker's event plumbing: ServiceEvents (record in a transaction, wake the relay after the commit). */
export type TimerEvents = Pick<ServiceEvents, 'record' | 'inTransaction'>;

export interface TimerDeps {
  events: TimerEvents;
  logger: Logger;
  config: JobsConfig;
}

/** What a timer run did: applied, nothing (stale), or nothing yet (the job's own deadline is later: run it again then). */
export type TimerOutcome = 'applied' | 'stale' | { notDueUntil: Date };

/** How long an auto-accept waits again while the report's session check still holds it. */
const HELD_REPORT_RETRY_MS = 10 * 60_000;

/** The transition each timer applies (the table's `due` column says when the job allows it). */
const TIMER_ACTIONS = {
  [TIMERS.autoAccept]: 'auto_accept',
  [TIMERS.claimTimeout]: 'claim_timeout',
  [TIMERS.revisionWindow]: 'revision_expired',
  [TIMERS.packFill]: 'close_unfilled',
} as const;

/**
 * Runs one timer. Each re-checks the job in one conditional UPDATE (the repository's
 * applyTransition 'auto_accept' / 'claim_timeout' / 'revision_expired' / 'close_unfilled', the
 * same the API uses) and does nothing when the job moved on (submitted in time, accepted,
 * reclaimed...) or when the job's own deadline, as the database holds it, has not come (a timer
 * added by hand, or fired early): then it answers when to run again. Returns what happened.
 */
export async function runTimer(
  deps: TimerDeps,
  name: string,
  data: unknown,
): Promise<TimerOutcome> {
  const at = new Date();
  const outcome = await deps.events.inTransaction(async (tx: Tx): Promise<TimerOutcome> => {
    // A report its session check still holds is not accepted unseen: asked again a little later.
    if (name === TIMERS.autoAccept && (await reportHeld(tx, (data as AutoAcceptData).submissionId)))
      return { notDueUntil: new Date(at.getTime() + HELD_REPORT_RETRY_MS) };
    const applied = await applyTimer(tx, deps, name, data, at);
    if (applied) return 'applied';
    const action = TIMER_ACTIONS[name as TimerName];
    if (!action) return 'stale';
    const d = data as Partial<ClaimTimeoutData & AutoAcceptData>;
    const jobId = String(d.jobId);
    const dueAt = timerDueAt((await findJob(tx, jobId)) ?? null, action, {
      jobId,
      testerId: d.testerId,
      submissionId: d.submissionId,
      deadlineAt: d.deadlineAt ? new Date(d.deadlineAt) : undefined,
    });
    return dueAt && dueAt.getTime() > at.getTime() ? { notDueUntil: dueAt } : 'stale';
  });
  deps.logger.info(
    {
      timer: name,
      data,
      applied: outcome === 'applied',
      ...(typeof outcome === 'object' && { notDueUntil: outcome.notDueUntil.toISOString() }),
    },
    typeof outcome === 'object' ? 'timer fired before its job is due: deferred' : 'timer fired',
  );
  return outcome;
}

/** The timer's action in the transaction: true when it changed the job. */
async function applyTimer(
  tx: Tx,
  deps: TimerDeps,
  name: string,
  data: unknown,
  at: Date,
): Promise<boolean> {
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
      at,
    });
  }
  if (name === TIMERS.packFill)
    return closeUnfilledSlot(tx, deps, { jobId: (data as PackFillData).jobId, at });
  deps.logger.error({ name }, 'unknown timer');
  return false;
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
 * The timer worker: runs the delayed BullMQ jobs when due (each re-checks the job), rebuilds the
 * timers the database says are due (the reconciler) and sends the webhooks. The timers are added
 * by whoever relays jobs' outbox (`TimerScheduler`: the API's processes; this worker's own relay
 * when it runs alone): the jobs service never reads its own stream.
 */
export async function startJobsWorker(deps: JobsWorkerDeps): Promise<JobsWorker> {
  const { config, logger } = deps;
  const prefix = bullPrefix(config);
  const queueConn = createRedis(config.REDIS_URL);
  const workerConn = createBlockingRedis(config.REDIS_URL);
  queueConn.on('error', (err) => logger.warn({ err: err.message }, 'redis (timer queue) error'));
  workerConn.on('error', (err) => logger.warn({ err: err.message }, 'redis (timer worker) error'));
  const queue = new Queue(TIMER_QUEUE, { connection: queueConn, ...timerQueueOptions(config) });
  let ownEvents: ServiceEvents | undefined;
  let ownTimers: TimerScheduler | undefined;
  let events: ServiceEvents | undefined = deps.events;
  if (!events) {
    // Alone (worker-main): its own relay publishes what the timers record, and schedules from it.
    ownTimers = new TimerScheduler(queue, logger);
    const timers = ownTimers;
    ownEvents = new ServiceEvents({
      service: 'jobs',
      db: deps.db,
      outbox,
      handled: handledEvents,
      bus: deps.bus,
      logger,
      relayed: (batch) => timers.relayed(batch),
    });
    await ownEvents.start({ consumers: false });
    events = ownEvents;
  }
  const timerDeps: TimerDeps = { events, logger, config };
  const worker = new Worker(
    TIMER_QUEUE,
    async (job: BullJob, token?: string) => {
      let outcome: TimerOutcome;
      try {
        outcome = await runTimer(timerDeps, job.name, job.data);
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
      if (typeof outcome !== 'object') return outcome;
      // Early (added by hand, or a clock ahead of the one that set the deadline): again when due.
      await job.moveToDelayed(outcome.notDueUntil.getTime(), token);
      throw new DelayedError();
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

  /** Schedules the timers an event asks for (timersOf; exposed for tests, as after a redelivery). */
  const schedule = (event: EventEnvelope): Promise<void> => applyTimers(queue, [event]);

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

  logger.info({ queue: TIMER_QUEUE, prefix }, 'jobs timer worker started');
  const webhooks = await startWebhookWorker({ config, db: deps.db, logger, events });

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
        await worker.close();
        // Its own relay publishes what the timers recorded (and schedules from it) before the queue closes.
        await ownEvents?.stop();
        await ownTimers?.close();
        await queue.close();
        workerConn.disconnect();
        queueConn.disconnect();
      })()),
  };
}
