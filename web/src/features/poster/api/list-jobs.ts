import { api } from '../../../lib/api';
import type { JobView as Job } from '@htm/contracts/jobs';

const listJobsApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/jobs: the poster's own jobs. */
    listJobs: build.query<Job[], void>({
      query: () => ({ url: '/jobs' }),
      transformResponse: (r: { jobs: Job[] }) => r.jobs ?? [],
      providesTags: ['Job'],
    }),
  }),
});

export const { useListJobsQuery } = listJobsApi;
