/**
 * For tests and the bench only (`import { availableJobsQuery } from '@htm/jobs/testing'`): the
 * tester listing's query as the repository builds it, so bench/listing-scale.ts can EXPLAIN it,
 * and deleteRecording, so bench/recording-upload.ts can free the disk between its rounds.
 */
export { availableJobsQuery } from './db/job.repository.js';
export { deleteRecording } from './domain/recordings.js';
