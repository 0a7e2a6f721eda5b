import { api } from '../../../lib/api';
import type { AvailableJobsPage } from '@htm/contracts/jobs';

const availableApi = api.injectEndpoints({
  endpoints: (build) => ({
    listAvailableJobs: build.query<AvailableJobsPage, { cursor?: string } | void>({
      query: (a) => ({ url: '/tester/available-jobs', params: { limit: 20, cursor: a?.cursor } }),
      providesTags: ['AvailableJob'],
    }),
  }),
});

export const { useListAvailableJobsQuery } = availableApi;
