/**
 * The timer worker on its own (production: a separate deployment next to the API, both on
 * DATABASE_URL). With PGlite (no DATABASE_URL) run the worker inside the API process instead:
 * startJobs(env, { withWorker: true }).
 */
import { fileURLToPath } from 'node:url';
import { createEventBus } from '@htm/events';
import {
  createHttpApp,
  createLogger,
  listen,
  Metrics,
  openDatabase,
  type RunningServer,
  runMain,
} from '@htm/service-kit';
import { loadJobsConfig, type JobsConfig } from './config.js';
import { migrationsFolder } from './main.js';
import { startJobsWorker, type JobsWorker } from './workers/timers.js';

export async function startWorkerProcess(
  env: Record<string, string | undefined> = process.env,
  opts: { port?: number; config?: JobsConfig } = {},
): Promise<{ worker: JobsWorker; health: RunningServer; stop(): Promise<void> }> {
  const config = opts.config ?? loadJobsConfig(env);
  const logger = createLogger('jobs-worker', config.LOG_LEVEL);
  if (!config.DATABASE_URL)
    logger.warn(
      'no DATABASE_URL: this worker opens its own PGlite; do not run it beside a jobs API using the same DATA_DIR',
    );
  const dbHandle = await openDatabase({
    schema: 'jobs',
    migrationsFolder,
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    logger,
  });
  const bus = createEventBus(config, logger, { clientId: 'jobs-worker' });
  // Probes and Prometheus first: /healthz, /readyz (database + queue Redis), /metrics with queue depths.
  const late: { worker?: JobsWorker } = {};
  const queueOf = () => {
    if (!late.worker) throw new Error('timer worker not started yet');
    return late.worker.queue;
  };
  const metrics = new Metrics('jobs-worker', { defaultMetrics: true });
  for (const state of ['waiting', 'delayed', 'active', 'failed'] as const) {
    metrics.gauge(
      `timer_queue_${state}`,
      `BullMQ timer jobs ${state}`,
      async () => (await queueOf().getJobCounts(state))[state] ?? 0,
    );
  }
  const app = createHttpApp(
    {
      service: 'jobs-worker',
      logger,
      metrics,
      readiness: {
        database: () => dbHandle.ping(),
        redis: () => queueOf().getJobCounts('waiting'),
      },
    },
    () => undefined,
  );
  const health = await listen(app, opts.port ?? config.WORKER_PORT, config.HOST);
  const started = await startJobsWorker({ config, db: dbHandle.db, bus, logger, metrics });
  late.worker = started;
  return {
    worker: started,
    health,
    stop: async () => {
      await health.close();
      await started.stop();
      await bus.close();
      await dbHandle.close();
    },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // The configuration is parsed once, here (a bad key is a fatal start-up error), and passed down.
  await runMain('jobs-worker', () =>
    startWorkerProcess(process.env, { config: loadJobsConfig(process.env) }),
  );
}
