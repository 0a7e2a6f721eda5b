import { DEFAULT_RECORDING_LIMITS, type RecordingLimits } from '@htm/contracts/findings';
import { api } from '../../../lib/api';
import { jobList, jobTags } from '../../../lib/job-cache';
import type { MyJobsResponse as MyJobsPage } from '@htm/contracts/jobs';

/** GET /api/tester/my-jobs: the tester's jobs and the limits the screen recorder respects. */
export type { MyJobsPage };

export const myJobsApi = api.injectEndpoints({
  endpoints: (build) => ({
    listMyJobs: build.query<MyJobsPage, void>({
      query: () => ({ url: '/tester/my-jobs' }),
      transformResponse: (r: Partial<MyJobsPage>) => ({
        jobs: r.jobs ?? [],
        recording_limits: r.recording_limits ?? DEFAULT_RECORDING_LIMITS,
      }),
      providesTags: (r) => jobTags(r?.jobs ?? [], 'MyJob'),
    }),
  }),
});

/** The statuses of the jobs My Jobs lists (GET /api/tester/my-jobs): held now or done by the tester. */
const MY_JOB_STATUSES: readonly string[] = [
  'claimed',
  'submitted',
  'revision_requested',
  'completed',
];

// A tester hears only of their own jobs: one with a tester and one of these statuses is theirs.
jobList<MyJobsPage, void>('listMyJobs', {
  jobs: (d) => d.jobs,
  shows: (j) => j.tester_id !== null && MY_JOB_STATUSES.includes(j.status),
  missing: 'insert',
});

export const { useListMyJobsQuery } = myJobsApi;

/** RECORDING_MAX_MS / RECORDING_MAX_BYTES as the jobs service says (its defaults until it has). */
export function useRecordingLimits(): RecordingLimits {
  return useListMyJobsQuery(undefined, {
    selectFromResult: (r) => ({ limits: r.data?.recording_limits ?? DEFAULT_RECORDING_LIMITS }),
  }).limits;
}
