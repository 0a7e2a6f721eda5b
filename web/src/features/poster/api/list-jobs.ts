import { api } from '../../../lib/api';
import { jobList, jobTags } from '../../../lib/job-cache';
import type { JobView as Job } from '@htm/contracts/jobs';

export const listJobsApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/jobs: the poster's own jobs. */
    listJobs: build.query<Job[], void>({
      query: () => ({ url: '/jobs' }),
      transformResponse: (r: { jobs: Job[] }) => r.jobs ?? [],
      providesTags: (r = []) => jobTags(r, { type: 'Job', id: 'LIST' }),
    }),
  }),
});

// The poster's live messages and answers are all about their own jobs: each one belongs here.
jobList<Job[], void>('listJobs', { jobs: (d) => d, shows: () => true, missing: 'insert' });

export const { useListJobsQuery } = listJobsApi;
