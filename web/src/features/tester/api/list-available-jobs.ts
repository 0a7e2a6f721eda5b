import { api } from '../../../lib/api';
import { jobList, jobTags } from '../../../lib/job-cache';
import { jobAllows } from '../../../lib/job-rules';
import type { AvailableJobsPage } from '@htm/contracts/jobs';

export const availableApi = api.injectEndpoints({
  endpoints: (build) => ({
    listAvailableJobs: build.query<AvailableJobsPage, { cursor?: string } | void>({
      query: (a) => ({ url: '/tester/available-jobs', params: { limit: 20, cursor: a?.cursor } }),
      providesTags: (r) => jobTags(r?.jobs ?? [], 'AvailableJob'),
    }),
  }),
});

// A job stays while it may be claimed; one that becomes claimable comes with its own live
// message ('available': the list is read again, since only the server knows whether it fits).
jobList<AvailableJobsPage, { cursor?: string } | void>('listAvailableJobs', {
  jobs: (d) => d.jobs,
  shows: (j) => jobAllows(j, 'claim'),
  missing: 'ignore',
});

export const { useListAvailableJobsQuery } = availableApi;
