/**
 * For tests and the bench only (`import { availableJobsQuery } from '@htm/jobs/testing'`): the
 * tester listing's query as the repository builds it, so bench/listing-scale.ts can EXPLAIN it,
 * and deleteRecording, so bench/recording-upload.ts can free the disk between its rounds.
 */
export { availableJobsQuery } from './db/job.repository.js';
export { deleteRecording } from './domain/recordings.js';
/** The media provider, so bench/session-check.ts measures exactly what the session checks run. */
export { ffmpegTools } from './providers/media-tools.js';
/**
 * The summary's computation and the lexicon, so bench/summary.ts measures what a jobs process runs
 * (and bench/report-pack.ts the worker's whole step).
 */
export { computeSummary, summaryInputOf } from './domain/summaries.js';
export { summarize, type SummarySubmission } from './domain/report-summary.js';
export { createLexicon } from './providers/lexicon.js';
/** A health check finding as site-check writes it, for the summary's tests. */
export { SLOW_ON_PHONE } from './domain/machine-finding.fixture.js';
