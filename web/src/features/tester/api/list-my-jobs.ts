import { api } from '../../../lib/api';
import type { Job } from '../../../lib/types';

const myJobsApi = api.injectEndpoints({
  endpoints: (build) => ({
    listMyJobs: build.query<Job[], void>({
      query: () => ({ url: '/tester/my-jobs' }),
      transformResponse: (r: { jobs: Job[] }) => r.jobs ?? [],
      providesTags: ['MyJob'],
    }),
  }),
});

export const { useListMyJobsQuery } = myJobsApi;
