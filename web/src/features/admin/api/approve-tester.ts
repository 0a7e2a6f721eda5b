import { api } from '../../../lib/api';

const approveApi = api.injectEndpoints({
  endpoints: (build) => ({
    approveTester: build.mutation<unknown, { id: string; approved: boolean }>({
      query: ({ id, approved }) => ({
        url: `/admin/approve-tester/${encodeURIComponent(id)}`,
        method: 'PATCH',
        body: { approved },
      }),
      invalidatesTags: ['Tester'],
    }),
  }),
});

export const { useApproveTesterMutation } = approveApi;
