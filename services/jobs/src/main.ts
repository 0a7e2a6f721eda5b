import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostService, type HostedService } from '@htm/events';
import { diskSpaceCheck, runMain, type DbListener } from '@htm/service-kit';
import { jobsServiceKeys, loadJobsConfig, type JobsConfig } from './config.js';
import { mountJobs } from './app.js';
import type { JobsDeps } from './deps.js';
import { handledEvents, outbox } from './db/schema.js';
import { jobsEventHandlers } from './events/handlers.js';
import { createFileStorage, uploadRoot } from './providers/file-storage.js';
import { FileLinkSigner } from './providers/file-links.js';
import { createRecordingStore } from './providers/recording-store.js';
import { ffmpegTools } from './providers/media-tools.js';
import { createLexicon } from './providers/lexicon.js';
import { sweepRecordings } from './domain/recordings.js';
import { startJobsWorker, TimerScheduler, type JobsWorker } from './workers/timers.js';
import { announcesWebhook } from './workers/webhooks.js';
import { startSessionCheckWorker, type SessionCheckWorker } from './workers/session-checks.js';
import { startSummaryWorker, type SummaryWorker } from './workers/summaries.js';
import { ClaimGate, JOB_STATUS_CHANNEL } from './db/claim-gate.js';
import { JobsReadCache } from './db/read-cache.js';
import { sweepUploadTmp } from './http/multipart.js';
import { createPaymentsClient, paymentsTransport } from './clients/payments.client.js';

export const migrationsFolder = fileURLToPath(new URL('./db/migrations', import.meta.url));

export interface StartJobsOptions {
  port?: number;
  /** Also run the BullMQ timer worker in this process, sharing the database (needed with PGlite). */
  withWorker?: boolean;
  /** Share a PGlite instance. */
  pglite?: unknown;
  /** The configuration, when the caller parsed it already (the process entry): `env` is then not read again. */
  config?: JobsConfig;
}

export type JobsService = HostedService<JobsConfig> & {
  deps: JobsDeps;
  worker?: JobsWorker;
  /** Session checks of new submissions (every jobs process runs them). */
  sessionChecks: { checkDue(): Promise<number> };
  /** Report summaries waiting to be computed (issue #51): tests run a round without the poll. */
  summaries: { computeDue(): Promise<number> };
};

/** Starts the jobs service (PORT 0 = any free port). Used by main, `npm start` and tests. */
export async function startJobs(
  env: Record<string, string | undefined> = process.env,
  opts: StartJobsOptions = {},
): Promise<JobsService> {
  const config = opts.config ?? loadJobsConfig(env);
  const serviceKeys = jobsServiceKeys(config);
  let deps!: JobsDeps;
  let worker: JobsWorker | undefined;
  let sessionChecks: SessionCheckWorker | undefined;
  let summaries: SummaryWorker | undefined;
  let statusNotices: DbListener | undefined;
  let recordingSweep: NodeJS.Timeout | undefined;
  let timers: TimerScheduler | undefined;
  const svc = await hostService({
    name: 'jobs',
    config,
    migrationsFolder,
    tables: { outbox, handled: handledEvents },
    port: opts.port,
    pglite: opts.pglite,
    setup: (ctx) => {
      const claimsLostInMemory = ctx.metrics.counter(
        'jobs_claims_lost_in_memory_total',
        'Claims answered 409 job_taken without a database read: they overlapped a winning claim of the same job in this process, or the job is known to be claimed',
      );
      deps = Object.assign(Object.create(ctx) as JobsDeps, {
        storage: createFileStorage(config),
        links: FileLinkSigner.fromConfig(config),
        serviceKeys,
        payments: createPaymentsClient({
          transport: paymentsTransport({
            baseUrl: config.PAYMENTS_URL,
            keys: serviceKeys,
            timeoutMs: config.PAYMENTS_TIMEOUT_MS,
          }),
          logger: ctx.logger.child({ client: 'payments' }),
        }),
        tmpDir: path.join(uploadRoot(config), 'tmp'),
        readCache: new JobsReadCache({ ttlMs: config.READ_CACHE_TTL_MS, metrics: ctx.metrics }),
        claimGate: new ClaimGate(() => claimsLostInMemory.inc()),
        recordingStore: createRecordingStore(config),
        media: ffmpegTools(config.FFMPEG_PATH, config.FFPROBE_PATH),
        recordingWork: new Set<Promise<void>>(),
        lexicon: createLexicon(),
      });
      timers = TimerScheduler.fromConfig(config, ctx.logger.child({ component: 'timers' }));
      // A bad store configuration shows at start-up, not at the first upload.
      deps.recordingStore.catch(() => undefined);
      return {
        app: (createHttp) => createHttp((app) => mountJobs(app, deps)),
        readiness: { disk: diskSpaceCheck(uploadRoot(config), config.MIN_FREE_DISK_BYTES) },
        handlers: jobsEventHandlers(() => deps),
        // jobs' own effects of its published events: the timers they start and end (the worker runs
        // them), and a nudge to this process's webhook worker when a change wrote deliveries.
        relayed: (events) => {
          timers?.relayed(events);
          if (worker && events.some(announcesWebhook))
            void worker.webhooks.deliverDue().catch(() => undefined);
        },
        start: async () => {
          // Temporary upload files a crash or kill left behind (nobody writes them any more).
          const swept = await sweepUploadTmp(deps.tmpDir, config.UPLOAD_IDLE_TIMEOUT_MS);
          if (swept)
            ctx.logger.info(
              { files: swept, dir: deps.tmpDir },
              'removed abandoned temporary uploads',
            );
          await deps.recordingStore;
          await deps.readCache.start(ctx.dbHandle);
          // Claimed jobs remembered from the job status notices (any process); off with the read cache.
          if (config.READ_CACHE_TTL_MS > 0) {
            const notices = (statusNotices = await ctx.dbHandle.listen(
              JOB_STATUS_CHANNEL,
              (payload) => deps.claimGate.statusNotice(payload),
            ));
            deps.claimGate.followStatusNotices(() => notices.live);
          }
          // Abandoned uploads and recordings past their retention (deleting twice is harmless, so
          // every replica may sweep).
          const sweep = () =>
            void sweepRecordings(deps).catch((err) =>
              ctx.logger.error({ err: (err as Error).message }, 'recording sweep failed'),
            );
          recordingSweep = setInterval(sweep, config.RECORDING_SWEEP_MS);
          recordingSweep.unref();
          sweep();
          sessionChecks = startSessionCheckWorker(deps);
          summaries = deps.summaries = startSummaryWorker(deps);
          if (opts.withWorker)
            worker = await startJobsWorker({
              config,
              db: ctx.db,
              bus: ctx.bus,
              logger: ctx.logger.child({ component: 'worker' }),
              events: ctx.events,
              metrics: ctx.metrics,
            });
        },
        stop: async () => {
          clearInterval(recordingSweep);
          await sessionChecks?.stop();
          await summaries?.stop();
          await worker?.stop();
          await Promise.allSettled([...deps.recordingWork]);
          await deps.readCache.stop();
          deps.claimGate.followStatusNotices(() => false);
          await statusNotices?.close();
          // Timers the last relay pass (at shutdown) misses are rebuilt by the worker's reconciler.
          await timers?.close();
        },
      };
    },
  });
  return Object.assign(svc, {
    deps,
    worker,
    sessionChecks: { checkDue: () => sessionChecks?.checkDue() ?? Promise.resolve(0) },
    summaries: { computeDue: () => summaries?.computeDue() ?? Promise.resolve(0) },
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runMain('jobs', () => {
    // The configuration is parsed once, here (a bad key is a fatal start-up error), and passed down.
    const config = loadJobsConfig(process.env);
    return startJobs(process.env, { config, withWorker: config.JOBS_WITH_WORKER });
  });
}
