import { DEFAULT_RECORDING_LIMITS, type RecordingLimits } from '@htm/contracts/findings';
import { api } from '../../../lib/api';
import type { MyJobsResponse as MyJobsPage } from '@htm/contracts/jobs';

/** GET /api/tester/my-jobs: the tester's jobs and the limits the screen recorder respects. */
export type { MyJobsPage };

const myJobsApi = api.injectEndpoints({
  endpoints: (build) => ({
    listMyJobs: build.query<MyJobsPage, void>({
      query: () => ({ url: '/tester/my-jobs' }),
      transformResponse: (r: Partial<MyJobsPage>) => ({
        jobs: r.jobs ?? [],
        recording_limits: r.recording_limits ?? DEFAULT_RECORDING_LIMITS,
      }),
      providesTags: ['MyJob'],
    }),
  }),
});

export const { useListMyJobsQuery } = myJobsApi;

/** RECORDING_MAX_MS / RECORDING_MAX_BYTES as the jobs service says (its defaults until it has). */
export function useRecordingLimits(): RecordingLimits {
  return useListMyJobsQuery(undefined, {
    selectFromResult: (r) => ({ limits: r.data?.recording_limits ?? DEFAULT_RECORDING_LIMITS }),
  }).limits;
}
