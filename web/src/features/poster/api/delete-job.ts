import { api } from '../../../lib/api';

const deleteJobApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** DELETE /api/jobs/:id: the poster deletes an unpaid job. */
    deleteJob: build.mutation<void, string>({
      query: (id) => ({ url: `/jobs/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['Job'],
    }),
  }),
});

export const { useDeleteJobMutation } = deleteJobApi;
