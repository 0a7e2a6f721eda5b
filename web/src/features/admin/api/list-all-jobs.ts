import { api } from '../../../lib/api';
import type { JobView as Job } from '@htm/contracts/jobs';

const allJobsApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/jobs as admin: every job with poster_info. */
    listAllJobs: build.query<Job[], void>({
      query: () => ({ url: '/jobs' }),
      transformResponse: (r: { jobs: Job[] }) => r.jobs ?? [],
      providesTags: ['AdminJob', 'Job'],
    }),
  }),
});

export const { useListAllJobsQuery } = allJobsApi;
