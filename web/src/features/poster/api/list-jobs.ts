import { api } from '../../../lib/api';
import type { Job } from '../../../lib/types';

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
