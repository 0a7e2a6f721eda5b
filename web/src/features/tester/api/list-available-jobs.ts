import { api } from '../../../lib/api';
import type { JobView as Job } from '@htm/contracts/jobs';

const availableApi = api.injectEndpoints({
  endpoints: (build) => ({
    listAvailableJobs: build.query<
      { jobs: Job[]; next_cursor: string | null; usual_minutes?: number | null },
      { cursor?: string } | void
    >({
      query: (a) => ({ url: '/tester/available-jobs', params: { limit: 20, cursor: a?.cursor } }),
      providesTags: ['AvailableJob'],
    }),
  }),
});

export const { useListAvailableJobsQuery } = availableApi;
