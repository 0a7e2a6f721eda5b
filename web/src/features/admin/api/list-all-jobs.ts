import { api } from '../../../lib/api';
import { jobList, jobTags } from '../../../lib/job-cache';
import type { JobView as Job } from '@htm/contracts/jobs';

const allJobsApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/jobs as admin: every job with poster_info. */
    listAllJobs: build.query<Job[], void>({
      query: () => ({ url: '/jobs' }),
      transformResponse: (r: { jobs: Job[] }) => r.jobs ?? [],
      providesTags: (r = []) => jobTags(r, 'AdminJob', { type: 'Job', id: 'LIST' }),
    }),
  }),
});

// Every job; one it does not hold yet is read again with the list (it shows the poster's e-mail).
jobList<Job[], void>('listAllJobs', { jobs: (d) => d, shows: () => true, missing: 'refetch' });

export const { useListAllJobsQuery } = allJobsApi;
