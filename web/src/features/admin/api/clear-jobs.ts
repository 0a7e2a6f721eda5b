import { api } from '../../../lib/api';

const clearApi = api.injectEndpoints({
  endpoints: (build) => ({
    clearJobs: build.mutation<
      { jobs_deleted: number; submissions_deleted: number; waitlist_deleted: number },
      void
    >({
      query: () => ({ url: '/admin/clear-jobs', method: 'POST' }),
      invalidatesTags: ['AdminJob', 'Job', 'Waitlist', 'Overview'],
    }),
  }),
});

export const { useClearJobsMutation } = clearApi;
