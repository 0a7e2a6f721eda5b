export { startJobs, type JobsService, type StartJobsOptions } from './main.js';
export {
  startJobsWorker,
  TIMER_QUEUE,
  TIMERS,
  WORKER_GROUP,
  type JobsWorker,
} from './workers/timers.js';
export { loadJobsConfig, type JobsConfig } from './config.js';
