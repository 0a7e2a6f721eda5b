/**
 * For tests and the bench only (`import { availableJobsQuery } from '@htm/jobs/testing'`): the
 * tester listing's query as the repository builds it, so bench/listing-scale.ts can EXPLAIN it.
 */
export { availableJobsQuery } from './db/job.repository.js';
