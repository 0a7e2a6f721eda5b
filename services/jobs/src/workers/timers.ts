import { and, eq } from 'drizzle-orm';
import { Queue, Worker, type Job as BullJob } from 'bullmq';
import type { Logger } from 'pino';
import { createEvent, ServiceEvents, type EventBus, type EventEnvelope, type Subscription } from '@htm/events';
import { createBlockingRedis, createRedis, type Db } from '@htm/service-kit';
import type { Tx } from '@htm/service-kit/db';
import type { JobsConfig } from '../config.js';
import { handledEvents, jobs, outbox } from '../db/schema.js';
import { addStrike } from '../db/job.repository.js';
import { applyAccept } from '../domain/review-submission.js';

/** Queue, timer and consumer-group names: published names, never rename (stranded jobs). */
export const TIMER_QUEUE = 'jobs-timers';
export const TIMERS = { claimTimeout: 'claim-timeout', autoAccept: 'auto-accept', revisionWindow: 'revision-window' } as const;
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

export function bullPrefix(cfg: Pick<JobsConfig, 'REDIS_PREFIX'>): string {
  return `${cfg.REDIS_PREFIX}bull`;
}

/** Deterministic BullMQ job ids (no colons): scheduling the same timer twice is a no-op. */
export const timerIds = {
  claimTimeout: (jobId: string, deadlineAt: string) => `${TIMERS.claimTimeout}-${jobId}-${Date.parse(deadlineAt)}`,
  autoAccept: (jobId: string, submissionId: string) => `${TIMERS.autoAccept}-${jobId}-${submissionId}`,
  revisionWindow: (jobId: string, deadlineAt: string) => `${TIMERS.revisionWindow}-${jobId}-${Date.parse(deadlineAt)}`,
};

interface Recorder {
  record(tx: Tx | Db, ...events: EventEnvelope[]): Promise<void>;
  kick(): void;
}

export interface TimerDeps {
  db: Db;
  events: Recorder;
  logger: Logger;
}

/**
 * Runs one timer. Each re-checks the job in one conditional UPDATE and does nothing when the
 * job moved on (submitted in time, accepted, reclaimed...). Returns what happened.
 */
export async function runTimer(deps: TimerDeps, name: string, data: unknown): Promise<'applied' | 'stale'> {
  const at = new Date();
  const applied = await deps.db.transaction(async (tx) => {
    if (name === TIMERS.autoAccept) {
      const d = data as AutoAcceptData;
      return !!(await applyAccept(tx, deps, { jobId: d.jobId, submissionId: d.submissionId, by: 'auto', at, reason: null }));
    }
    if (name === TIMERS.claimTimeout || name === TIMERS.revisionWindow) {
      const d = data as ClaimTimeoutData;
      const claim = name === TIMERS.claimTimeout;
      const [row] = await tx
        .update(jobs)
        .set({
          status: 'open',
          testerId: null,
          claimedAt: null,
          claimDeadlineAt: null,
          submittedAt: null,
          autoAcceptAt: null,
          revisionDeadlineAt: null,
          currentSubmissionId: null,
          revisionCount: 0,
        })
        .where(
          and(
            eq(jobs.id, d.jobId),
            eq(jobs.testerId, d.testerId),
            claim
              ? and(eq(jobs.status, 'claimed'), eq(jobs.claimDeadlineAt, new Date(d.deadlineAt)))
              : and(eq(jobs.status, 'revision_requested'), eq(jobs.revisionDeadlineAt, new Date(d.deadlineAt))),
          ),
        )
        .returning({ id: jobs.id });
      if (!row) return false;
      const reason = claim ? 'claim_timeout' : 'revision_expired';
      const strikes = await addStrike(tx, d.testerId);
      await deps.events.record(
        tx,
        createEvent('JobReleased', d.jobId, { jobId: d.jobId, testerId: d.testerId, reason }),
        createEvent('TesterStrikeRecorded', d.testerId, {
          testerId: d.testerId,
          jobId: d.jobId,
          strikes,
          reason: claim ? 'The claim ran out before work was submitted.' : 'The revision was not resubmitted in time.',
        }),
      );
      return true;
    }
    deps.logger.error({ name }, 'unknown timer');
    return false;
  });
  if (applied) deps.events.kick();
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
}

export interface JobsWorker {
  queue: Queue;
  worker: Worker;
  /** Schedules the timer an event asks for (exposed for tests). */
  schedule(event: EventEnvelope): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The timer worker: consumes JobClaimed, WorkSubmitted and RevisionRequested (consumer group
 * 'jobs-worker') and turns them into delayed BullMQ jobs, then processes those when due.
 */
export async function startJobsWorker(deps: JobsWorkerDeps): Promise<JobsWorker> {
  const { config, logger } = deps;
  const prefix = bullPrefix(config);
  let ownEvents: ServiceEvents | undefined;
  let events: ServiceEvents | undefined = deps.events;
  if (!events) {
    ownEvents = new ServiceEvents({ service: 'jobs', db: deps.db, outbox, handled: handledEvents, bus: deps.bus, logger });
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
      attempts: 8,
      backoff: { type: 'exponential', delay: 1000 },
      // Kept for a while so a redelivered event cannot schedule the same timer again.
      removeOnComplete: { age: 14 * 24 * 3600 },
      removeOnFail: { age: 30 * 24 * 3600 },
    },
  });
  const timerDeps: TimerDeps = { db: deps.db, events, logger };
  const worker = new Worker(TIMER_QUEUE, async (job: BullJob) => runTimer(timerDeps, job.name, job.data), {
    connection: workerConn,
    prefix,
    concurrency: config.WORKER_CONCURRENCY,
  });
  worker.on('failed', (job, err) => logger.error({ err: err.message, timer: job?.name, id: job?.id }, 'timer failed'));
  worker.on('error', (err) => logger.warn({ err: err.message }, 'timer worker error'));

  const delayUntil = (iso: string) => Math.max(0, Date.parse(iso) - Date.now());
  const schedule = async (event: EventEnvelope): Promise<void> => {
    if (event.type === 'JobClaimed') {
      const d = (event as EventEnvelope<'JobClaimed'>).data;
      const data: ClaimTimeoutData = { jobId: d.jobId, testerId: d.testerId, deadlineAt: d.deadlineAt };
      await queue.add(TIMERS.claimTimeout, data, { jobId: timerIds.claimTimeout(d.jobId, d.deadlineAt), delay: delayUntil(d.deadlineAt) });
    } else if (event.type === 'WorkSubmitted') {
      const d = (event as EventEnvelope<'WorkSubmitted'>).data;
      const data: AutoAcceptData = { jobId: d.jobId, submissionId: d.submissionId };
      await queue.add(TIMERS.autoAccept, data, { jobId: timerIds.autoAccept(d.jobId, d.submissionId), delay: delayUntil(d.autoAcceptAt) });
    } else if (event.type === 'RevisionRequested') {
      const d = (event as EventEnvelope<'RevisionRequested'>).data;
      const data: RevisionWindowData = { jobId: d.jobId, testerId: d.testerId, deadlineAt: d.deadlineAt };
      await queue.add(TIMERS.revisionWindow, data, { jobId: timerIds.revisionWindow(d.jobId, d.deadlineAt), delay: delayUntil(d.deadlineAt) });
    }
  };

  const sub: Subscription = await deps.bus.subscribe({
    group: WORKER_GROUP,
    sources: ['jobs'],
    handler: async (event) => {
      await schedule(event);
    },
  });
  logger.info({ queue: TIMER_QUEUE, prefix }, 'jobs timer worker started');

  let stopping: Promise<void> | undefined;
  return {
    queue,
    worker,
    schedule,
    stop: () =>
      (stopping ??= (async () => {
        await sub.stop();
        await worker.close();
        await queue.close();
        workerConn.disconnect();
        queueConn.disconnect();
        await ownEvents?.stop();
      })()),
  };
}
