import { api } from '../../../lib/api';
import type { JobView as Job } from '@htm/contracts/jobs';

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
